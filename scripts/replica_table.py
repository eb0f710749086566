"""scripts/serve.sh's table of replicas: set one replica's line (number, port, live process id), replacing the
file in one step, so that a reader never sees it half written.

    python3 scripts/replica_table.py REPLICAS_TXT NUMBER PORT PID
"""

import os
import sys

path, number, port, pid = sys.argv[1:]
kept = []
if os.path.exists(path):
    kept = [line for line in open(path).read().splitlines() if line.strip() and line.split()[0] != number]
lines = sorted([*kept, f"{number} {port} {pid}"], key=lambda line: int(line.split()[0]))
with open(path + ".new", "w") as new:
    new.write("".join(f"{line}\n" for line in lines))
os.replace(path + ".new", path)
