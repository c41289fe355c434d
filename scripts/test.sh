#!/usr/bin/env bash
# Install loadertune and its test tools into .venv, then lint and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
.venv/bin/ruff check src tests benchmarks
exec .venv/bin/python -m pytest -q "$@"
