"""Scripts that really cause DataLoader failures; their output feeds `explain` in the tests.

Most failures run one after another in one process (`COMBINED`), each writing the traceback
or warnings it produced to ``OUT/<name>.out`` exactly as Python prints them; the hang, the
open-file limit and the missing main guard need a process of their own.
"""

from __future__ import annotations

HEAD = """\
import os, signal, sys, time, threading, faulthandler, traceback, warnings, resource
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

class Sig(Dataset):
    def __init__(self, action): self.action = action
    def __len__(self): return 8
    def __getitem__(self, i):
        self.action()
        return torch.ones(2)

class It(IterableDataset):
    def __iter__(self): return iter(range(4))
    def __len__(self): return 4

def kill_self(sig): os.kill(os.getpid(), sig)
def sigkill(): kill_self(signal.SIGKILL)
def sigsegv(): kill_self(signal.SIGSEGV)
def sigbus(): kill_self(signal.SIGBUS)
def sigabrt(): kill_self(signal.SIGABRT)
def exit7(): os._exit(7)
def bad_record(): raise ValueError("bad record 3")
def slow(): time.sleep(2)
def nothing(): pass

def drain(loader):
    for batch in loader:
        pass
"""

# name: (the statement that fails, expected cause id)
COMBINED: dict[str, tuple[str, str]] = {
    "sigkill": ("drain(DataLoader(Sig(sigkill), num_workers=1))", "worker_oom_killed"),
    "segfault": ("drain(DataLoader(Sig(sigsegv), num_workers=1))", "worker_segfault"),
    "sigbus": ("drain(DataLoader(Sig(sigbus), num_workers=1))", "bus_error_shm"),
    "sigabrt": ("drain(DataLoader(Sig(sigabrt), num_workers=1))", "worker_killed_signal"),
    "exit": ("drain(DataLoader(Sig(exit7), num_workers=1))", "worker_exited"),
    "raises": ("drain(DataLoader(Sig(bad_record), num_workers=1))", "worker_exception"),
    "timeout": ("drain(DataLoader(Sig(slow), num_workers=1, timeout=1))", "timeout"),
    "lambda_spawn": ("drain(DataLoader(Sig(nothing), num_workers=1, collate_fn=lambda b: b, "
                     "multiprocessing_context='spawn'))", "pickle_local_object"),
    "open_file_spawn": ("ds = Sig(nothing); ds.fh = open(__file__); "
                        "drain(DataLoader(ds, num_workers=1, multiprocessing_context='spawn'))",
                        "unpicklable_object"),
    "iterable_dup": ("dl = DataLoader(It(), num_workers=2, batch_size=None); len(dl); drain(dl)",
                     "iterable_duplicates"),
    "pin_no_accelerator": ("drain(DataLoader(Sig(nothing), pin_memory=True))",
                           "pin_memory_no_accelerator"),
    # torch warns when the loader is built (no worker starts) with more workers than CPUs
    "too_many_workers": ("DataLoader(Sig(nothing), num_workers=4 * (os.cpu_count() or 1) + 1)",
                         "too_many_workers"),
}

RUN_COMBINED = """
def run_one(name, statement, out):
    with open(os.path.join(out, name + ".out"), "w") as fh, \\
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(statement, globals())
        except Exception:
            fh.write(traceback.format_exc())
        for w in caught:
            fh.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))

if __name__ == "__main__":
    for name, statement in SCENARIOS.items():
        run_one(name, statement, sys.argv[1])
"""


def combined_script() -> str:
    table = {name: statement for name, (statement, _) in COMBINED.items()}
    return HEAD + f"SCENARIOS = {table!r}\n" + RUN_COMBINED


# Scripts that need their own process: name -> (script, expected cause id).
OWN_PROCESS: dict[str, tuple[str, str]] = {
    "hang": (HEAD + """
lock = threading.Lock()
held = threading.Event()
def wait_for_lock():
    with lock:
        pass
def hold():
    with lock:
        held.set()
        time.sleep(60)
if __name__ == "__main__":
    threading.Thread(target=hold, daemon=True).start()
    held.wait()  # the worker forks while this thread holds the lock
    faulthandler.dump_traceback_later(3, exit=True)
    drain(DataLoader(Sig(wait_for_lock), num_workers=1))
""", "worker_hang"),
    "fd_limit": (HEAD + """
class Many(Dataset):
    def __len__(self): return 16
    def __getitem__(self, i): return [torch.ones(4) for _ in range(40)]
if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    kept = []
    for b in DataLoader(Many(), batch_size=None, num_workers=2, timeout=4):
        kept.append(b)
""", "too_many_open_files"),
    "no_guard": (HEAD + """
drain(DataLoader(Sig(nothing), num_workers=1, multiprocessing_context='spawn'))
""", "spawn_bootstrap"),
}

EXPECTED = {name: cause for name, (_, cause) in {**COMBINED, **OWN_PROCESS}.items()}

SHM = HEAD + """
class Big(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.ones(1024 * 1024)
if __name__ == "__main__":
    drain(DataLoader(Big(), batch_size=2, num_workers=1))
"""
