"""autotune: the batches are exactly the plain loader's across mid-epoch changes, failing
settings are rolled back, and nothing is left behind (real loaders, real worker processes)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Sequence

import pytest
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

import loadertune
from loadertune.autotune import AutotunedLoader, Bounds, Knobs, Window, autotune
from loadertune.autotune.policy import Verdict
from loadertune.workloads import iterable

BOUNDS = Bounds(min_workers=0, max_workers=8, memory_budget=None)


class Numbered(Dataset):
    """Item i is (i, a random draw): the draw shows which random stream served it."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:
        return index


def scripted(plan: Sequence[Knobs]) -> object:
    """A policy switching to the next setting of ``plan`` at every window, then keeping."""
    steps: Iterator[Knobs] = iter(plan)

    def policy(windows: list[Window], bounds: Bounds, rejected: frozenset[Knobs]) -> Verdict:
        nxt = next(steps, None)
        return Verdict(nxt, "grow" if nxt else "keep", "scripted")

    return policy


def batches(loader: object, epochs: int) -> list[list[int]]:
    return [[int(i) for i in batch] for _ in range(epochs) for batch in loader]  # type: ignore[attr-defined]


def plain_and_tuned(make, plan: Sequence[Knobs], epochs: int = 3, seed: int = 7):  # type: ignore[no-untyped-def]
    torch.manual_seed(seed)
    expected = batches(make(), epochs)
    after_plain = torch.rand(3)
    torch.manual_seed(seed)
    tuned = autotune(make(), store=False, report=False, policy=scripted(plan),
                     window_batches=2, window_s=0.0)
    got = batches(tuned, epochs)
    after_tuned = torch.rand(3)
    tuned.close()
    return expected, got, after_plain, after_tuned, tuned


CHANGES = [Knobs(2, 2), Knobs(1, 4), Knobs(3, 2), Knobs(0), Knobs(2, 3), Knobs(1, 2)]


@pytest.mark.parametrize("seeded", [True, False])
def test_batches_are_exactly_the_plain_loaders_across_mid_epoch_changes(seeded: bool) -> None:
    def make() -> DataLoader:
        gen = torch.Generator().manual_seed(1234) if seeded else None
        return DataLoader(Numbered(101), batch_size=4, shuffle=True, generator=gen,
                          drop_last=True)

    expected, got, after_plain, after_tuned, tuned = plain_and_tuned(make, CHANGES)
    assert got == expected
    assert torch.equal(after_plain, after_tuned)  # the global random stream advanced alike
    mid = [c for c in tuned.history if 0 < c.batch < 25]
    assert len(mid) >= 3  # changes happened inside epochs, not only between them
    assert expected[0] != expected[len(expected) // 3]  # each epoch shuffled anew


def test_a_loader_with_workers_and_persistent_workers_draws_its_seeds_alike() -> None:
    def make() -> DataLoader:
        return DataLoader(Numbered(64), batch_size=5, shuffle=True, num_workers=2,
                          persistent_workers=True, generator=torch.Generator().manual_seed(3))

    expected, got, *_ = plain_and_tuned(make, CHANGES[:3])
    assert got == expected


def test_worker_random_streams_are_seeded_as_the_plain_loaders() -> None:
    class Draws(Numbered):
        def __getitem__(self, index: int) -> tuple[int, int, int]:
            info = get_worker_info()
            return index, info.id if info else -1, int(torch.randint(0, 2**30, ()).item())

    loader = DataLoader(Draws(8), batch_size=2, num_workers=2,
                        generator=torch.Generator().manual_seed(5))
    plain = {int(i): (int(w), int(d)) for i, w, d in
             (x for b in loader for x in zip(*b, strict=True))}
    tuned = autotune(DataLoader(Draws(8), batch_size=2, num_workers=2,
                                generator=torch.Generator().manual_seed(5)),
                     store=False, report=False, policy=scripted([]))
    got = {int(i): (int(w), int(d)) for i, w, d in
           (x for b in tuned for x in zip(*b, strict=True))}
    tuned.close()
    assert got == plain  # same worker for each item, same random draw in it


class DiesWithThreeWorkers(Numbered):
    """A worker kills itself when three or more workers run (as the OOM killer would)."""

    def __getitem__(self, index: int) -> int:
        info = get_worker_info()
        if info is not None and info.num_workers >= 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return index


def test_a_setting_that_kills_workers_is_rolled_back_and_never_tried_again() -> None:
    def make() -> DataLoader:
        return DataLoader(DiesWithThreeWorkers(60), batch_size=3, shuffle=True,
                          generator=torch.Generator().manual_seed(11))

    plan = [Knobs(2, 2), Knobs(3, 2), Knobs(3, 2), Knobs(1, 2)]
    expected, got, _, _, tuned = plain_and_tuned(make, plan, epochs=2)
    assert got == expected  # the batch that failed to arrive was served by the old setting
    failed = [c for c in tuned.history if c.kind == "failed"]
    assert failed and failed[0].before == "w3 pf2" and failed[0].after == "w2 pf2"
    assert "never tried again" in failed[0].why
    assert Knobs(3, 2) in tuned.rejected


def test_a_dataset_error_is_raised_not_hidden() -> None:
    class Broken(Numbered):
        def __getitem__(self, index: int) -> int:
            if index == 7:
                raise ValueError("bad record 7")
            return index

    tuned = autotune(DataLoader(Broken(20), batch_size=2), store=False, report=False,
                     policy=scripted([Knobs(2, 2)]), window_batches=1, window_s=0.0)
    with pytest.raises(ValueError, match="bad record 7"):
        batches(tuned, 1)
    tuned.close()


def test_twenty_changes_leave_no_process_behind() -> None:
    import psutil

    plan = [Knobs(1 + i % 3, 2 + i % 2) for i in range(20)]
    loader = DataLoader(Numbered(600), batch_size=2, shuffle=True)
    tuned = autotune(loader, store=False, report=False, policy=scripted(plan),
                     window_batches=1, window_s=0.0)
    assert len(batches(tuned, 1)) == 300
    assert len(tuned.history) == 20
    workers = [p for p in psutil.Process().children(recursive=True)
               if "resource_tracker" not in " ".join(p.cmdline())]  # multiprocessing's own
    assert workers  # the current setting's workers, until closed
    tuned.close()
    _, still = psutil.wait_procs(workers, timeout=10)
    assert not still, [(p.pid, p.cmdline(), p.ppid()) for p in still]


def test_an_iterable_dataset_changes_only_between_epochs() -> None:
    def make() -> DataLoader:
        return DataLoader(iterable(53, features=1), batch_size=4)

    tuned = autotune(make(), store=False, report=False,
                     policy=scripted([Knobs(2, 2), Knobs(3, 2)]), window_batches=1,
                     window_s=0.0)
    for _ in range(3):
        seen = sorted(int(i) for _, index in tuned for i in index)
        assert seen == list(range(53))  # every epoch whole: no duplicate, no loss
    assert all(c.batch == 0 for c in tuned.history)
    assert [c.after for c in tuned.history] == ["w2 pf2", "w3 pf2"]
    tuned.close()


def test_the_wrapper_looks_like_the_loader() -> None:
    loader = DataLoader(Numbered(10), batch_size=3)
    tuned = loadertune.autotune(loader, store=False, report=False)
    assert isinstance(tuned, AutotunedLoader)
    assert len(tuned) == len(loader) == 4 and tuned.batch_size == 3
    assert tuned.config == {"num_workers": 0, "pin_memory": False}
    assert tuned.dataloader_line().startswith("DataLoader(dataset, batch_size=3, num_workers=0")
    with pytest.raises(loadertune.ConfigError, match="DataLoader"):
        loadertune.autotune([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(loadertune.ConfigError, match="memory_budget"):
        loadertune.autotune(loader, memory_budget=-1, store=False)


def test_the_final_setting_is_stored_and_the_next_run_starts_there(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "h.sqlite"
    loader = DataLoader(Numbered(40), batch_size=2)
    first = autotune(loader, store=store, report=False, policy=scripted([Knobs(2, 3)]),
                     window_batches=2, window_s=0.0)
    batches(first, 1)
    first.close()
    assert first.config["num_workers"] == 2
    again = autotune(DataLoader(Numbered(40), batch_size=2), store=store, report=False)
    assert again.knobs == Knobs(2, 3)
    explicit = autotune(DataLoader(Numbered(40), batch_size=2), store=store, report=False,
                        start={"num_workers": 1})
    assert explicit.knobs.num_workers == 1


def test_ctrl_c_in_the_loop_leaves_no_worker_behind() -> None:
    loader = DataLoader(Numbered(100), batch_size=2, num_workers=2, persistent_workers=True)
    with pytest.raises(KeyboardInterrupt), autotune(loader, store=False,
                                                    report=False) as tuned:
        for i, _ in enumerate(tuned):
            if i == 5:
                raise KeyboardInterrupt  # as Ctrl-C in the training step
    assert tuned._inner is None  # the with block shut the workers down (the fixture checks)


def test_ctrl_c_while_waiting_for_a_batch_shuts_the_workers_down() -> None:
    class Slow(Numbered):
        def __getitem__(self, index: int) -> int:
            if index >= 4:
                import time

                time.sleep(30)
            return index

    tuned = autotune(DataLoader(Slow(20), batch_size=2, num_workers=2), store=False,
                     report=False)
    it = iter(tuned)
    next(it)
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in it:
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert tuned._inner is None
