"""How long does `loadertune explain` take on a whole training log rather than a traceback?

Builds a log the way a long run writes it (a progress line per step for N steps, then a
corpus traceback) and times `explain_text` on the traceback alone and on the whole log, side
by side in one run; prints the seconds, the ratio and whether both name the same cause.
Always exits 0.

    python benchmarks/explain_speed.py               # 15,000 progress lines (about 1 MiB)
    python benchmarks/explain_speed.py --steps 60000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explain_corpus import CORPUS, read_entry

from loadertune.explain import explain_text

TRACEBACK = "002-pipedream-unexpected-bus-error.txt"


def progress(steps: int) -> str:
    """A tqdm/Lightning-style progress line per step."""
    return "\n".join(f"Epoch {i // 1500}: {i % 1500 * 100 // 1500:3d}%|{'#' * (i % 1500 // 150)}"
                     f"{' ' * (10 - i % 1500 // 150)}| {i % 1500}/1500 [00:{i % 60:02d}<01:00, "
                     f"12.3it/s, loss=0.{i * 7 % 1000:03d}, v_num=3]" for i in range(steps))


def timed(text: str) -> tuple[float, str]:
    start = time.perf_counter()
    cause = explain_text(text).to_dict()["cause"]
    return time.perf_counter() - start, cause


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15_000, help="progress lines before it")
    args = parser.parse_args(argv)
    traceback = read_entry(CORPUS / TRACEBACK)[1]
    log = progress(args.steps) + "\n" + traceback
    short_s, short_cause = timed(traceback)
    long_s, long_cause = timed(log)
    print(f"traceback alone  {len(traceback) / 2**10:8.1f} KiB  {short_s:6.2f} s  {short_cause}")
    print(f"whole log        {len(log) / 2**10:8.1f} KiB  {long_s:6.2f} s  {long_cause}")
    print(f"ratio {long_s / short_s:.0f}x for {len(log) / len(traceback):.0f}x the text; "
          f"same cause: {short_cause == long_cause}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
