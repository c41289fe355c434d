#!/usr/bin/env bash
# Create .venv (if missing) and install loadertune with its test tools.
# torch is pinned to the CPU build 2.13.0 so that no multi-GB CUDA build is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
# Elsewhere, point TORCH_INDEX at https://download.pytorch.org/whl/cpu to get the CPU build.
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  ${TORCH_INDEX:+--extra-index-url "$TORCH_INDEX"} "torch==2.13.0"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
