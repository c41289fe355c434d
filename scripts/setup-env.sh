#!/usr/bin/env bash
# Create .venv (if missing) and install loadertune with its test tools and the optional
# integrations (Lightning, Hugging Face) whose tests otherwise skip.
# torch is pinned to the CPU build 2.13.0 so that no multi-GB CUDA build is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "loadertune needs Python >= 3.11; $("$PYTHON" --version 2>&1) found (set PYTHON=...)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Elsewhere, point TORCH_INDEX at https://download.pytorch.org/whl/cpu to get the CPU build.
.venv/bin/python -m pip install -qq --disable-pip-version-check \
  ${TORCH_INDEX:+--extra-index-url "$TORCH_INDEX"} "torch==2.13.0"
.venv/bin/python -m pip install -qq --disable-pip-version-check -e ".[test,lightning,hf]"
