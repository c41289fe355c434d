"""Command-line parameters shared by several commands."""

from __future__ import annotations

from typing import Annotated

import typer

DatasetArg = Annotated[str, typer.Argument(
    help="module:attr or path/script.py:attr naming a Dataset or a zero-argument factory")]
BatchSizeOpt = Annotated[int, typer.Option("--batch-size", "-b", help="Batch size.")]
