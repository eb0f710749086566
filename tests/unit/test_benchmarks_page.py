"""The docs' benchmarks page is the records' own: generated from docs/records/*.json, never edited by hand."""

import json

from scripts import benchmarks_page
from scripts.benchmarks_page import PAGE, read_records, render


def test_the_committed_page_is_what_the_records_give():
    assert PAGE.read_text() == render(read_records()), "run `python -m scripts.benchmarks_page`"


def test_every_record_names_a_benchmark_command_a_date_and_figures():
    records = read_records()
    assert {"class_vote", "quiz_gain", "hostile_class"} <= set(records)
    for name, record in records.items():
        module = record["command"].split()[2]
        assert record["command"].startswith("python -m benchmarks."), name
        assert (benchmarks_page.ROOT / f"{module.replace('.', '/')}.py").is_file(), name
        assert record["date"][:2] == "20" and isinstance(record["figures"], dict) and record["figures"], name


def test_a_record_becomes_a_section_with_its_command_machine_and_a_table_of_its_rows(tmp_path):
    (tmp_path / "model_speed.json").write_text(json.dumps({
        "command": "python -m benchmarks.model_speed --repeats 5", "date": "2030-01-02T03:04+00:00",
        "machine": {"cpu": "Test CPU", "cores": 2, "python": "3.11.7"},
        "figures": {"rows": [{"batch": 1, "ours ms": 1.25, "torch ms": 1.5}, {"batch": 8, "ours ms": 3.5}],
                    "ratio": 0.83, "per backend": {"a": {"x": 1}, "b": {"x": 2}}}}))
    page = render(read_records(tmp_path))
    assert "## model speed" in page and "    python -m benchmarks.model_speed --repeats 5" in page
    assert "Measured 2030-01-02 03:04+00:00 on Test CPU, 2 cores, Python 3.11.7." in page
    assert "| batch | ours ms | torch ms |" in page and "| 8 | 3.5 |  |" in page
    assert "- ratio: 0.83" in page and "| b | 2 |" in page
    assert benchmarks_page.purpose("model_speed") in page and benchmarks_page.purpose("model_speed")
