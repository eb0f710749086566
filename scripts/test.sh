#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run the whole suite.
# Used as-is by the README and by .ci/run; runs in the project's virtual environment (scripts/venv.sh). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium for the browser tests (never `playwright install`), HAProxy for scripts/serve.sh
packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium fonts-noto-color-emoji)
command -v haproxy >/dev/null || packages+=(haproxy)
# Debian's PostgreSQL for class mode's store tests (drivers/postgres.py starts a server of its own)
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || packages+=(postgresql)
# npm, to install the pinned axe-core of the accessibility tests (package-lock.json)
command -v npm >/dev/null || packages+=(npm)
. scripts/apt.sh
apt_install ${packages[@]+"${packages[@]}"}
. scripts/venv.sh      # the same environment as scripts/run.sh's: `python` below is the venv's
python -m pip install -q -r requirements-dev.txt
# axe-core for the accessibility tests, pinned in package-lock.json (npm ships with the machine's Node)
[ -f node_modules/axe-core/axe.min.js ] || npm ci --no-audit --no-fund --silent
if [ $# -gt 0 ]; then
  exec python -m pytest "$@"
fi
# The unit and app tiers on both cores (xdist; one torch thread a worker, tests/conftest.py; a file's tests on one
# worker, which keeps its module fixtures shared). Then the browser tests on both cores, each worker with a server
# and a Chromium of its own. Then the load tests one at a time: they weigh servers and count their answers, which
# another test on the machine would change. All three run; any failing fails.
status=0
python -m pytest -n 2 --dist loadfile tests/unit tests/app || status=$?
python -m pytest -n 2 --dist loadfile tests/e2e -m "not load" || status=$?
python -m pytest tests/e2e -m load || { code=$?; [ $code -eq 5 ] || status=$code; }   # 5: none marked load
# The documentation site, with the pictures the browser tests just took: a broken link or a missing page fails.
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "${EXPLORER_SITE_DIR:-site}" || status=$?
exit $status
