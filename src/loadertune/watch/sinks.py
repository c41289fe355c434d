"""Send a summary to a metrics writer (TensorBoard's ``SummaryWriter`` or anything alike)."""

from __future__ import annotations

from typing import Any, Protocol

from loadertune.watch.summary import WatchSummary


class ScalarWriter(Protocol):
    """What is needed of a writer: TensorBoard's ``SummaryWriter.add_scalar``."""

    def add_scalar(self, tag: str, scalar_value: float, global_step: int | None = None) -> Any: ...


def log_to_writer(writer: ScalarWriter, summary: WatchSummary, global_step: int | None = None,
                  prefix: str = "loadertune/watch") -> None:
    """Write the summary's numbers as scalars and, if the writer has ``add_text``, the verdict.

    Under torchrun, tags get a ``rank<N>/`` level so ranks writing to one log dir stay apart.
    """
    if summary.rank.world_size > 1:
        prefix = f"{prefix}/rank{summary.rank.rank}"
    for name, value in summary.scalars().items():
        writer.add_scalar(f"{prefix}/{name}", value, global_step)
    add_text = getattr(writer, "add_text", None)
    if callable(add_text):
        add_text(f"{prefix}/verdict", f"{summary.verdict.text}\n\n{summary.verdict.reasoning}",
                 global_step)
