"""The handover probe: a real pickle round trip as workers do it, and nothing left running."""

import threading

import torch

from loadertune.tuning.handover import handover_s


def test_handover_is_measured_and_leaves_no_thread_or_socket() -> None:
    threads_before = set(threading.enumerate())
    items = [torch.zeros(256, 256) for _ in range(4)]
    seconds = handover_s(items, batch_size=8)
    assert seconds is not None and seconds > 0
    assert set(threading.enumerate()) == threads_before  # resource sharer stopped
    from multiprocessing import resource_sharer

    assert resource_sharer._resource_sharer._address is None


def test_a_batch_that_does_not_collate_is_not_measured() -> None:
    assert handover_s([object(), object()], batch_size=2) is None
    assert handover_s([], batch_size=2) is None
