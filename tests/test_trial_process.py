"""A trial process's life: Ctrl-C at any moment of its start leaves nothing behind."""

import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest

from loadertune.config import LoaderConfig
from loadertune.interrupts import signals_deferred
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.process import TRIAL_TMP_PREFIX, TrialProcess, close_all

QUICK = TrialPlan(batches=4, repeats=3, timeout_s=60)


def test_signals_are_held_back_while_another_thread_runs() -> None:
    """The kernel may hand the signal to the other thread; it must still wait for the block."""
    stop = threading.Event()
    spinner = threading.Thread(target=stop.wait)  # stands for rich's refresh thread
    spinner.start()
    reached_end = False
    try:
        with pytest.raises(KeyboardInterrupt), signals_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler would run here without the deferral
            reached_end = True
    finally:
        stop.set()
        spinner.join()
    assert reached_end
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _interrupt_when_a_trial_starts(tmpdir: Path) -> threading.Thread:
    """From another thread, send SIGINT the moment a trial's temp folder appears."""
    def watch() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(p.name.startswith(TRIAL_TMP_PREFIX) for p in tmpdir.iterdir()):
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.0005)

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_during_a_trial_start_leaves_no_folder_or_process(attempt: int) -> None:
    tmpdir = Path(tempfile.gettempdir())
    thread = _interrupt_when_a_trial_starts(tmpdir)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_trial(DatasetSource(spec="fixture_datasets:squares"),
                      LoaderConfig(num_workers=1, batch_size=8), QUICK)
            time.sleep(5)  # the trial ended before the signal: wait for it here
    finally:
        thread.join()
    # the leak fixture checks processes, /dev/shm and this test's TMPDIR


def test_close_all_cleans_a_trial_nobody_owns() -> None:
    """As when an interrupt falls between starting a trial and the ``with`` that owns it."""
    proc = TrialProcess()
    proc.start(b"not a job")  # the child fails to read it, but the folder and pipes exist
    folder = proc.tmpdir
    assert folder is not None and Path(folder).is_dir()
    close_all()
    assert not Path(folder).exists()
    assert proc.poll() is not None
    close_all()  # nothing left: a second call does nothing
    proc.close()  # nor does closing it again
    TrialProcess().close()  # or closing one never started
