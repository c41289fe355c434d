"""File descriptors: the limit on open files and passing descriptors between processes."""

from __future__ import annotations

from loadertune.explain.signature import Signature, frame, near, text

FD_FIX = ("raise the limit (`ulimit -n 65536`, or resource.setrlimit(RLIMIT_NOFILE, (hard, "
          "hard)) at start), don't keep batches alive (e.g. in a list), or call "
          "`torch.multiprocessing.set_sharing_strategy('file_system')` (no fd limit; files can "
          "leak in /dev/shm when a process is killed)")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "ancdata", "received 0 items of ancdata",
        (text(r"received \d+ items of ancdata", 4, key=True),
         text(r"received %d items of ancdata", 4, key=True),
         text(r"len\(ancdata\)\)", 2, key=True),
         text(r"(?i)\bancdata\b", 2.5, key=True),
         frame(r"in recvfds$", 1.5, key=True),
         frame(r"in rebuild_storage_fd$", 1.5, key=True),
         frame(r"resource_sharer\.py in detach$", 0.5),
         text(r"(?i)ulimit|RLIMIT_NOFILE|file descriptors?", 0.5)),
        "the main process ran out of file descriptors while receiving a shared tensor from a "
        "worker: the file_descriptor sharing strategy passes one descriptor per tensor",
        "`loadertune doctor --probe fds` compares `ulimit -n` with what the workers need",
        FD_FIX, priority=92, probes=("fds",)),
    Signature(
        "too_many_open_files", "too many open files",
        (text(r"(?i)too many open (?:files|fds|file descriptors)", 4, key=True),
         text(r"(?i)too many (?:files|file descriptors|fds) (?:open|opened)\b", 3, key=True),
         text(r"\[Errno 24\]", 3, key=True),
         text(r"\bEMFILE\b", 2, key=True),
         text(r"unable to open shared memory object \S+ in read-write mode", 2, key=True),
         text(r"No such file or directory \(2\)", -1.5),
         # the error gone with the file_system strategy: tensors no longer travel as
         # descriptors, so the limit on them was what failed
         text(near(r"set_sharing_strategy\(\s*['\"]file_system", r"\bworkaround\b|\bfix\w*|"
                   r"\bsolv\w*|\bresolv\w*|\bworks?\b|\bhelp\w*", 200), 3, key=True),
         text(r"(?i)ulimit|set_sharing_strategy|file_system", 0.5)),
        "the process hit its open-file limit (`ulimit -n`): with the file_descriptor sharing "
        "strategy every tensor in flight between workers and the main process holds a "
        "descriptor, and batches that are kept alive keep theirs",
        "`loadertune doctor --probe fds` (`ulimit -n` against what the workers need)",
        FD_FIX, priority=90, probes=("fds",)),
)
