"""What the sampling profiler (`loadertune.profile`) costs a trial: throughput with it and without.

Each round measures the same config four times in a row, profiler off, on, on, off (ABBA, so a
drift in the machine's load cancels), every trial a real one (`run_trial`, fresh processes).
The ratio reported is the median over rounds of off / on throughput of the same round (1.02 =
2 % overhead; the target is ≤ 1.02); the ratio of the medians is beside it. Hang detection is
on in both arms (it is part of every trial); only the 5 ms sampling differs.

    python benchmarks/profile_overhead.py                          # quick (a few minutes)
    python benchmarks/profile_overhead.py --workloads jpeg,tiny --rounds 5 --json prof.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial

SIZES = {"jpeg": "loadertune.workloads:jpeg", "tiny": "loadertune.workloads:tiny",
         "mixed": "loadertune.workloads:mixed", "remote": "loadertune.workloads:remote"}


def measure(spec: str, workers: int, batch_size: int, profile: bool, batches: int) -> float:
    plan = TrialPlan(batches=batches, repeats=3, timeout_s=300, profile=profile)
    result = run_trial(DatasetSource(spec=spec), LoaderConfig(num_workers=workers,
                                                              batch_size=batch_size), plan)
    if not result.ok or not result.samples_per_s:
        raise SystemExit(f"{spec} w{workers}: {result.failure}")
    return result.samples_per_s


def case(spec: str, workers: int, batch_size: int, rounds: int, batches: int) -> dict[str, Any]:
    """ABBA rounds of one workload and worker count; per-round off/on ratios."""
    ratios, offs, ons = [], [], []
    for _ in range(rounds):
        a1 = measure(spec, workers, batch_size, False, batches)
        b1 = measure(spec, workers, batch_size, True, batches)
        b2 = measure(spec, workers, batch_size, True, batches)
        a2 = measure(spec, workers, batch_size, False, batches)
        off, on = (a1 + a2) / 2, (b1 + b2) / 2
        offs.append(off)
        ons.append(on)
        ratios.append(off / on)
    return {"spec": spec, "workers": workers, "batch_size": batch_size, "rounds": rounds,
            "off_samples_per_s": offs, "on_samples_per_s": ons, "ratios": ratios,
            "ratio": statistics.median(ratios),
            "ratio_of_medians": statistics.median(offs) / statistics.median(ons)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="jpeg", help=f"any of {', '.join(SIZES)}")
    parser.add_argument("--workers", default="0,2", help="worker counts, e.g. 0,2")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--batches", type=int, default=10, help="batches per timed window")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    rows = []
    print(f"{'workload':<10} {'w':>2} {'off samples/s':>14} {'on samples/s':>13} "
          f"{'off/on':>7} {'(medians)':>9}")
    for name in args.workloads.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            row = case(SIZES[name], workers, args.batch_size, args.rounds, args.batches)
            rows.append({"workload": name, **row})
            print(f"{name:<10} {workers:>2} {statistics.median(row['off_samples_per_s']):>14,.0f} "
                  f"{statistics.median(row['on_samples_per_s']):>13,.0f} {row['ratio']:>7.3f} "
                  f"{row['ratio_of_medians']:>9.3f}", flush=True)
    overall = statistics.median(r for row in rows for r in row["ratios"])
    print(f"overall off/on (median of every round's ratio): {overall:.3f} "
          f"({100 * (overall - 1):+.1f} % overhead; target ≤ +2 %)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"cases": rows, "ratio": overall}, out, indent=2)


if __name__ == "__main__":
    main()
