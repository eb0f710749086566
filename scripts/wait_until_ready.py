"""Wait for a server of the app to say it is ready (drivers.ready): scripts/serve.sh runs it for each replica
before HAProxy starts.

    python -m scripts.wait_until_ready http://127.0.0.1:8502 [seconds]
"""

from __future__ import annotations

import sys

from drivers.ready import READY, wait_until_ready

if __name__ == "__main__":
    url, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
    if not wait_until_ready(url, seconds):
        sys.exit(f"{url} did not answer {READY} within {seconds:.0f} s")
