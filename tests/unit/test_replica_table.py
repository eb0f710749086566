"""scripts/serve.sh's supervisors write the replica table together as the replicas start: no line is lost and
no writer fails (two at once had renamed one shared temporary file, and a replica's supervisor died of it)."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "replica_table.py"


def test_replicas_starting_together_each_keep_their_line(tmp_path):
    table = tmp_path / "replicas.txt"
    for attempt in range(5):
        writers = [subprocess.Popen([sys.executable, str(SCRIPT), str(table), str(n), str(9000 + n), str(100 + n)],
                                    stderr=subprocess.PIPE) for n in range(1, 9)]
        failures = [w.stderr.read() for w in writers if w.wait() != 0]
        assert failures == [], failures
        assert table.read_text().splitlines() == [f"{n} {9000 + n} {100 + n}" for n in range(1, 9)], attempt
        table.unlink()


def test_a_restarted_replica_replaces_its_own_line(tmp_path):
    table = tmp_path / "replicas.txt"
    for n, pid in ((1, 11), (2, 12), (2, 99)):
        subprocess.run([sys.executable, str(SCRIPT), str(table), str(n), "8000", str(pid)], check=True)
    assert table.read_text().splitlines() == ["1 8000 11", "2 8000 99"]
