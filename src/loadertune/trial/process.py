"""Start a trial process in its own session, and afterwards leave nothing of it behind."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil

SHM_DIR = Path("/dev/shm")
TRIAL_TMP_PREFIX = "loadertune-trial-"


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Block SIGINT and SIGTERM in this thread for the block; pending ones arrive after it."""
    deferred = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, deferred)
    except (AttributeError, OSError, ValueError):  # no pthread_sigmask on this platform
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def shm_entries() -> set[str]:
    try:
        return set(os.listdir(SHM_DIR))
    except OSError:
        return set()


def group_members(pgid: int) -> list[psutil.Process]:
    """Live processes whose process group is ``pgid``."""
    members = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                members.append(proc)
        except (OSError, psutil.Error):
            continue
    return members


def _names_pid(name: str, pids: set[int]) -> bool:
    tokens = name.replace(".", "_").replace("-", "_").split("_")
    return any(tok.isdigit() and int(tok) in pids for tok in tokens)


class TrialProcess:
    """A ``python -m loadertune.trial.child`` process and everything it starts.

    The child runs in a new session (its own process group), with TMPDIR pointing at a private
    folder; `close` kills the group and any stray descendant, reaps it, removes shared-memory
    files named after its processes and the private folder, and closes the pipes.
    """

    def __init__(self, job_bytes: bytes) -> None:
        started = False
        try:
            with _signals_deferred():  # Ctrl-C waits until the child exists, then cleans it up
                self._start()
                started = True
            self._send(job_bytes)
        except BaseException:
            if started:
                self.close()
            raise

    def _start(self) -> None:
        self.tmpdir = tempfile.mkdtemp(prefix=TRIAL_TMP_PREFIX)
        self.shm_before = shm_entries()
        self.known_pids: set[int] = set()
        read_fd, write_fd = os.pipe()
        self.event_fd = read_fd
        env = dict(os.environ, TMPDIR=self.tmpdir, PYTHONUNBUFFERED="1")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "loadertune.trial.child", str(write_fd)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                start_new_session=True,
                env=env,
                cwd=os.getcwd(),
            )
        except BaseException:
            os.close(read_fd)
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise
        finally:
            os.close(write_fd)
        self.known_pids.add(self.proc.pid)
        assert self.proc.stdout is not None
        self.output_fd = self.proc.stdout.fileno()

    def _send(self, job_bytes: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(job_bytes)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_exit(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the trial process to exit by itself."""
        try:
            self.proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except (psutil.Error, OSError):
            return []

    def kill(self) -> None:
        """SIGKILL the whole tree: the process group, then any descendant that left it."""
        strays = self.descendants()
        self.known_pids.update(p.pid for p in strays)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for proc in strays:
            with contextlib.suppress(psutil.Error, OSError):
                proc.kill()
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()
        self._wait_gone(strays, timeout=5.0)
        for _ in range(3):  # anything still in the group (e.g. forked while being killed)
            members = group_members(self.proc.pid)
            if not members:
                break
            self.known_pids.update(p.pid for p in members)
            for proc in members:
                with contextlib.suppress(psutil.Error, OSError):
                    proc.kill()
            self._wait_gone(members, timeout=2.0)

    @staticmethod
    def _wait_gone(procs: list[psutil.Process], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for proc in procs:
            while time.monotonic() < deadline:
                try:
                    if proc.status() == psutil.STATUS_ZOMBIE:
                        break
                except (psutil.Error, OSError):
                    break
                time.sleep(0.01)

    def close(self) -> None:
        """Kill what is left, then remove its shm files and temp folder and close pipes.

        Ctrl-C and SIGTERM are held back until the clean-up is done (a second Ctrl-C must not
        leave half the tree running); they are delivered right after.
        """
        with _signals_deferred():
            self._close()

    def _close(self) -> None:
        try:
            self.kill()
        finally:
            for name in shm_entries() - self.shm_before:
                if _names_pid(name, self.known_pids):
                    with contextlib.suppress(OSError):
                        (SHM_DIR / name).unlink()
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.close(self.event_fd)
            if self.proc.stdout is not None:
                with contextlib.suppress(OSError):
                    self.proc.stdout.close()

    def __enter__(self) -> TrialProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
