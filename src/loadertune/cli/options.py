"""Command-line parameters shared by several commands."""

from __future__ import annotations

from typing import Annotated

import typer

DatasetArg = Annotated[str, typer.Argument(
    help="module:attr or path/script.py:attr naming a Dataset, a DataLoader, a "
         "LightningDataModule or a zero-argument factory of one")]
BatchSizeOpt = Annotated[int | None, typer.Option(
    "--batch-size", "-b", help="Batch size [default: the DataLoader's, else 32].",
    show_default=False)]
SplitOpt = Annotated[str, typer.Option(
    help="Which loader of a LightningDataModule: train or val.")]
