"""The bundled workloads: small instances, well-formed items, 0 and 2 workers, sharding."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from loadertune import workloads
from loadertune.pipeline import load_dataset
from loadertune.workloads.jpeg import generate

HAS_FORK = "fork" in multiprocessing.get_all_start_methods()
HAS_SMAPS = Path(f"/proc/{os.getpid()}/smaps_rollup").exists()


def small(name: str, tmp_path: Path) -> Dataset:
    """Each workload at a size that loads in milliseconds."""
    factories: dict[str, Any] = {
        "jpeg": lambda: workloads.jpeg(6, width=64, height=48, crop=32, folder=tmp_path / "jpg"),
        "remote": lambda: workloads.remote(10, latency_ms=1.0, payload_kb=1),
        "tiny": lambda: workloads.tiny(37),
        "bigtensor": lambda: workloads.bigtensor(6, megabytes=0.01),
        "pylist": lambda: workloads.pylist(29),
        "pylist_numpy": lambda: workloads.pylist_numpy(29),
        "iterable": lambda: workloads.iterable(31, features=4),
        "mixed": lambda: workloads.mixed(23, cpu_ms=0.05, wait_ms=0.5),
        "worker_cache": lambda: workloads.worker_cache(19, cache_mb=1, wait_ms=0.1),
        "tokenize": lambda: workloads.tokenize(17, words=40, length=32),
    }
    return factories[name]()


def check_item(name: str, item: Any) -> None:
    if name == "bigtensor":
        assert isinstance(item, torch.Tensor) and item.dtype == torch.float32
        assert item.dim() == 1 and item.numel() == int(0.01 * 2**20) // 4
        return
    data, label = item
    if name == "tokenize":
        assert data.dtype == torch.int64 and data.shape == (32,) and int(data.min()) >= 0
        return
    assert isinstance(data, torch.Tensor) and data.dtype == torch.float32
    assert isinstance(label, int)
    assert torch.isfinite(data).all()
    if name == "jpeg":
        assert data.shape == (3, 32, 32)
        assert 0 <= label < 10


def test_every_name_is_listed_and_loadable_as_a_spec() -> None:
    assert set(workloads.NAMES) == {"jpeg", "remote", "tiny", "bigtensor", "pylist",
                                    "pylist_numpy", "iterable", "mixed", "worker_cache",
                                    "tokenize"}
    loaded = load_dataset("loadertune.workloads:tiny")
    assert len(loaded.dataset) == 100_000


@pytest.mark.parametrize("name", [n for n in workloads.NAMES if n != "iterable"])
def test_map_style_items_are_well_formed(name: str, tmp_path: Path) -> None:
    dataset = small(name, tmp_path)
    assert len(dataset) > 0
    for index in (0, len(dataset) - 1):
        check_item(name, dataset[index])


def test_iterable_items_are_well_formed(tmp_path: Path) -> None:
    items = list(small("iterable", tmp_path))
    assert len(items) == 31
    for item in items:
        check_item("iterable", item)


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("name", workloads.NAMES)
def test_loads_through_a_dataloader(name: str, workers: int, tmp_path: Path) -> None:
    dataset = small(name, tmp_path)
    loader = DataLoader(dataset, batch_size=4, num_workers=workers)
    seen = 0
    for batch in loader:
        first = batch if isinstance(batch, torch.Tensor) else batch[0]
        assert first.dtype == (torch.int64 if name == "tokenize" else torch.float32)
        seen += int(first.shape[0])
    assert seen == len(dataset)  # type: ignore[arg-type]


@pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")  # > cores
@pytest.mark.parametrize("workers", [0, 1, 2, 3, 4])
def test_iterable_shards_without_duplicates_or_losses(workers: int) -> None:
    size = 103  # not a multiple of any worker count or the batch size
    loader = DataLoader(workloads.iterable(size, features=2), batch_size=4, num_workers=workers)
    indices: list[int] = []
    for data, index in loader:
        assert torch.equal(data[:, 0], index.float())  # each item carries its own index
        indices.extend(index.tolist())
    assert sorted(indices) == list(range(size))


def test_jpeg_files_are_generated_once_and_reused(tmp_path: Path) -> None:
    first = generate(tmp_path / "g", 3, 40, 30)
    stamp = [p.stat().st_mtime_ns for p in first]
    again = generate(tmp_path / "g", 3, 40, 30)
    assert again == first and [p.stat().st_mtime_ns for p in again] == stamp
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folder left
    with pytest.raises(ValueError, match="already holds 3"):
        generate(tmp_path / "g", 5, 40, 30)


def test_jpeg_augmentation_is_deterministic_per_index(tmp_path: Path) -> None:
    dataset = small("jpeg", tmp_path)
    assert torch.equal(dataset[2][0], dataset[2][0])
    assert not torch.equal(dataset[2][0], dataset[3][0])


# Run in a fresh interpreter: memory an earlier dataset freed in this process would otherwise be
# reused, and so written, by the next worker, blurring the comparison.
GROWTH_SCRIPT = """
import gc
import sys
from torch.utils.data import DataLoader
from loadertune import workloads
from loadertune.trial.sampler import process_memory

dataset = getattr(workloads, sys.argv[1])(int(sys.argv[2]))
gc.freeze()  # a full collection in the worker would copy the interpreter's own objects too
loader = DataLoader(dataset, batch_size=2000, num_workers=1, multiprocessing_context="fork")
iterator = iter(loader)
pid = iterator._workers[0].pid
uss = []
for _ in iterator:  # the worker is alive until the iterator is exhausted
    uss.append(process_memory(pid).uss)
del iterator
print(uss[-1] - uss[0])
"""


def growth_in_fresh_interpreter(name: str, size: int) -> int:
    """Bytes one forked worker's USS grows by while it reads every item of ``name``."""
    done = subprocess.run([sys.executable, "-c", GROWTH_SCRIPT, name, str(size)],
                          capture_output=True, text=True, timeout=120, check=True)
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not (HAS_FORK and HAS_SMAPS), reason="needs fork and /proc smaps_rollup")
def test_pylist_workers_grow_and_pylist_numpy_workers_do_not() -> None:
    numpy_growth = growth_in_fresh_interpreter("pylist_numpy", 200_000)
    list_growth = growth_in_fresh_interpreter("pylist", 200_000)
    mib = 2**20
    # 200k records as dicts are ~130 MiB. With the collector frozen, only reference counts
    # write to shared pages: the pylist worker copies the pages of every record it reads
    # (measured: ~100 MiB), the numpy one almost nothing (~1 MiB). Without the freeze, a full
    # collection in either worker would copy another ~35 MiB of the interpreter's objects.
    assert list_growth - numpy_growth > 40 * mib, (list_growth / mib, numpy_growth / mib)


def test_mixed_items_wait_for_a_share_of_the_indices_only() -> None:
    ds = workloads.mixed(1000, cpu_ms=0.01, wait_ms=1.0, wait_share=0.3)
    from loadertune.workloads.mixed import _mix

    waiting = sum((_mix(i) % 1000) < 300 for i in range(len(ds)))
    assert 250 < waiting < 350  # about the share asked for, fixed per index
    assert torch.equal(ds[5][0], ds[5][0])


def test_worker_cache_is_private_to_each_process_and_never_pickled() -> None:
    import pickle

    ds = workloads.worker_cache(10, cache_mb=2, wait_ms=0.0)
    ds[0]
    assert ds._cache is not None and ds._cache.nbytes == 2 * 2**20
    copy = pickle.loads(pickle.dumps(ds))
    assert copy._cache is None  # a worker under spawn builds its own
    ds._owner = -1              # as seen from a forked worker: another pid
    assert ds.cache() is not None and ds._owner == os.getpid()


def test_tokenize_is_deterministic_and_uses_the_vocabulary() -> None:
    ds = workloads.tokenize(5, words=50, length=64)
    first, again = ds[3][0], ds[3][0]
    assert torch.equal(first, again)
    assert int((first > 1).sum()) > 32  # known subwords, not the unknown id
