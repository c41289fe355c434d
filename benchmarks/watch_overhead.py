"""What `loadertune.watch` adds to a training loop: bare loop vs watched loop, side by side.

The workload is ``tiny`` (small tensors, IPC-bound: the worst case for per-batch overhead) with a
5 ms step. Each round runs the bare loop and the watched loop one after the other (order
alternating), over loaders whose persistent workers were started and warmed up beforehand, so a
round measures the steady loop only. The ratio reported is the median over rounds of
watched / bare of the same round (ratio of medians beside it); the per-batch cost of the timers
alone is measured too: the main-process wrapper on a plain list with no step, the worker's fetch
timer around the same fetch.

    python benchmarks/watch_overhead.py                 # quick (< 1 min)
    python benchmarks/watch_overhead.py --rounds 200 --json watch_overhead.json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from collections.abc import Iterable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

import loadertune


class TinyItems(Dataset):
    """Small tensors: fetching is cheap, so moving batches dominates (the ``tiny`` workload)."""

    def __init__(self, n: int, dim: int = 16) -> None:
        self.data = torch.randn(n, dim)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int) -> torch.Tensor:
        return self.data[index]


def tiny_dataset(n: int) -> Dataset:
    """The bundled ``tiny`` workload when present, else the inline stand-in above."""
    try:
        from loadertune.workloads import tiny  # type: ignore[attr-defined]

        make = getattr(tiny, "make_dataset", None) or getattr(tiny, "TinyDataset", None)
        if make is not None:
            return make(n) if callable(make) else make
    except Exception:  # not written yet, or a different API: use the inline one
        pass
    return TinyItems(n)


def step(seconds: float, kind: str) -> None:
    if kind == "sleep":
        time.sleep(seconds)
        return
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def loop_seconds(batches: Iterable[Any], step_s: float, kind: str) -> float:
    t0 = time.perf_counter()
    for _batch in batches:
        if step_s:
            step(step_s, kind)
    return time.perf_counter() - t0


def wrapper_cost_us(n: int = 50_000) -> float:
    """Per-batch cost of the wrapper alone: a plain list, no step, bare vs watched."""
    items = list(range(n))
    bare = min(loop_seconds(items, 0, "none") for _ in range(5))
    watched = min(loop_seconds(loadertune.watch(items, report=False), 0, "none")
                  for _ in range(5))
    return (watched - bare) / n * 1e6


def worker_timer_cost_us(batch_size: int, n_batches: int = 100) -> tuple[float, float]:
    """Per-batch cost of the fetch timer a worker gets (wall, CPU and run-queue clocks around
    each batch), measured in this process around the same fetch; and that fetch, for scale."""
    import numpy as np

    from loadertune.watch.workers import COLUMNS, _batch_timer

    data = TinyItems(batch_size * 4)
    indices = list(range(batch_size))

    def fetch(dataset: Any, idx: list[int]) -> list[torch.Tensor]:
        return [data[i] for i in idx]

    timer = _batch_timer(fetch, np.zeros(COLUMNS))

    def run(call: Any) -> float:
        t0 = time.perf_counter()
        for _ in range(n_batches):
            call(None, indices)
        return (time.perf_counter() - t0) / n_batches

    bare, timed = [], []
    for _ in range(60):  # short interleaved blocks; the minimum of each is the unpreempted cost
        bare.append(run(fetch))
        timed.append(run(timer))
    return (min(timed) - min(bare)) * 1e6, min(bare) * 1e6


def measure(workers: int, args: argparse.Namespace) -> dict[str, Any]:
    """Bare vs watched rounds; half of them with the bare loader made first, half the watched
    one, so neither side gains from being the older loader (its workers, its memory)."""
    n = args.batches * args.batch_size
    kw = dict(batch_size=args.batch_size, num_workers=workers)
    if workers:
        kw.update(persistent_workers=True, multiprocessing_context="fork")
    step_s = args.step_ms / 1000
    bare: list[float] = []
    watch: list[float] = []
    summary = None
    for half in range(2):
        loaders = [DataLoader(tiny_dataset(n), **kw), DataLoader(tiny_dataset(n), **kw)]
        bare_loader, second = loaders if half == 0 else loaders[::-1]
        # --control: the "watched" side is a second bare loader, which shows the noise floor
        watched = second if args.control else loadertune.watch(second, report=False)
        for loader in (loaders[0], loaders[1]):  # start and warm up the workers, oldest first
            loop_seconds(watched if loader is second else loader, 0, "none")
        for r in range(args.rounds // 2):
            pair = [(bare, bare_loader), (watch, watched)]
            for times, loader in pair if r % 2 == 0 else reversed(pair):
                times.append(loop_seconds(loader, step_s, args.step_kind))
        if not args.control:
            summary = watched.summary()
        del loaders, bare_loader, second, watched, loader  # their workers exit now
        gc.collect()
    ratios = sorted(w / b for w, b in zip(watch, bare, strict=True))
    return {
        "num_workers": workers,
        "bare_s": bare, "watched_s": watch,
        "ratio_of_medians": statistics.median(watch) / statistics.median(bare),
        "median_paired_ratio": statistics.median(ratios),
        "paired_ratio_p25_p75": [ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]],
        "stall_fraction": summary.stall_fraction if summary else None,
        "verdict": summary.verdict.text if summary else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="0,2", help="num_workers values, comma-separated")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--batches", type=int, default=20,
                        help="batches per loop (short loops keep each bare/watched pair close "
                             "in time, so load from other processes hits both alike)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--step-ms", type=float, default=5.0)
    parser.add_argument("--step-kind", choices=("sleep", "burn"), default="sleep")
    parser.add_argument("--control", action="store_true",
                        help="A/A run: compare two bare loaders, to see the noise floor")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    torch.set_num_threads(1)

    main_us = wrapper_cost_us()
    worker_us, fetch_us = worker_timer_cost_us(args.batch_size)
    results: dict[str, Any] = {"config": vars(args), "wrapper_cost_us_per_batch": main_us,
                               "worker_timer_cost_us_per_batch": worker_us,
                               "untimed_fetch_us_per_batch": fetch_us, "runs": []}
    print(f"wrapper in the main process: {main_us:.2f} µs per batch "
          f"({main_us / (args.step_ms * 10):.4f} % of a {args.step_ms:g} ms step)")
    print(f"fetch timer in a worker: {worker_us:.2f} µs per batch of {args.batch_size} "
          f"(the fetch itself: {fetch_us:.0f} µs)")
    print(f"side by side: {args.rounds} rounds of {args.batches} batches, {args.step_ms:g} ms "
          f"{args.step_kind} step, order alternating")
    print(f"{'workers':>7}  {'bare median':>11}  {'watched median':>14}  "
          f"{'watched/bare (paired median, p25-p75)':>38}  {'ratio of medians':>16}  stall")
    for workers in (int(w) for w in args.workers.split(",")):
        run = measure(workers, args)
        results["runs"].append(run)
        lo, hi = run["paired_ratio_p25_p75"]
        paired = f"{run['median_paired_ratio']:.4f} ({lo:.4f}-{hi:.4f})"
        print(f"{workers:>7}  {statistics.median(run['bare_s']):>10.4f}s  "
              f"{statistics.median(run['watched_s']):>13.4f}s  {paired:>38}  "
              f"{run['ratio_of_medians']:>16.4f}  "
              f"{'-' if args.control else format(run['stall_fraction'], '.0%')}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    results["load_average_1min"] = load
    if load is not None:
        print(f"load average {load:.1f} on {os.cpu_count()} CPUs (noise grows with it)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
