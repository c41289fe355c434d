"""/dev/shm, ulimit -n and threads, each checked by really creating the condition."""

from __future__ import annotations

import os
import resource
import shutil
import sys
from pathlib import Path

import pytest
from _lt import (
    checks,
    doctor_here,
    doctor_json,
    env,
    run,
)

from loadertune.doctor.probes.fds import fds_needed
from loadertune.doctor.probes.shm import parse_sysctl_int, shm_need
from loadertune.doctor.probes.threads import env_threads, oversubscription

BIG_ITEMS = """\
import torch
from torch.utils.data import Dataset

class Big(Dataset):
    def __len__(self): return 16
    def __getitem__(self, i): return {"x": torch.ones(64 * 1024), "y": torch.zeros(1)}
"""


@pytest.fixture()
def big_spec(tmp_path: Path) -> str:
    (tmp_path / "bigds.py").write_text(BIG_ITEMS)
    return f"{tmp_path / 'bigds.py'}:Big"


def _in_tiny_shm(args: list[str]) -> tuple[int, dict]:
    import json

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to mount a private 1 MB /dev/shm")
    cmd = " ".join([sys.executable, "-m", "loadertune", "doctor", *args, "--json"])
    result = run(["unshare", "-m", "sh", "-c",
                  f"mount -t tmpfs -o size=1m tmpfs /dev/shm && exec {cmd}"])
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def test_tiny_dev_shm_warns_without_a_dataset() -> None:
    _, report = _in_tiny_shm(["--probe", "shm"])
    [finding] = checks(report, "shm.too_small")
    assert finding["severity"] == "warn"
    assert finding["data"]["shm_total"] <= 2 * 2**20
    assert "--shm-size" in finding["fix"] and "--ipc=host" in finding["fix"]


def test_tiny_dev_shm_is_an_error_for_big_batches(big_spec: str) -> None:
    rc, report = _in_tiny_shm([big_spec, "--probe", "shm", "-b", "8", "-w", "2"])
    [finding] = checks(report, "shm.too_small")
    assert rc == 1 and finding["severity"] == "error"
    assert finding["data"]["need"] == (64 * 1024 * 4 + 4) * 8 * 2 * 2


def test_dev_shm_here_is_judged_by_its_size() -> None:
    from loadertune.doctor.probes.shm import DOCKER_DEFAULT, SMALL
    from loadertune.machine import shm_usage

    total, free = shm_usage()
    if total is None or free is None:
        pytest.skip("no /dev/shm on this machine")
    report = doctor_here(None, ["shm"])
    # without a dataset nothing is in flight: only the size decides
    small = total <= DOCKER_DEFAULT * 1.05 or free < SMALL
    [finding] = checks(report, "shm.too_small" if small else "shm.size")
    assert finding["severity"] == ("warn" if small else "ok")
    assert finding["data"]["shm_total"] == total
    assert checks(report, "shm.sysv")


def test_low_ulimit_n_is_an_error(big_spec: str) -> None:
    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))

    import json
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "loadertune", "doctor", big_spec, "--probe",
                           "fds", "-w", "8", "--prefetch-factor", "4", "--json"],
                          preexec_fn=low, capture_output=True, text=True, env=env(), timeout=90)
    report = json.loads(proc.stdout)
    [finding] = checks(report, "fds.limit")
    assert finding["data"]["soft"] == 100
    assert finding["data"]["need"] == fds_needed(2, 8, 4) > 100
    assert finding["severity"] == "error" and proc.returncode == 1
    assert "file_system" in finding["fix"] and "ulimit -n" in finding["fix"]


def test_file_system_strategy_needs_no_descriptors() -> None:
    import torch.multiprocessing as tmp

    before = tmp.get_sharing_strategy()
    tmp.set_sharing_strategy("file_system")
    try:
        report = doctor_here(None, ["fds"])
    finally:
        tmp.set_sharing_strategy(before)
    [finding] = checks(report, "fds.limit")
    assert finding["severity"] == "ok" and finding["data"]["strategy"] == "file_system"


def test_omp_threads_oversubscribe(monkeypatch: pytest.MonkeyPatch) -> None:
    from loadertune.machine import collect, usable_cpus_int

    workers = usable_cpus_int(collect())  # one per core: 8 threads each oversubscribe any host
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    report = doctor_here(None, ["threads"], num_workers=workers)
    [finding] = checks(report, "threads.oversubscribed")
    assert finding["data"]["per_worker"] == 8 and finding["data"]["workers"] == workers
    assert "torch.set_num_threads(1)" in finding["fix"] and "worker_init_fn" in finding["fix"]


def test_one_thread_per_worker_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # torch's default follows the CPUs it sees, not a CPU quota
    try:
        report = doctor_here(None, ["threads"], num_workers=1)
    finally:
        torch.set_num_threads(before)
    [finding] = checks(report, "threads.ok")
    assert finding["data"]["per_core"] <= 2


def test_pure_helpers() -> None:
    assert parse_sysctl_int("18446744073692774399\n") == 18446744073692774399
    assert parse_sysctl_int("garbage") is None
    assert shm_need(1000, 32, 2, 4) == 256_000
    assert env_threads({"OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "x"}) == {"OMP_NUM_THREADS": 4}
    assert oversubscription(4, 2, 2, 2) == 5.0


def test_threads_started_by_the_dataset_import_are_flagged(tmp_path: Path) -> None:
    """Also: what the module prints goes to stderr, so --json stays parseable."""
    (tmp_path / "threadedds.py").write_text(
        "import threading, time, torch\nprint('loading data...')\n"
        "threading.Thread(target=time.sleep, args=(30,), name='prefetcher', daemon=True).start()\n"
        "def make():\n    return torch.utils.data.TensorDataset(torch.zeros(4, 2))\n")
    _, report = doctor_json(f"{tmp_path / 'threadedds.py'}:make", "--probe", "threads",
                            "--probe", "pickling")
    [finding] = checks(report, "threads.before_fork")
    assert finding["data"]["threads"] == ["prefetcher"] and finding["severity"] == "warn"
    assert checks(report, "pickling.picklable")
