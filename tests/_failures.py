"""Scripts that really cause DataLoader failures; their stderr feeds `explain` in the tests."""

from __future__ import annotations

HEAD = """\
import os, signal, sys, time, threading, faulthandler
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

class Sig(Dataset):
    def __init__(self, action): self.action = action
    def __len__(self): return 8
    def __getitem__(self, i):
        self.action()
        return torch.ones(2)
"""


def loop(dataset: str, **kwargs: str) -> str:
    args = "".join(f", {k}={v}" for k, v in kwargs.items())
    return (f'if __name__ == "__main__":\n'
            f"    for batch in DataLoader({dataset}{args}):\n        pass\n")


def kill_self(sig: str) -> str:
    return f"def act(): os.kill(os.getpid(), signal.{sig})\n" + loop("Sig(act)", num_workers="1")


SCENARIOS: dict[str, tuple[str, str]] = {
    # name: (script body after HEAD, expected primary cause id)
    "sigkill": (kill_self("SIGKILL"), "worker_oom_killed"),
    "segfault": (kill_self("SIGSEGV"), "worker_segfault"),
    "sigbus": (kill_self("SIGBUS"), "bus_error_shm"),
    "sigabrt": (kill_self("SIGABRT"), "worker_killed_signal"),
    "exit": ("def act(): os._exit(7)\n" + loop("Sig(act)", num_workers="1"), "worker_exited"),
    "raises": ("def act(): raise ValueError('bad record 3')\n"
               + loop("Sig(act)", num_workers="1"), "worker_exception"),
    "timeout": ("def act(): time.sleep(5)\n" + loop("Sig(act)", num_workers="1", timeout="1"),
                "timeout"),
    "lambda_spawn": ("def act(): pass\n" + loop("Sig(act)", num_workers="1",
                                                collate_fn="lambda b: b",
                                                multiprocessing_context="'spawn'"),
                     "pickle_local_object"),
    "open_file_spawn": ("class F(Sig):\n    fh = None\n"
                        "def act(): pass\nds = F(act)\nds.fh = open(__file__)\n"
                        + loop("ds", num_workers="1", multiprocessing_context="'spawn'"),
                        "unpicklable_object"),
    "iterable_dup": ("class It(IterableDataset):\n"
                     "    def __iter__(self): return iter(range(4))\n"
                     "    def __len__(self): return 4\n"
                     'import warnings\nwarnings.simplefilter("always")\n'
                     'if __name__ == "__main__":\n'
                     "    dl = DataLoader(It(), num_workers=2, batch_size=None)\n"
                     "    print('len', len(dl))\n"
                     "    for b in dl:\n        pass\n",
                     "iterable_duplicates"),
    "pin_no_accelerator": ("def act(): pass\n" + loop("Sig(act)", pin_memory="True"),
                           "pin_memory_no_accelerator"),
    "too_many_workers": ("def act(): pass\nimport warnings\nwarnings.simplefilter('always')\n"
                         + loop("Sig(act)", num_workers=f"{64}"), "too_many_workers"),
    "hang": ("lock = threading.Lock()\n"
             "def act():\n    with lock: pass\n"
             "def hold():\n    with lock: time.sleep(60)\n"
             'if __name__ == "__main__":\n'
             "    threading.Thread(target=hold, daemon=True).start()\n"
             "    time.sleep(0.2)\n"
             "    faulthandler.dump_traceback_later(4, exit=True)\n"
             "    for batch in DataLoader(Sig(act), num_workers=1):\n        pass\n",
             "worker_hang"),
    "fd_limit": ("import resource\n"
                 "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))\n"
                 "class Many(Dataset):\n    def __len__(self): return 16\n"
                 "    def __getitem__(self, i): return [torch.ones(4) for _ in range(40)]\n"
                 'if __name__ == "__main__":\n    kept = []\n'
                 "    for b in DataLoader(Many(), batch_size=None, num_workers=2, timeout=5):\n"
                 "        kept.append(b)\n", "too_many_open_files"),
}

NO_GUARD = HEAD + ("def act(): pass\n"
                   "for batch in DataLoader(Sig(act), num_workers=1, "
                   "multiprocessing_context='spawn'):\n    pass\n")

SHM = HEAD + ("class Big(Dataset):\n    def __len__(self): return 8\n"
              "    def __getitem__(self, i): return torch.ones(1024 * 1024)\n"
              + loop("Big()", batch_size="2", num_workers="1"))
