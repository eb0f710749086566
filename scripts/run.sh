#!/usr/bin/env bash
# Run the app on a fresh machine: the project's virtual environment (scripts/venv.sh), its pinned packages, then
# `streamlit run app.py` on http://localhost:8501. Extra arguments go to streamlit (for example --server.port 8502).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
python -m pip install -q -r requirements.txt
exec python -m streamlit run app.py "$@"
