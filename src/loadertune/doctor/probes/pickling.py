"""Can the dataset travel to spawn workers, and does it hold objects that break in workers?"""

from __future__ import annotations

import io
import socket
import sqlite3
import threading
import types
from typing import Any

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, ok, warn
from loadertune.pipeline.objwalk import walk
from loadertune.pipeline.picklecheck import pickle_error, unpicklable_path

PROBE = "pickling"
DB_MODULES = ("sqlite3", "psycopg2", "psycopg", "pymysql", "MySQLdb", "pymongo", "redis",
              "sqlalchemy", "lmdb", "h5py", "mysql", "cx_Oracle", "duckdb")
LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


def hazard(obj: Any) -> tuple[str, str, str] | None:
    """(check id, what it is, fix) when ``obj`` is known to break inside workers."""
    if isinstance(obj, io.IOBase) and not obj.closed:
        return ("pickling.open_file", f"an open file handle ({getattr(obj, 'name', '?')})",
                "store the path and open the file lazily in the worker (e.g. on first "
                "__getitem__, or in worker_init_fn); forked workers share one file offset "
                "and spawn cannot pickle it")
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        return ("pickling.lambda", "a lambda",
                "replace the lambda with a module-level `def` (or functools.partial); "
                "spawn/forkserver cannot pickle lambdas")
    if isinstance(obj, types.FunctionType) and "<locals>" in obj.__qualname__:
        return ("pickling.lambda", f"a local function {obj.__qualname__}",
                "define the function at module level; spawn/forkserver cannot pickle "
                "local functions")
    if isinstance(obj, (sqlite3.Connection, socket.socket)) or \
            (type(obj).__module__.split(".")[0] in DB_MODULES and not isinstance(obj, type)):
        return ("pickling.connection",
                f"a connection/handle {type(obj).__module__}.{type(obj).__qualname__}",
                "open the connection inside each worker (lazily or in worker_init_fn); a "
                "connection shared across forked processes corrupts its protocol state and "
                "cannot be pickled for spawn")
    if isinstance(obj, LOCK_TYPES):
        return ("pickling.lock", "a threading lock",
                "create locks inside the worker; a lock held at fork time stays locked "
                "forever in the child, and spawn cannot pickle it")
    if _is_cuda_tensor(obj):
        return ("pickling.cuda_tensor", "a CUDA tensor",
                "keep the dataset's tensors on the CPU and move batches to the GPU in the "
                "training loop (with pin_memory=True and .to(device, non_blocking=True)); "
                "CUDA in forked workers fails with 'Cannot re-initialize CUDA in forked "
                "subprocess'")
    return None


def _is_cuda_tensor(obj: Any) -> bool:
    try:
        import torch

        return isinstance(obj, torch.Tensor) and obj.is_cuda
    except Exception:
        return False


def probe(ctx: DoctorContext) -> list[Finding]:
    loaded = ctx.dataset()
    if loaded is None:
        if ctx.load_error:
            return [error(PROBE, "pickling.load_failed", "the dataset could not be loaded",
                          ctx.load_error, "fix the dataset spec or the error its import raises")]
        return []
    findings: list[Finding] = []
    method = ctx.machine.start_method
    roots = [("dataset", loaded.dataset)]
    if loaded.collate_fn is not None:
        roots.append(("collate_fn", loaded.collate_fn))
    if loaded.parts is not None and loaded.parts.worker_init_fn is not None:
        roots.append(("worker_init_fn", loaded.parts.worker_init_fn))
    for name, root in roots:
        failure = pickle_error(root)
        if failure is None:
            findings.append(ok(PROBE, "pickling.picklable", f"the {name} pickles",
                               f"{loaded.describe() if name == 'dataset' else name} pickles as "
                               "spawn/forkserver workers need it"))
            continue
        path, kind, message = unpicklable_path(root, name)
        sev = error if method in ("spawn", "forkserver") else warn
        findings.append(sev(PROBE, "pickling.unpicklable", f"the {name} cannot be pickled",
                            f"{path} ({kind}) fails to pickle: {message}; spawn/forkserver "
                            f"workers need it (start method here: {method})",
                            f"make {path} picklable: create it lazily inside the worker, or "
                            "define __getstate__ to drop it and rebuild it after unpickling",
                            path=path, type=kind, start_method=method))
    seen_checks: set[tuple[str, str]] = set()
    for name, root in roots:
        for node in walk(root, name):
            found = hazard(node.obj)
            if found is None or (found[0], node.path) in seen_checks:
                continue
            seen_checks.add((found[0], node.path))
            check, what, fix = found
            sev = error if check == "pickling.cuda_tensor" else warn
            findings.append(sev(PROBE, check, f"{node.path} is {what}",
                                f"{node.path} is {what}, which breaks in DataLoader workers",
                                fix, path=node.path))
    return findings
