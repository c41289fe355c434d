"""autotune under torchrun: 2 CPU ranks on gloo change their loaders together, at the same
batch, each serving exactly its plain DistributedSampler loader's batches, and never hang.

This file is also the training script torchrun runs (``python this_file.py MODE OUT_JSON``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from _lt import torchrun

HERE = Path(__file__).resolve()
EPOCHS = 3


def _loader(size: int, sleep_s: float, kill_at: int | None = None):  # type: ignore[no-untyped-def]
    """A DistributedSampler loader over a dataset whose items take ``sleep_s`` to load; with
    ``kill_at``, rank 1's workers kill themselves when that many workers run (as the OOM
    killer would)."""
    import torch.distributed as dist
    from torch.utils.data import DataLoader, Dataset, DistributedSampler, get_worker_info

    rank = dist.get_rank()

    class Slow(Dataset):
        def __len__(self) -> int:
            return size

        def __getitem__(self, index: int) -> int:
            info = get_worker_info()
            if kill_at is not None and rank == 1 and info and info.num_workers >= kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(sleep_s)
            return index

    data = Slow()
    return DataLoader(data, batch_size=4, sampler=DistributedSampler(data, shuffle=True, seed=3))


def _epochs(loader, step_s: float) -> list[list[int]]:  # type: ignore[no-untyped-def]
    import torch
    import torch.distributed as dist

    out = []
    for epoch in range(EPOCHS):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            out.append([int(i) for i in batch])
            total = torch.tensor([float(len(batch))])
            dist.all_reduce(total)  # the step syncs the ranks, as DDP's backward does
            time.sleep(step_s)
    return out


def scripted(plan):  # type: ignore[no-untyped-def]
    from loadertune.autotune.policy import Verdict

    steps = iter(plan)

    def policy(windows, bounds, rejected):  # type: ignore[no-untyped-def]
        nxt = next(steps, None)
        return Verdict(nxt, "grow" if nxt else "keep", "scripted")

    return policy


def train(mode: str, out_json: str) -> None:
    """One rank: its plain loader's batches, then the autotuned loader's."""
    from datetime import timedelta

    import torch.distributed as dist

    import loadertune
    from loadertune.autotune import Knobs

    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    if mode in ("policy", "nodes"):  # the real policy: slow items, starting with no worker
        make, options = (lambda: _loader(192, 0.004)), {}
        if mode == "nodes":  # each rank a node of its own, as on 2 machines
            os.environ["GROUP_RANK"] = str(rank)
    else:  # rank 1's workers die with 3 workers: both ranks must go back and agree
        make = lambda: _loader(192, 0.0, kill_at=3)  # noqa: E731
        options = {"policy": scripted([Knobs(2, 2), Knobs(3, 2), Knobs(1, 2)]),
                   "window_batches": 2}
    plain = _epochs(make(), 0.001)
    tuned = loadertune.autotune(make(), store=False, report=True, **options)
    got = _epochs(tuned, 0.001)
    tuned.close()
    out = {"rank": rank, "same": got == plain, "batches": len(got),
           "knobs": tuned.knobs.label(), "rejected": sorted(k.label() for k in tuned.rejected),
           "window_s": tuned.window_s, "windows": len(tuned.windows),
           "group": list(tuned.sync.ranks) if tuned.sync else None,
           "changes": [[c.epoch, c.batch, c.before, c.after, c.kind] for c in tuned.history],
           "whys": [c.why for c in tuned.history]}
    Path(f"{out_json}.{rank}").write_text(json.dumps(out))
    dist.barrier()
    dist.destroy_process_group()


def both_ranks(tmp_path: Path, mode: str, timeout: float) -> tuple[list[dict], str]:
    """Both ranks' results of ``mode`` under torchrun, and its stderr."""
    out = tmp_path / "out.json"
    proc = torchrun(HERE, mode, str(out), tmp_path=tmp_path, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [json.loads(Path(f"{out}.{r}").read_text()) for r in (0, 1)], proc.stderr


@pytest.mark.timeout(150)
def test_ranks_change_together_at_the_same_batch_with_the_real_policy(tmp_path: Path) -> None:
    results, stderr = both_ranks(tmp_path, "policy", timeout=140)
    first, second = results
    assert first["same"] and second["same"]  # each rank: exactly its plain loader's batches
    assert first["batches"] == second["batches"] == EPOCHS * 24  # 192 items / 2 ranks / 4
    assert first["window_s"] == 0.0  # windows close on batch counts only
    assert first["changes"], first  # slow items and no worker: the loop waits, so it grows
    assert first["changes"][0][2] == "w0" and first["changes"][0][4] == "grow"
    assert first["changes"] == second["changes"]  # same change, same epoch, same batch
    assert first["knobs"] == second["knobs"] and first["windows"] == second["windows"]
    assert first["group"] == second["group"] == [0, 1]
    changes = [line for line in stderr.splitlines() if line.startswith("autotune: ")
               and " → " in line]
    assert len(changes) == len(first["changes"])  # only the node's first rank reports


@pytest.mark.timeout(150)
def test_a_failure_on_one_rank_is_rolled_back_on_both(tmp_path: Path) -> None:
    results, _ = both_ranks(tmp_path, "failure", timeout=140)
    first, second = results
    assert first["same"] and second["same"]
    assert [c[4] for c in second["changes"]] == ["grow", "grow", "failed", "grow"]
    assert [c[4] for c in first["changes"]] == ["grow", "grow", "revert", "grow"]
    assert "failed on rank 1" in first["whys"][2]
    assert first["changes"][2][2:4] == ["w3 pf2", "w2 pf2"]  # told at its window's close...
    assert first["changes"][3] == second["changes"][3]  # ...and together again afterwards
    assert first["rejected"] == second["rejected"] == ["w3 pf2"]
    assert first["knobs"] == second["knobs"] == "w1 pf2"


@pytest.mark.timeout(150)
def test_nodes_tune_apart_in_groups_of_their_own(tmp_path: Path) -> None:
    results, _ = both_ranks(tmp_path, "nodes", timeout=140)
    for rank, result in enumerate(results):
        assert result["group"] == [rank]  # its node's group holds it alone
        assert result["same"] and result["batches"] == EPOCHS * 24
        assert result["changes"] and result["changes"][0][2] == "w0"


if __name__ == "__main__":
    train(sys.argv[1], sys.argv[2])
