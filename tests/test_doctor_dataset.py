"""Dataset probes: picklability, objects that break in workers, memory, CUDA, storage."""

from __future__ import annotations

import sqlite3
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from _lt import (
    checks,
    doctor_here,
    run,
)

from loadertune.doctor.probes.memory import max_safe_workers
from loadertune.doctor.probes.pickling import hazard, pickle_error, unpicklable_path
from loadertune.doctor.probes.storage import (
    ReadResult,
    classify,
    mount_of,
    parse_mountinfo,
    refine,
)

BAD = textwrap.dedent("""\
    import sqlite3, threading
    import torch
    from torch.utils.data import Dataset

    class Bad(Dataset):
        def __init__(self):
            self.meta = {"db": sqlite3.connect(":memory:")}
            self.lock = threading.Lock()
            self.transform = lambda x: x
            self.fh = open(__file__)
        def __len__(self): return 4
        def __getitem__(self, i): return torch.ones(2)

    class Objects(Dataset):
        def __init__(self):
            self.rows = [{"id": i, "label": str(i)} for i in range(20000)]
        def __len__(self): return len(self.rows)
        def __getitem__(self, i): return torch.tensor([self.rows[i]["id"]])

    class Files(Dataset):
        def __init__(self, root):
            self.root = root
        def __len__(self): return 4
        def __getitem__(self, i): return torch.ones(1)
    """)


@pytest.fixture()
def module(tmp_path: Path) -> Path:
    path = tmp_path / "dsmod.py"
    path.write_text(BAD)
    return path


class Holder:
    def __init__(self) -> None:
        self.inner = {"ok": 1, "conn": sqlite3.connect(":memory:")}


def test_unpicklable_path_names_the_attribute() -> None:
    holder = Holder()
    assert pickle_error(holder) is not None
    path, kind, message = unpicklable_path(holder)
    assert path == "dataset.inner['conn']" and kind == "sqlite3.Connection"
    assert "pickle" in message
    assert hazard(holder.inner["conn"])[0] == "pickling.connection"
    assert hazard(threading.Lock())[0] == "pickling.lock"
    assert hazard(lambda x: x)[0] == "pickling.lambda"
    assert hazard(42) is None


def test_doctor_on_an_unpicklable_dataset(module: Path) -> None:
    report = doctor_here(f"{module}:Bad", ["pickling"])
    [unpicklable] = checks(report, "pickling.unpicklable")
    assert unpicklable["data"]["path"].startswith("dataset.")
    found = {f["check"]: f["data"]["path"] for f in report["findings"]
             if f["check"] in ("pickling.connection", "pickling.lock", "pickling.lambda",
                               "pickling.open_file")}
    assert found == {"pickling.connection": "dataset.meta['db']", "pickling.lock":
                     "dataset.lock", "pickling.lambda": "dataset.transform",
                     "pickling.open_file": "dataset.fh"}


def test_unpicklable_dataset_really_fails_under_spawn(module: Path) -> None:
    script = module.parent / "use_spawn.py"
    script.write_text("from dsmod import Bad\nfrom torch.utils.data import DataLoader\n"
                      "if __name__ == '__main__':\n"
                      "    for b in DataLoader(Bad(), num_workers=1, "
                      "multiprocessing_context='spawn'):\n        pass\n")
    result = run([sys.executable, str(script)], cwd=str(module.parent))
    assert result.returncode != 0 and "pickle" in result.stderr


def test_memory_measures_a_worker_and_flags_python_objects(module: Path) -> None:
    report = doctor_here(f"{module}:Objects", ["memory"], batch_size=8)
    [cow] = checks(report, "memory.copy_on_read")
    assert cow["data"] == {"path": "dataset.rows", "length": 20000}
    assert "numpy" in cow["fix"] and "Arrow" in cow["fix"]
    [cap] = checks(report, "memory.max_workers")
    assert cap["data"]["per_worker"] > 0 and cap["data"]["max_safe_workers"] >= 1


def test_max_safe_workers() -> None:
    gib = 2**30
    assert max_safe_workers(10 * gib, 2 * gib, gib) == 6
    assert max_safe_workers(gib, gib, gib) == 0


def test_storage_reads_the_dataset_files(tmp_path: Path, module: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for i in range(5):
        (data / f"f{i}.bin").write_bytes(b"x" * 200_000)
    (tmp_path / "filesds.py").write_text(
        f"from dsmod import Files\ndef make():\n    return Files({str(data)!r})\n")
    report = doctor_here(f"{tmp_path / 'filesds.py'}:make", ["storage"])
    [finding] = [f for f in report["findings"] if f["probe"] == "storage"]
    assert finding["data"]["files"] == 5 and finding["data"]["bytes"] == 1_000_000
    assert finding["data"]["mb_s"] > 0


def test_storage_classification_on_captured_mountinfo() -> None:
    text = ("29 1 259:1 / / rw,relatime - ext4 /dev/nvme0n1p1 rw\n"
            "40 29 0:45 / /mnt/data rw,relatime - nfs4 fs1:/export/data rw,vers=4.2\n"
            "41 29 0:46 / /mnt/s3 rw - fuse.s3fs s3fs rw\n")
    mounts = parse_mountinfo(text)
    assert classify(mount_of("/mnt/data/train/a.jpg", mounts), None) == "network"
    assert classify(mount_of("/mnt/s3/x", mounts), None) == "network"
    root = mount_of("/home/u/a.jpg", mounts)
    assert classify(root, "0\n") == "ssd" and classify(root, "1\n") == "hdd"
    assert refine("hdd", ReadResult(files=10, nbytes=10**6, seconds=1.0)) == "hdd"
    assert refine("hdd", ReadResult(files=5000, nbytes=10**8, seconds=1.0)).startswith("disk")


def test_cuda_script_checks(tmp_path: Path) -> None:
    script = tmp_path / "gpu.py"
    script.write_text(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, Dataset
        class D(Dataset):
            def __len__(self): return 4
            def __getitem__(self, i):
                return torch.ones(2).to("cuda")
        def main():
            for b in DataLoader(D(), num_workers=2, pin_memory=True):
                pass
        if __name__ == "__main__":
            main()
        """))
    from loadertune.machine import collect

    here = collect()
    report = doctor_here(str(script), ["cuda"])
    pins = checks(report, "cuda.pin_without_accelerator")
    if here.accelerator is None:
        [pin] = pins
        assert pin["where"] == f"{script}:8" and pin["severity"] == "warn"
    else:  # pin_memory=True is right on a GPU host
        assert not pins
    workers = checks(report, "cuda.in_worker")
    if here.start_method == "fork":  # the workers of a forked loader cannot use CUDA
        [worker] = workers
        assert worker["where"] == f"{script}:6" and worker["severity"] == "error"
        assert report["worst"] == "error"
    else:
        assert not workers


def test_pickling_check_leaves_tensors_where_they_are(tmp_path: Path) -> None:
    from loadertune.doctor import DoctorContext, parse_target, run_doctor

    (tmp_path / "tensords.py").write_text(
        "import torch\ndef make():\n"
        "    return torch.utils.data.TensorDataset(torch.zeros(1000, 8))\n")
    ctx = DoctorContext(target=parse_target(f"{tmp_path / 'tensords.py'}:make"))
    report = run_doctor(ctx, ["pickling"])
    assert report.by_check("pickling.picklable")
    assert not ctx.dataset().dataset.tensors[0].is_shared()
