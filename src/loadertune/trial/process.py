"""Start a trial process in its own session, and afterwards leave nothing of it behind."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from loadertune.interrupts import signals_deferred
from loadertune.trial.supervisor import kill_tree

SHM_DIR = Path("/dev/shm")
TRIAL_TMP_PREFIX = "loadertune-trial-"


def shm_entries() -> set[str]:
    try:
        return set(os.listdir(SHM_DIR))
    except OSError:
        return set()


def _names_pid(name: str, pids: set[int]) -> bool:
    tokens = name.replace(".", "_").replace("-", "_").split("_")
    return any(tok.isdigit() and int(tok) in pids for tok in tokens)


_LIVE: set[TrialProcess] = set()


def close_all() -> None:
    """Close every trial process not closed yet.

    A Ctrl-C that lands between two bytecodes of the normal path (after a child started but
    before the ``with`` that owns it, or at the entry of ``close``) must not leave the child or
    its temp folder behind: sweeps call this when interrupted, and it runs at exit.
    """
    for proc in list(_LIVE):
        proc.close()


atexit.register(close_all)


class TrialProcess:
    """A trial process and everything it starts: a fresh ``python -m loadertune.trial.child``
    interpreter (`start`) or a child forked from the caller (`start_forked`).

    Use as ``with TrialProcess() as proc: proc.start(job_bytes)``: creating the object holds
    nothing, so no interrupt can fall between acquiring the child and owning it. The child runs
    in a new session (its own process group), with TMPDIR pointing at a private folder;
    `close` kills the tree (`supervisor.kill_tree`), reaps it, removes shared-memory files
    named after its processes and the private folder, and closes the pipes.
    """

    def __init__(self) -> None:
        self.tmpdir: str | None = None
        self.proc: subprocess.Popen[bytes] | ForkedChild | None = None
        self.event_fd: int | None = None
        self.output_fd: int | None = None
        self.shm_before: set[str] = set()
        self.known_pids: set[int] = set()

    def start(self, job_bytes: bytes) -> None:
        """Start the child and hand it the job; Ctrl-C waits until the child is registered."""
        with signals_deferred():
            _LIVE.add(self)
            self._start()
        self._send(job_bytes)

    def _start(self) -> None:
        self.tmpdir = tempfile.mkdtemp(prefix=TRIAL_TMP_PREFIX)
        self.shm_before = shm_entries()
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
        finally:
            os.close(write_fd)
        self.known_pids.add(self.proc.pid)
        assert self.proc.stdout is not None
        self.output_fd = self.proc.stdout.fileno()

    def start_forked(self, run: Callable[[int], None]) -> None:
        """Fork a child that calls ``run(event_fd)`` and exits: it inherits the caller's
        objects (nothing is pickled) and is supervised exactly like a fresh interpreter."""
        with signals_deferred():
            _LIVE.add(self)
            self._fork(run)

    def _fork(self, run: Callable[[int], None]) -> None:
        self.tmpdir = tempfile.mkdtemp(prefix=TRIAL_TMP_PREFIX)
        self.shm_before = shm_entries()
        event_read, event_write = os.pipe()
        out_read, out_write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(event_read)
            os.close(out_read)
            forked_child_main(run, event_write, out_write, self.tmpdir)
        os.close(event_write)
        os.close(out_write)
        self.event_fd = event_read
        self.proc = ForkedChild(pid, open(out_read, "rb", buffering=0))  # noqa: SIM115
        self.known_pids.add(pid)
        self.output_fd = out_read

    def _send(self, job_bytes: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(job_bytes)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the trial process has not started"
        return self.proc.pid

    def poll(self) -> int | None:
        """The trial process's exit status, or None while it runs."""
        return None if self.proc is None else self.proc.poll()

    def wait_exit(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the trial process to exit by itself."""
        assert self.proc is not None
        try:
            self.proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self) -> None:
        """SIGKILL the whole tree (see `supervisor.kill_tree`) and reap the child."""
        if self.proc is None:
            return
        self.known_pids.update(kill_tree(self.proc.pid, running=self.proc.poll() is None))
        self.proc.wait()

    def close(self) -> None:
        """Kill what is left, then remove its shm files and temp folder and close pipes.

        Ctrl-C and SIGTERM are held back until the clean-up is done (a second Ctrl-C must not
        leave half the tree running); they are delivered right after. Closing twice, or a
        trial never started, does nothing (a reaped child's pid may belong to another process).
        """
        with signals_deferred():
            if self in _LIVE:
                self._close()

    def _close(self) -> None:
        try:
            self.kill()
        finally:
            for name in shm_entries() - self.shm_before:
                if _names_pid(name, self.known_pids):
                    with contextlib.suppress(OSError):
                        (SHM_DIR / name).unlink()
            if self.tmpdir is not None:
                shutil.rmtree(self.tmpdir, ignore_errors=True)
                self.tmpdir = None
            if self.event_fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self.event_fd)
                self.event_fd = None
            if self.proc is not None:
                for pipe in (self.proc.stdin, self.proc.stdout):
                    if pipe is not None:
                        with contextlib.suppress(OSError):
                            pipe.close()
            _LIVE.discard(self)

    def __enter__(self) -> TrialProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ForkedChild:
    """The part of `subprocess.Popen`'s interface `TrialProcess` uses, for a forked child."""

    def __init__(self, pid: int, stdout: object) -> None:
        self.pid = pid
        self.stdin = None
        self.stdout = stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -signal.SIGKILL  # reaped elsewhere: report it as gone
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0.0)
            time.sleep(0.01)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def forked_child_main(run: Callable[[int], None], event_fd: int, output_fd: int,
                      tmpdir: str) -> None:
    """In the forked child: a session of its own, output to the pipe, TMPDIR private, the
    default signal handlers; run, then exit without the parent's atexit handlers."""
    code = 1
    try:
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the caller's (its timer stays there)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(output_fd)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        os.environ["TMPDIR"] = tmpdir
        tempfile.tempdir = tmpdir
        _LIVE.clear()  # the parent's trials are the parent's to close
        run(event_fd)
        code = 0
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
