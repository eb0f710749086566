"""scripts/serve.sh's table of replicas: set one replica's line (number, port, live process id), replacing the
file in one step, so that a reader never sees it half written. The supervisors of all replicas start together:
each holds a lock on the table while it reads and rewrites it, or one would lose another's line (or rename a
file the other had just renamed).

    python3 scripts/replica_table.py REPLICAS_TXT NUMBER PORT PID
"""

import fcntl
import os
import sys

path, number, port, pid = sys.argv[1:]
with open(path + ".lock", "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    kept = []
    if os.path.exists(path):
        kept = [line for line in open(path).read().splitlines() if line.strip() and line.split()[0] != number]
    lines = sorted([*kept, f"{number} {port} {pid}"], key=lambda line: int(line.split()[0]))
    new = f"{path}.new.{os.getpid()}"
    with open(new, "w") as table:
        table.write("".join(f"{line}\n" for line in lines))
    os.replace(new, path)
