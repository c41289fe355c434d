"""torch.utils.data's own refusals, raised for real by the installed torch: each traceback (or
warning) as a user would paste it is explained by its cause, not as an error in a worker.
Also what the model or loss says of the batches a dataset delivers (dtype, layout, labels),
and data-file libraries refusing inside a real worker."""

from __future__ import annotations

import copy
import functools
import json
import pickle
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from _lt import warnings_text
from PIL import Image
from torch.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    Subset,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)
from torch.utils.data.datapipes.iter import IterableWrapper
from torch.utils.data.distributed import DistributedSampler

from loadertune.explain import explain_text


class Files(Dataset):
    """A dataset of the files it was given (none when the glob found nothing)."""

    def __init__(self, files: list[str]) -> None:
        self.files = files

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.zeros(2)


class MisspeltGetitem(Dataset):
    def __len__(self) -> int:
        return 4

    def __get_item__(self, index: int) -> int:  # the typo users make
        return index


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(4))


class Images(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> Image.Image:
        return Image.new("RGB", (4, 4))


class OptionalMask(Dataset):
    """Samples whose "mask" field only the even ones carry."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        sample = {"x": torch.zeros(2)}
        if index % 2 == 0:
            sample["mask"] = torch.ones(2)
        return sample


class Doubled(Subset):
    def __getitem__(self, index: int) -> torch.Tensor:
        return super().__getitem__(index) * 2


class ObjectArrays(Dataset):
    """Ragged arrays saved as an object array, loaded with numpy's default allow_pickle."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "ragged.npy"
        np.save(self.path, np.array([[1], [1, 2]], dtype=object), allow_pickle=True)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> np.ndarray:
        return np.load(self.path)[index]


class LargeScans(Dataset):
    """Images over the pixel limit Pillow is given in each worker."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "scan.png"
        Image.new("L", (400, 400)).save(self.path)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> torch.Tensor:
        Image.MAX_IMAGE_PIXELS = 1000  # a 160,000-pixel scan is then a "bomb"
        return torch.as_tensor(np.asarray(Image.open(self.path)))


class FolderWithAppleDouble(Dataset):
    """A folder of PNGs as copied from a Mac: a '._' metadata file beside each image."""

    def __init__(self, folder: Path) -> None:
        Image.new("L", (4, 4)).save(folder / "a.png")
        (folder / "._a.png").write_bytes(b"\x00\x05\x16\x07Mac OS X        ")
        self.paths = sorted(folder.glob("*.png"))  # "._a.png" first, as ls lists it

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.as_tensor(np.asarray(Image.open(self.paths[index])))


def reassign_batch_size() -> None:
    loader = DataLoader(Files(["a", "b"]), batch_size=1)
    loader.batch_size = 2


def pickle_worker_iterator() -> None:
    it = iter(DataLoader(Files(["a", "b"]), num_workers=1))
    try:
        pickle.dumps(it)
    finally:
        del it


CASES: dict[str, tuple[Callable[[], object], str]] = {
    "shuffle over an empty dataset": (
        lambda: DataLoader(Files([]), batch_size=4, shuffle=True), "empty_dataset"),
    "ConcatDataset of no dataset": (lambda: ConcatDataset([]), "empty_dataset"),
    "random_split lengths for another dataset": (
        lambda: random_split(range(10), [3, 3]), "random_split_lengths"),
    "random_split fractions over 1": (
        lambda: random_split(range(10), [0.5, 1.5]), "random_split_lengths"),
    "TensorDataset of different lengths": (
        lambda: TensorDataset(torch.zeros(3), torch.zeros(4)), "invalid_dataset_args"),
    "ConcatDataset of a stream": (lambda: ConcatDataset([Stream()]), "invalid_dataset_args"),
    "ChainDataset of a map-style dataset": (
        lambda: list(ChainDataset([Files(["a"])])), "invalid_dataset_args"),
    "a misspelt __getitem__, in a worker": (
        lambda: next(iter(DataLoader(MisspeltGetitem(), num_workers=1))),
        "dataset_missing_getitem"),
    "batch_size=0": (lambda: DataLoader(Files(["a"]), batch_size=0), "invalid_sampler_args"),
    "replacement not a bool": (
        lambda: RandomSampler(Files(["a"]), replacement=1), "invalid_sampler_args"),
    "2-D sampling weights": (
        lambda: WeightedRandomSampler(torch.ones(2, 3), 5), "invalid_sampler_args"),
    "drop_last not a bool": (
        lambda: BatchSampler(range(4), 2, drop_last="no"), "invalid_sampler_args"),
    "a rank beyond num_replicas": (
        lambda: DistributedSampler(Files(["a"]), num_replicas=2, rank=5),
        "invalid_sampler_args"),
    "DistributedSampler without a process group": (
        lambda: DistributedSampler(Files(["a", "b"])), "distributed_not_initialized"),
    "a worker iterator pickled": (pickle_worker_iterator, "loader_iterator_pickled"),
    "a loader iterator deep-copied": (
        lambda: copy.deepcopy(iter(DataLoader(Files(["a"])))), "loader_iterator_pickled"),
    "a Subset subclass with only __getitem__": (
        lambda: Doubled(Files(["a", "b"]), [0]), "subset_getitems_bypass"),
    "batch_size reassigned": (reassign_batch_size, "invalid_loader_args"),
    "a negative prefetch_factor": (
        lambda: DataLoader(Files(["a"]), num_workers=1, prefetch_factor=-1),
        "invalid_loader_args"),
    "the loader indexed": (lambda: DataLoader(Files(["a"]))[0], "loader_not_indexable"),
    "next() on the loader": (lambda: next(DataLoader(Files(["a"]))), "iterator_next_removed"),
    "len() of a stream's loader": (lambda: len(DataLoader(Stream())), "iterable_dataset_no_len"),
    "len() of a DataPipe": (
        lambda: len(IterableWrapper(iter(range(3))).map(str)), "iterable_dataset_no_len"),
    "samples with different keys": (
        lambda: next(iter(DataLoader(OptionalMask(), batch_size=2))), "collate_keys_mismatch"),
    "PIL images to default_collate": (
        lambda: next(iter(DataLoader(Images(), batch_size=2))), "collate_unsupported_type"),
}


# what the model or the loss says of the batches a dataset delivers, each raised by the
# installed torch in one child process: running these ops here would start torch's OpenMP
# pool in the test process, and a trial forked from it later whose workers raise their
# thread count (tests/test_thread_advice.py) would hang in that pool
BATCH_CASES: dict[str, tuple[str, str]] = {
    "float64 images into a convolution": (
        "torch.nn.Conv2d(3, 4, 3)(torch.from_numpy(np.ones((2, 3, 8, 8))))",
        "batch_dtype_mismatch"),
    "float64 features into a linear layer": (
        "torch.nn.Linear(8, 2)(torch.from_numpy(np.ones((2, 8))))", "batch_dtype_mismatch"),
    "int32 labels into cross-entropy": (
        "torch.nn.functional.cross_entropy(torch.zeros(2, 3), "
        "torch.from_numpy(np.array([0, 1], dtype=np.int32)))", "batch_dtype_mismatch"),
    "a label beyond the classes": (
        "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 5]))",
        "label_out_of_range"),
    "height x width x channels images": (
        "torch.nn.Conv2d(3, 4, 3)(torch.zeros(2, 32, 32, 3))", "batch_channels_last"),
    "class indices where BCE wants one column per class": (
        "torch.nn.functional.binary_cross_entropy_with_logits(torch.zeros(4, 10), "
        "torch.zeros(4, 1))", "label_format_mismatch"),
}
RAISE_EACH = """
import json, sys, traceback
import numpy as np, torch
out = {}
for name, expression in json.load(sys.stdin).items():
    try:
        eval(expression)
    except Exception:
        out[name] = traceback.format_exc()
print(json.dumps(out))
"""


@functools.cache
def batch_tracebacks() -> dict[str, str]:
    """The traceback of every batch case, raised in a child process."""
    done = subprocess.run([sys.executable, "-c", RAISE_EACH], capture_output=True, text=True,
                          input=json.dumps({k: v[0] for k, v in BATCH_CASES.items()}),
                          timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", BATCH_CASES)
def test_a_batch_the_model_refuses_is_explained_by_what_the_dataset_delivers(name: str) -> None:
    text = batch_tracebacks().get(name)
    assert text, f"torch accepted {BATCH_CASES[name][0]}: nothing to explain"
    assert explain_text(text).ids()[0] == BATCH_CASES[name][1]


@pytest.mark.parametrize(("dataset", "cause"), [(ObjectArrays, "numpy_allow_pickle"),
                                                 (LargeScans, "image_pixel_limit"),
                                                 (FolderWithAppleDouble, "macos_metadata_files")])
def test_a_data_file_library_refusing_in_a_worker_is_named(
        dataset: type[Dataset], cause: str, tmp_path: Path) -> None:
    """The library's own error, raised in a real worker and re-raised by the loader."""
    text = traceback_of(lambda: next(iter(DataLoader(dataset(tmp_path), num_workers=1))))
    assert "in DataLoader worker process 0" in text
    assert explain_text(text).ids()[0] == cause


def traceback_of(trigger: Callable[[], object]) -> str:
    try:
        trigger()
    except Exception:
        return traceback.format_exc()
    pytest.fail("torch accepted it: nothing to explain")


@pytest.mark.parametrize("name", CASES)
def test_torch_refusal_is_explained_by_its_cause(name: str) -> None:
    trigger, cause = CASES[name]
    explanation = explain_text(traceback_of(trigger))
    assert explanation.ids()[0] == cause, explanation.ids()


def test_a_split_that_floors_a_part_to_nothing_is_told_from_its_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = random_split(range(4), [0.7, 0.1, 0.2])
    assert [len(p) for p in parts][-1] == 0
    text = warnings_text(caught)
    assert explain_text(text).ids()[0] == "random_split_lengths"


def test_a_dataset_with_items_is_not_called_empty() -> None:
    # the same loader over a non-empty folder fails later, for another reason
    text = traceback_of(lambda: next(iter(DataLoader(Images(), batch_size=2, shuffle=True))))
    assert "empty_dataset" not in explain_text(text).ids()
