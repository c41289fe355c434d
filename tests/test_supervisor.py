"""The one supervisor: a child's whole tree ends with it, even parts that left its group."""

from __future__ import annotations

import sys
import textwrap

import psutil

from loadertune.trial.supervisor import kill_tree, run_supervised

# Starts a grandchild in a session of its own (it leaves the group) and a plain one, both
# holding stdout open, then hangs.
TREE = textwrap.dedent("""\
    import os, subprocess, sys, time
    code = "import time; time.sleep(600)"
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    subprocess.Popen([sys.executable, "-c", code])
    print("started", flush=True)
    time.sleep(600)
    """)


def test_a_command_past_its_limit_is_killed_with_its_whole_tree() -> None:
    done = run_supervised([sys.executable, "-c", TREE], timeout=3)
    assert done.timed_out and done.returncode == -9
    assert "started" in done.stdout
    # the leak fixture fails the test if a grandchild survived


def test_a_finished_command_keeps_its_output_and_code() -> None:
    done = run_supervised([sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"],
                          timeout=30)
    assert (done.returncode, done.stdout.strip(), done.timed_out) == (3, "hi", False)


def test_kill_tree_reaches_descendants_outside_the_group() -> None:
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        tree = psutil.Process(proc.pid).children(recursive=True)
        assert len(tree) == 2
        killed = kill_tree(proc.pid)
        assert {p.pid for p in tree} <= killed
        proc.wait(timeout=10)
        assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in tree)
    finally:
        kill_tree(proc.pid, running=proc.poll() is None)
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
