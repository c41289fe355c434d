"""Known DataLoader failure signatures: stable id, regexes over the log, cause, confirm, fix.

The texts come from PyTorch itself (torch/utils/data/dataloader.py, _utils/worker.py and
pin_memory.py, torch/cuda/__init__.py, the C++ messages of libtorch_python / libtorch_cpu)
and CPython's multiprocessing. Add an entry by appending a `Signature` to `CATALOGUE`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


def phrase(text: str) -> str:
    """A regex for ``text`` where any run of whitespace may be a line break and indent."""
    return r"\s+".join(re.escape(word) for word in text.split())


@dataclass(frozen=True)
class Signature:
    """One known failure.

    Matches when any of ``patterns`` matches and (when given) any of ``requires`` too.
    ``priority`` orders several matches: the most specific cause comes first. ``probes``
    names the doctor probes whose live results help confirm it on this machine.
    """

    id: str
    title: str
    patterns: tuple[str, ...]
    cause: str
    confirm: str
    fix: str
    priority: int = 50
    requires: tuple[str, ...] = ()
    probes: tuple[str, ...] = ()
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    compiled_requires: tuple[re.Pattern[str], ...] = field(init=False, repr=False,
                                                           compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(re.compile(p) for p in self.patterns))
        object.__setattr__(self, "compiled_requires",
                           tuple(re.compile(p) for p in self.requires))


WORKER_SIGNAL = r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: "
SHM_FIX = ("give /dev/shm more room: Docker `--shm-size=8g` or `--ipc=host`, Kubernetes an "
           "emptyDir with medium: Memory at /dev/shm; or lower num_workers, prefetch_factor or "
           "batch_size so fewer bytes are in flight")

CATALOGUE: tuple[Signature, ...] = (
    Signature(
        "shm_exhausted", "shared memory (/dev/shm) is full",
        (r"unable to allocate shared memory\(shm\) for file <[^>]*>: No space left on device",
         r"unable to write to file <[^>]*torch_[^>]*>",
         r"unable to (?:open|mmap)[^\n]*(?:torch_|shared memory)[^\n]*No space left on device",
         r"No space left on device[^\n]*/dev/shm"),
        "a worker could not create the shared-memory file that carries a batch to the main "
        "process: /dev/shm is full or tiny (Docker's default is 64 MB)",
        "`df -h /dev/shm` while loading; `loadertune doctor DATASET` compares its size with "
        "batch bytes × prefetch × workers",
        SHM_FIX, priority=95, probes=("shm",)),
    Signature(
        "bus_error_shm", "bus error: workers out of shared memory",
        (WORKER_SIGNAL + r"Bus error", phrase("Unexpected bus error encountered in worker"),
         phrase("insufficient shared memory (shm)"),
         phrase("dataloader's workers are out of shared memory")),
        "a worker wrote into a shared-memory mapping that /dev/shm could not back: the "
        "tmpfs ran out of space and the kernel sent SIGBUS",
        "`df -h /dev/shm` (64M in a default Docker container); rerun with num_workers=0: "
        "the error disappears when shared memory is the cause",
        SHM_FIX, priority=90, probes=("shm",)),
    Signature(
        "ancdata", "received 0 items of ancdata",
        (r"received 0 items of ancdata",),
        "the main process ran out of file descriptors while receiving a shared tensor from a "
        "worker: the file_descriptor sharing strategy passes one descriptor per tensor",
        "`ulimit -n` (often 1024); `python -c \"import torch.multiprocessing as m; "
        "print(m.get_sharing_strategy())\"` prints file_descriptor",
        "raise the limit (`ulimit -n 65536`, or resource.setrlimit(RLIMIT_NOFILE, (hard, "
        "hard)) at start), don't keep batches alive (e.g. in a list), or call "
        "`torch.multiprocessing.set_sharing_strategy('file_system')` (no fd limit; files can "
        "leak in /dev/shm when a process is killed)",
        priority=92, probes=("fds",)),
    Signature(
        "too_many_open_files", "too many open files",
        (r"Too many open files", r"\[Errno 24\]", r"\bEMFILE\b"),
        "the process hit its open-file limit (`ulimit -n`): with the file_descriptor sharing "
        "strategy every tensor in flight between workers and the main process holds a "
        "descriptor, and batches that are kept alive keep theirs",
        "`ulimit -n`; `ls /proc/<pid>/fd | wc -l` of the training process while it runs",
        "`ulimit -n 65536` (up to the hard limit) before starting, or resource.setrlimit in "
        "the script; stop holding on to batches; or "
        "`torch.multiprocessing.set_sharing_strategy('file_system')` at the top of the script "
        "(costs: a torch_shm_manager process, and /dev/shm files leak if a process is killed)",
        priority=90, probes=("fds",)),
    Signature(
        "spawn_bootstrap", "workers started before the main module finished importing",
        (phrase("An attempt has been made to start a new process before the current process "
                "has finished its bootstrapping phase"),),
        "with spawn/forkserver (macOS, Windows, Python 3.14+ Linux) each worker re-imports "
        "the main script; the script creates/iterates its DataLoader at import time, outside "
        "`if __name__ == \"__main__\":`, so every worker tries to start workers again",
        "`loadertune doctor train.py` points at the line that iterates at import time",
        "put the training code in a function and call it under `if __name__ == "
        "\"__main__\":`",
        priority=95, probes=("startmethod",)),
    Signature(
        "pickle_local_object", "a local function or lambda cannot be pickled",
        (r"Can't pickle local object '(?P<object>[^']+)'", r"Can't get local object",
         r"Can't pickle <function <lambda>", r"attribute lookup <lambda> on \S+ failed",
         r"Can't pickle <function [^>]*<locals>"),
        "under spawn/forkserver the dataset, collate_fn and worker_init_fn are pickled for "
        "each worker; a lambda or a function defined inside another function cannot be "
        "pickled",
        "the object named in the message; it works with num_workers=0 or with fork",
        "define the function with `def` at module level (functools.partial for arguments)",
        priority=85, probes=("startmethod",)),
    Signature(
        "spawn_main_attribute", "workers cannot find a class defined in __main__",
        (r"Can't get attribute '(?P<name>[^']+)' on <module '__main__'",),
        "a spawn/forkserver worker unpickles the dataset by importing its class, but the class "
        "lives in an interactive session or notebook's __main__, which the worker cannot import",
        "the class named in the message is defined in a notebook or `python -c`",
        "move the Dataset class (and collate_fn) into a .py module and import it",
        priority=85),
    Signature(
        "unpicklable_object", "the dataset holds an object that cannot be pickled",
        (r"cannot pickle '(?P<type>[^']+)' object",
         r"Can't pickle <[^>]*(?:TextIOWrapper|BufferedReader|Connection|lock)[^>]*>"),
        "under spawn/forkserver the dataset is pickled for each worker; it holds an open "
        "file, a lock, a database connection or similar that cannot be pickled",
        "`loadertune doctor module:dataset` names the attribute that fails to pickle",
        "open files and connections lazily inside each worker (on first __getitem__ or in "
        "worker_init_fn), or drop them in __getstate__",
        priority=84, probes=("startmethod",)),
    Signature(
        "cuda_forked", "CUDA used in a forked worker",
        (phrase("Cannot re-initialize CUDA in forked subprocess"),
         r"CUDA error: initialization error"),
        "CUDA was initialised in the parent and a forked worker (the default on Linux) used "
        "CUDA again: a CUDA context cannot survive fork",
        "the dataset or collate_fn calls .cuda()/.to('cuda'), or creates CUDA tensors",
        "return CPU tensors from the dataset and move batches to the GPU in the training loop "
        "(pin_memory=True + .to(device, non_blocking=True)); or "
        "multiprocessing_context='spawn'",
        priority=95, probes=("cuda",)),
    Signature(
        "worker_oom_killed", "a worker was killed (SIGKILL): usually the OOM killer",
        (WORKER_SIGNAL + r"Killed", r"killed by signal 9\b",
         r"(?m)^(?:[^\n]*: line \d+: +\d+ )?Killed(?: +[^\n]*)?$"),
        "the kernel's OOM killer (or a container's memory limit) killed a worker with "
        "SIGKILL: the workers together used more memory than available. Python-object "
        "datasets grow in every worker over an epoch (copy-on-read)",
        "`dmesg -T | grep -i -e oom -e 'killed process'` or `journalctl -k`; a container's "
        "memory.events shows oom_kill; watch per-worker memory with `loadertune doctor "
        "DATASET`",
        "fewer workers (doctor's max safe num_workers), a smaller prefetch_factor or batch, "
        "and keep data in numpy arrays/Arrow instead of Python lists and dicts",
        priority=80, probes=("memory",)),
    Signature(
        "worker_segfault", "a worker crashed in native code (segmentation fault)",
        (WORKER_SIGNAL + r"Segmentation fault",
         phrase("Unexpected segmentation fault encountered in worker")),
        "a C extension (image/audio decoder, OpenCV, a library not fork-safe) crashed inside "
        "a worker",
        "rerun with num_workers=0 and `python -X faulthandler` to see the native stack; try "
        "multiprocessing_context='spawn' (fork-unsafe libraries) and cv2.setNumThreads(0)",
        "upgrade or replace the crashing library, initialise it inside the worker "
        "(worker_init_fn) instead of before fork, or use spawn",
        priority=80, probes=("threads",)),
    Signature(
        "worker_killed_signal", "a worker was killed by a signal",
        (WORKER_SIGNAL + r"(?!Killed|Bus error|Segmentation fault)(?P<signal>[A-Za-z -]+)",
         phrase("Unexpected floating-point exception encountered in worker")),
        "a worker died from a signal (abort, floating-point error, an external kill)",
        "rerun with num_workers=0 to get the error in the main process",
        "fix the crashing code the signal points at (abort: an assertion in a C library)",
        priority=70),
    Signature(
        "pin_memory_thread", "the pin-memory thread failed",
        (r"Pin memory thread exited unexpectedly", r"in pin memory thread for device \d+"),
        "the thread that copies batches into page-locked memory died: often CUDA out of "
        "memory or a CUDA error while pinning, or a batch type it cannot pin",
        "rerun with pin_memory=False; check `nvidia-smi` for free memory",
        "set pin_memory=False, or free GPU memory / lower the batch size; give custom batch "
        "types a pin_memory() method",
        priority=75, probes=("cuda",)),
    Signature(
        "worker_exited", "a worker exited unexpectedly",
        (r"DataLoader worker \(pid\(s\) (?P<pids>[\d, ]+)\) exited unexpectedly",
         r"DataLoader worker \(pid (?P<pid>\d+)\) exited unexpectedly with exit code "
         r"(?P<code>-?\d+)"),
        "a worker process ended without reporting an error: it called exit, was killed, or "
        "crashed (the signal is not always known)",
        "rerun with num_workers=0 for the real traceback; `dmesg -T | tail` for OOM kills",
        "fix what the num_workers=0 run shows; when memory is the cause, fewer workers",
        priority=50, probes=("memory", "shm")),
    Signature(
        "timeout", "DataLoader timed out",
        (r"DataLoader timed out after (?P<seconds>[\d.]+) seconds",),
        "no batch arrived within DataLoader(timeout=...): a worker is slow (slow storage, a "
        "huge item) or stuck (deadlock, waiting on a lock or network)",
        "time one item with num_workers=0; `py-spy dump --pid <worker pid>` shows where a "
        "worker waits",
        "raise timeout= for slow items, or fix the stuck worker (see the hang entry)",
        priority=60, probes=("storage",)),
    Signature(
        "worker_hang", "workers hang (deadlock)",
        (r"Timeout \(\d+:\d\d:\d\d\)!", r"Thread 0x[0-9a-f]+ \(most recent call first\)",
         r"\(idle\)|py-spy", r"(?i)\b(?:hangs?|hung|stuck|deadlock\w*)\b"),
        "the main process waits for batches that never come: a worker forked while another "
        "thread held a lock (logging, OpenMP/OpenCV/MKL thread pools, a queue) and waits on "
        "it forever, or it blocks on I/O",
        "`py-spy dump --pid <pid>` of the main process and of each worker; rerun with "
        "num_workers=0 (no hang: it is the fork) and with multiprocessing_context='spawn'",
        "start workers before creating threads, use multiprocessing_context='spawn' or "
        "'forkserver', call cv2.setNumThreads(0) and torch.set_num_threads(1) in "
        "worker_init_fn, and set DataLoader(timeout=...) to fail instead of hang",
        priority=55,
        requires=(r"_try_get_data|_next_data|_worker_loop|multiprocessing/(?:queues|connection)"
                  r"|(?i:dataloader|num_workers)",),
        probes=("threads",)),
    Signature(
        "iterable_duplicates", "an IterableDataset yields duplicates across workers",
        (phrase("Length of IterableDataset"),
         phrase("not properly configuring the IterableDataset replica at each worker"),
         r"(?i)IterableDataset[^\n]*duplicat|duplicat[^\n]*IterableDataset"),
        "every worker runs its own copy of the IterableDataset's __iter__; without sharding "
        "by worker each worker yields the whole stream, so samples repeat num_workers times",
        "count samples in an epoch with num_workers=0 and num_workers=2: they differ",
        "in __iter__, use torch.utils.data.get_worker_info() to take every num_workers-th "
        "item (or split the files/shards) per worker id",
        priority=70),
    Signature(
        "pin_memory_no_accelerator", "pin_memory=True without an accelerator",
        (phrase("'pin_memory' argument is set as true but no accelerator is found"),),
        "pin_memory=True on a machine without CUDA/XPU: torch ignores it and warns",
        "`python -c \"import torch; print(torch.cuda.is_available())\"` prints False",
        "pin_memory=torch.cuda.is_available()", priority=40, probes=("cuda",)),
    Signature(
        "too_many_workers", "more workers than the CPUs allow",
        (r"This DataLoader will create (?P<workers>\d+) worker processes in total\. Our "
         r"suggested max number of worker in current system is (?P<suggest>\d+)",),
        "num_workers exceeds the CPUs this process may use (affinity/cpuset); the workers "
        "time-share cores and can freeze or slow the machine",
        "`nproc` and `python -c \"import os; print(len(os.sched_getaffinity(0)))\"`",
        "num_workers <= the suggested number (`loadertune doctor` computes what fits)",
        priority=58, probes=("cores",)),
    Signature(
        "worker_exception", "your dataset or collate_fn raised in a worker",
        (r"Caught (?P<exception>\w+) in DataLoader worker process (?P<worker>\d+)",),
        "an exception in __getitem__/__iter__/collate_fn inside a worker; the part after "
        "'Original Traceback' is the real error",
        "rerun with num_workers=0: the same error is raised directly, with a plain traceback",
        "fix the error shown in the original traceback (often a bad file, index or shape)",
        priority=10),
)


def by_id(cause_id: str) -> Signature | None:
    return next((s for s in CATALOGUE if s.id == cause_id), None)
