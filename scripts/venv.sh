# Sourced by scripts/run.sh, scripts/test.sh and scripts/serve.sh: the project's own virtual environment
# (.venv, made on first use), active for the rest of the script. A system Python that refuses `pip install`
# (PEP 668's "externally-managed-environment", as on current Debian and Ubuntu) is never installed into.
# EXPLORER_VENV names another folder.
# Already inside one (the test command's, for the servers its tests start): that one.
venv="${VIRTUAL_ENV:-${EXPLORER_VENV:-.venv}}"
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv" 2>/dev/null; then   # Debian's python3 makes venvs only with python3-venv
    rm -rf "$venv"
    # shellcheck disable=SC1091
    . "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
    apt_install python3-venv
    python3 -m venv "$venv"
  fi
fi
# shellcheck disable=SC1091
. "$venv/bin/activate"
