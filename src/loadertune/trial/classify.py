"""Turn an exception raised while iterating a DataLoader into a `TrialFailure`."""

from __future__ import annotations

import re
import signal
import traceback

from loadertune.trial.results import TrialFailure

INDEX_NOTE = "loadertune: raised while loading index "
_INDEX_RE = re.compile(re.escape(INDEX_NOTE) + r"(-?\d+)")
_KILLED_RE = re.compile(r"DataLoader worker \(pid (\d+)\) is killed by signal: ([^.]+)\.")
_EXITED_RE = re.compile(
    r"DataLoader worker \(pid (\d+)\) exited unexpectedly with exit code (-?\d+)")
_PIDS_RE = re.compile(r"DataLoader worker \(pid\(s\) ([\d, ]+)\) exited unexpectedly")
_CAUGHT_RE = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)")


def signal_number(description: str) -> int | None:
    """The signal whose ``strsignal`` text is ``description`` (e.g. "Killed" -> 9)."""
    for sig in signal.Signals:
        if signal.strsignal(sig) == description.strip():
            return int(sig)
    return None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _worker_id(pid: int, worker_pids: dict[int, int]) -> int | None:
    return worker_pids.get(pid)


def _original_message(text: str, type_name: str) -> str:
    """The ``Type: message`` line of a worker's original traceback, without the type."""
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(f"{type_name}: ") or lines[i] == type_name:
            message = lines[i][len(type_name) + 2:] if ":" in lines[i] else ""
            tail = [ln for ln in lines[i + 1:] if not ln.startswith(INDEX_NOTE)]
            return "\n".join([message, *tail]).strip()
    return lines[0] if lines else ""


def dead_worker_failure(exits: dict[int, int], detail: str) -> TrialFailure | None:
    """A failure naming the first worker (id -> exit code) that died, or None."""
    for wid, code in sorted(exits.items()):
        if code < 0:
            sig = -code
            return TrialFailure("worker_killed", f"worker {wid} killed by signal {sig} "
                                f"({signal_name(sig)})", detail=detail, worker_id=wid, signal=sig)
        if code > 0:
            return TrialFailure("worker_exited", f"worker {wid} exited unexpectedly with code "
                                f"{code}", detail=detail, worker_id=wid)
    return None


def classify(err: BaseException, worker_pids: dict[int, int],
             worker_exits: dict[int, int] | None = None) -> TrialFailure:
    """Describe ``err`` as a failure kind with worker, signal and index where known.

    ``worker_exits`` (worker id -> exit code of workers that have ended) explains errors that
    only show a symptom of a dead worker, such as a connection reset while receiving a batch.
    """
    text = str(err)
    detail = "".join(traceback.format_exception(err))[-4000:]
    notes = "\n".join(getattr(err, "__notes__", []) or [])
    index_match = _INDEX_RE.search(text) or _INDEX_RE.search(notes)
    index = int(index_match.group(1)) if index_match else None

    caught = _CAUGHT_RE.search(text)
    if caught:
        type_name, wid = caught.group(1), int(caught.group(2))
        message = _original_message(text, type_name)
        where = f" at index {index}" if index is not None else ""
        return TrialFailure("exception", f"{type_name}{where} in worker {wid}: {message}",
                            detail=detail, worker_id=wid, index=index)
    dead = dead_worker_failure(worker_exits or {}, detail)
    if dead is not None:
        return dead
    killed = _KILLED_RE.search(text)
    if killed:
        pid = int(killed.group(1))
        signum = signal_number(killed.group(2))
        wid = _worker_id(pid, worker_pids)
        who = f"worker {wid}" if wid is not None else f"worker pid {pid}"
        sig = f"signal {signum} ({signal_name(signum)})" if signum else killed.group(2)
        return TrialFailure("worker_killed", f"{who} killed by {sig}", detail=detail,
                            worker_id=wid, signal=signum)
    exited = _EXITED_RE.search(text)
    if exited:
        pid, code = int(exited.group(1)), int(exited.group(2))
        wid = _worker_id(pid, worker_pids)
        who = f"worker {wid}" if wid is not None else f"worker pid {pid}"
        return TrialFailure("worker_exited", f"{who} exited unexpectedly with code {code}",
                            detail=detail, worker_id=wid)
    pids = _PIDS_RE.search(text)
    if pids:
        listed = [int(p) for p in pids.group(1).replace(" ", "").split(",") if p]
        ids = [worker_pids[p] for p in listed if p in worker_pids]
        names = ", ".join(map(str, ids or listed))
        who = f"worker {ids[0]}" if len(ids) == 1 else f"workers {names}"
        return TrialFailure("worker_exited", f"{who} exited unexpectedly", detail=detail,
                            worker_id=ids[0] if len(ids) == 1 else None)
    where = f" at index {index}" if index is not None else ""
    message = text.split("\n" + INDEX_NOTE)[0].strip()
    return TrialFailure("exception", f"{type(err).__name__}{where}: {message}", detail=detail,
                        index=index)
