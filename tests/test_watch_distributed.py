"""loadertune.watch under torchrun: 2 CPU processes, gloo, one table with a row per rank.

This file is also the training script torchrun runs (``python this_file.py OUT_JSON [ONLY]``;
with ONLY, only that rank wraps its loader).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from _lt import torchrun

HERE = Path(__file__).resolve()


def train(out_json: str) -> None:
    """One rank: a DistributedSampler loader, watched, with a step that sleeps."""
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

    import loadertune

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    data = TensorDataset(torch.arange(64, dtype=torch.float32).unsqueeze(1))
    loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data, shuffle=False),
                        num_workers=1, multiprocessing_context="fork")
    with loadertune.watch(loader, report=False) as watched:
        for (batch,) in watched:
            total = batch.sum()
            dist.all_reduce(total)  # the step syncs the ranks, as DDP's backward does
            time.sleep(0.002 * (rank + 1))
    summaries = watched.report()  # a collective: rank 0 prints one table
    if rank == 0:
        Path(out_json).write_text(json.dumps([s.to_dict() for s in summaries]))
    for _batch in loadertune.watch(loader):  # the report at the end of a pass gathers too
        time.sleep(0.001)
    dist.barrier()
    dist.destroy_process_group()


def train_one_rank_watches(out_json: str, only: int) -> None:
    """Only rank ``only`` wraps its loader; its reports must not wait for the other forever."""
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader, TensorDataset

    import loadertune

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    out: dict = {"rank": rank}
    if rank == only:
        loader = DataLoader(TensorDataset(torch.arange(16.0)), batch_size=4)
        with loadertune.watch(loader, report=False, gather_timeout_s=2) as watched:
            for _batch in watched:
                pass
        out["summaries"] = [s.to_dict() for s in watched.report()]
        for _batch in loadertune.watch(loader, gather_timeout_s=2):  # the report at pass end
            pass
    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)  # the process group still works after the reports
    out["sum"] = total.item()
    Path(f"{out_json}.{rank}").write_text(json.dumps(out))
    dist.destroy_process_group()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("only", [0, 1])
def test_one_rank_watching_does_not_deadlock(tmp_path: Path, only: int) -> None:
    out_json = tmp_path / "out.json"
    proc = torchrun(HERE, str(out_json), str(only), tmp_path=tmp_path, timeout=110)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = [json.loads(Path(f"{out_json}.{r}").read_text()) for r in (0, 1)]
    assert [r["sum"] for r in results] == [3.0, 3.0]
    [summary] = results[only]["summaries"]  # its own summary only: nothing was gathered
    assert summary["rank"]["rank"] == only and summary["batches"] == 4
    assert "summaries" not in results[1 - only]
    assert proc.stdout.count(f"loadertune watch · rank {only}/2") == 2  # it reported alone
    assert "2 ranks" not in proc.stdout


@pytest.mark.timeout(180)
def test_torchrun_two_ranks_gather_into_one_table(tmp_path):
    out_json = tmp_path / "summaries.json"
    proc = torchrun(HERE, str(out_json), tmp_path=tmp_path, timeout=170)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summaries = json.loads(out_json.read_text())
    assert [s["rank"]["rank"] for s in summaries] == [0, 1]
    assert all(s["rank"]["world_size"] == 2 for s in summaries)
    assert all(s["rank"]["local_world_size"] == 2 for s in summaries)
    assert all(s["batches"] == 8 for s in summaries)  # 64 items / 2 ranks / batch 4
    assert all(sum(w["items"] for w in s["workers"]) == 32 for s in summaries)
    # LOCAL_WORLD_SIZE=2: each rank gets half of the machine's usable cores
    from loadertune import machine

    half = machine.usable_cpus(machine.affinity_cpus(), machine.cgroup_cpu_quota(), 2)
    assert all(s["usable_cpus"] == pytest.approx(half, abs=0.01) for s in summaries)
    assert proc.stdout.count("2 ranks") == 2  # only rank 0 prints, once per report
    table = proc.stdout[proc.stdout.index("2 ranks"):]
    assert "rank 0 verdict" in table and "rank 1 verdict" in table
    assert "loadertune watch · rank" not in proc.stdout  # no rank printed a report of its own


if __name__ == "__main__":
    if len(sys.argv) > 2:
        train_one_rank_watches(sys.argv[1], int(sys.argv[2]))
    else:
        train(sys.argv[1])
