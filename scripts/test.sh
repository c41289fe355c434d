#!/usr/bin/env bash
# Install loadertune and its test tools into .venv, then lint and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/python scripts/smoke_no_posix.py   # import + every --help without POSIX-only modules
exec .venv/bin/python -m pytest -q "$@"
