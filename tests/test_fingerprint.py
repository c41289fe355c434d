"""The history's dataset fingerprint covers the dataset's code: its class, module and transforms."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from _lt import env

DATASET = '''\
import torch
from torch.utils.data import Dataset
from augment import jitter


class Squares(Dataset):
    def __init__(self):
        self.transform = jitter

    def __len__(self):
        return 64

    def __getitem__(self, i):
        return self.transform(torch.full((8,), float(i * i)))


def make():
    return Squares()
'''
AUGMENT = "def jitter(x):\n    return x + 1\n"


def fingerprint(folder: Path) -> str:
    """The dataset fingerprint's digest, computed in a fresh interpreter as `tune` would."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(folder)!r})
        from loadertune.pipeline import load_dataset
        from loadertune.tuning.fingerprint import dataset_fingerprint, digest
        loaded = load_dataset({str(folder / 'ds.py')!r} + ":make")
        print(digest(dataset_fingerprint(loaded, loaded.dataset[0])))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env(), timeout=120, cwd=folder)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_dataset_code_changes_the_fingerprint(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "ds.py").write_text(DATASET)
    (folder / "augment.py").write_text(AUGMENT)
    first = fingerprint(folder)
    assert fingerprint(folder) == first  # same code, same fingerprint
    (folder / "ds.py").write_text(DATASET.replace("float(i * i)", "float(i * i * i)"))
    edited = fingerprint(folder)
    assert edited != first  # same class name, shapes and length: only __getitem__ differs
    (folder / "augment.py").write_text("def jitter(x):\n    return (x * 2).sqrt() + 1\n")
    heavier = fingerprint(folder)
    assert heavier not in (first, edited)  # the transform found on the dataset changed
    (folder / "ds.py").write_text(DATASET.replace("float(i * i)", "float(i * i * i)") +
                                  "\n# a comment elsewhere in the module\n")
    assert fingerprint(folder) != heavier  # the module's source counts too
