#!/usr/bin/env bash
# Install loadertune and its test tools into .venv, then lint and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/python scripts/smoke_no_posix.py   # import + every --help without POSIX-only modules
# The trial and tune tests once more as on macOS and Windows: fresh-interpreter trials, spawned
# workers (LOADERTUNE_SPAWN_ONLY=1). Skipped when arguments select tests.
if [ $# -eq 0 ]; then
  LOADERTUNE_SPAWN_ONLY=1 .venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/test_trial.py tests/test_tune_e2e.py
fi
exec .venv/bin/python -m pytest -q --durations=15 "$@"
