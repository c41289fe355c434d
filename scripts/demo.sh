#!/usr/bin/env bash
# Install loadertune into .venv and run `loadertune demo` on the bundled JPEG workload.
set -euo pipefail
cd "$(dirname "$0")/.."
LOADERTUNE_EXTRAS=test bash scripts/setup-env.sh
exec .venv/bin/loadertune demo "$@"
