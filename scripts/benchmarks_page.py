"""docs/benchmarks.md from the records the benchmark scripts write (docs/records/<name>.json): the page is never
written by hand, so its figures are always the last run's own, with the command and machine that made them.

    python -m scripts.benchmarks_page          # write the page
    python -m scripts.benchmarks_page --check  # exit 1 when the page is not what the records give
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "docs" / "records"
PAGE = ROOT / "docs" / "benchmarks.md"

INTRO = """# Benchmarks

Every figure on this page was printed by a script in `benchmarks/`, which measures the candidates side by side in
one run (medians and ratios, so the noise of a shared machine falls on all of them alike) and writes a record in
`docs/records/`. This page is generated from those records by `python -m scripts.benchmarks_page`; a test fails
when it differs from them. To measure again, run the command shown under a benchmark; older figures stay in the
project's history. No test holds a time limit: the tests assert behaviour, these scripts measure speed.
"""


def purpose(module: str) -> str:
    """The first line of the benchmark module's docstring: what it measures."""
    path = ROOT / "benchmarks" / f"{module}.py"
    doc = ast.get_docstring(ast.parse(path.read_text())) if path.exists() else None
    return doc.strip().split("\n\n")[0].replace("\n", " ") if doc else ""


def cell(value) -> str:
    if isinstance(value, float):
        value = f"{value:g}"
    elif isinstance(value, (list, tuple)) and all(not isinstance(v, (dict, list)) for v in value):
        value = ", ".join(cell(v) for v in value)
    elif isinstance(value, (dict, list)):
        value = json.dumps(value, ensure_ascii=False)
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(rows: list[dict]) -> list[str]:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return lines


def figures_lines(figures: dict, depth: int = 0) -> list[str]:
    """Lists of rows as tables, nested groups as headed blocks, single figures as a list."""
    lines, singles = [], []
    for key, value in figures.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines += ["", f"**{cell(key)}**" if key != "rows" else "", ""] + table(value)
        elif isinstance(value, dict) and value and all(isinstance(v, dict) and not any(
                isinstance(x, (dict, list)) for x in v.values()) for v in value.values()):
            lines += ["", f"**{cell(key)}**", ""] + table([{"": k, **v} for k, v in value.items()])
        elif isinstance(value, dict) and any(isinstance(v, (dict, list)) for v in value.values()):
            lines += ["", f"**{cell(key)}**", ""] + figures_lines(value, depth + 1)
        elif isinstance(value, dict):
            lines += ["", f"**{cell(key)}**", ""] + table([value])
        else:
            singles.append(f"- {cell(key)}: {cell(value)}")
    return (singles + lines) if singles else lines


def section(name: str, record: dict) -> list[str]:
    command = record["command"]
    module = command.split()[2].removeprefix("benchmarks.")
    machine = record.get("machine")
    on = (f"{machine['cpu']}, {machine['cores']} cores, Python {machine['python']}" if machine
          else "a machine the record does not describe")
    return [f"## {name.replace('_', ' ')}", "", purpose(module), "", f"    {command}", "",
            f"Measured {record['date'].replace('T', ' ')} on {on}.", *figures_lines(record["figures"]), ""]


def render(records: dict[str, dict]) -> str:
    lines = [INTRO]
    if not records:
        lines.append("No benchmark has written a record yet.\n")
    for name in sorted(records):
        lines += section(name, records[name])
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"


def read_records(folder: Path = RECORDS) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def main() -> None:
    page = render(read_records())
    if "--check" in sys.argv[1:]:
        sys.exit(0 if PAGE.exists() and PAGE.read_text() == page else 1)
    PAGE.write_text(page)
    print(f"written: {PAGE.relative_to(ROOT)} from {len(read_records())} records")


if __name__ == "__main__":
    main()
