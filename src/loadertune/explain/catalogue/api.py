"""How the DataLoader is called: options that cannot go together, the iterator's API."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, PERSISTENT
from loadertune.explain.signature import Signature, exc, frame, near, raised_in, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "invalid_loader_args", "DataLoader options that cannot go together",
        (text(r"prefetch_factor option could only be specified in multiprocessing", 4,
              key=True),
         text(r"persistent_workers option needs num_workers > 0", 4, key=True),
         # the same told in words (a fix's title): persistent workers without any workers
         # ("num_workers > 0" is not "num_workers 0")
         text(near(PERSISTENT, r"num_?workers(?![^\n]{0,3}[<>])\W{0,3}(?:=|==|is|was"
                   r"|set to|of)?\s*(?:0|zero)\b|\b(?:number of )?workers (?:is |was )?(?:set to )?"
                   r"(?:0|zero)\b|not using multi-?processing|without (?:multi-?processing"
                   r"|workers)", 150), 3, key=True),
         # prefetch_factor given while num_workers stays 0 (the default)
         text(near(r"prefetch_factor", r"num_?workers\s*(?:=|==|is|of)?\s*(?:0|zero)\b|default "
                   r"(?:\w+\.)?num_?workers|without (?:any )?workers|\bno workers", 100), 2.5,
              key=True),
         text(r"num_workers option should be non-negative", 4, key=True),
         # an option reassigned on a DataLoader already built
         text(r"\w+ attribute should not be set after DataLoader is initialized", 4, key=True),
         text(r"timeout option should be non-negative", 4, key=True),
         # timeout with num_workers=0: the single-process iterator's own assert
         text(r"assert self\._timeout == 0", 4, key=True),
         text(r"(?:sampler|batch_sampler|batch_size=None) option (?:is|disables auto-batching "
              r"and is) mutually exclusive", 4, key=True),
         text(r"DataLoader with IterableDataset: expected unspecified \w+ option", 4, key=True),
         text(r"multiprocessing_context option should (?:specify a valid start method|be a "
              r"valid context)", 4, key=True)),
        "the DataLoader refuses a combination of options: prefetch_factor, persistent_workers "
        "and timeout only apply to worker processes (num_workers > 0); shuffle and sampler, "
        "batch_sampler and batch_size/shuffle/sampler/drop_last exclude each other; an "
        "IterableDataset takes no sampler or shuffle; dataset, batch_size and sampler cannot be "
        "reassigned on a DataLoader already built",
        "the DataLoader(...) call: the options the message names",
        "drop the option the message names (prefetch_factor=None when num_workers=0; shuffle "
        "inside the sampler; shard an IterableDataset yourself)",
        priority=90),
    Signature(
        "iterator_next_removed", "the loader's iterator has no .next() method",
        (text(r"'(?:_(?:MultiProcessing|SingleProcess)DataLoaderIter|DataLoader)' object has no "
              r"attribute 'next'", 4, key=True),
         text(r"(?i)(?:data_?iter|iterator|\w+_iter)\.next\(\)", 1)),
        "DataLoader iterators are Python iterators: `it.next()` was an alias removed in torch "
        "1.13 (old tutorials and notebooks still call it); a DataLoader itself never had it",
        "the line that calls `.next()` on `iter(loader)`",
        "use `next(it)` instead of `it.next()` (on a loader: `next(iter(loader))`)",
        priority=90),
    Signature(
        "loader_exhausted", "next() found no batch: the iterator is used up or the loader empty",
        # StopIteration out of the loader's own __next__ (a bare one: the message is empty)
        (text(r"(?m)^StopIteration:?\s*$", 2.5, key=True),
         # the loader's source line that raised it (torch's "# may raise" comments are not)
         text(r"(?m)^(?:-->)?[\s\d]*raise StopIteration\b|batches_outstanding == 0", 1.5,
              key=True),
         frame(r"dataloader\.py in (?:__next__|_next_data)$", 0.5),
         # told in words, in a text about the loader
         text(r"(?i)(?<!may raise )(?<!except )\bStopIteration\b(?!:?\s*$)", 1.5, key=True),
         # a loader that yields nothing: fewer samples than one batch, the rest dropped
         text(r"(?i)\blen\((?:\w*_)?(?:loader|dl)\)\s*(?:==|is|was|returns?)\s*0\b"
              r"|drop_last\s*=\s*True", 1)),
        "a DataLoader iterator is a one-pass Python iterator: `next(it)` after the epoch's last "
        "batch raises StopIteration, and a loader with no batch at all (fewer samples than one "
        "batch with drop_last=True, or a sampler that drops incomplete batches, or an empty "
        "dataset) raises it on the first next()",
        "`print(len(dataset), len(loader))`: 0 batches means the loader is empty",
        "make a new iterator per pass (`for batch in loader:` does it each epoch; or catch "
        "StopIteration and call iter(loader) again); for an empty loader, a batch_size no "
        "larger than the dataset, or drop_last=False",
        priority=70, context=ABOUT_LOADING),
    Signature(
        "batch_sampler_as_sampler", "a batch sampler was passed as sampler=",
        # a sampler that yields lists of indices, given where single indices are expected
        (text(r"(?<![\w.])sampler\s*=\s*(?:[\w.]+\.)?\w*Batch\w*Sampler\(", 3.5, key=True),
         text(near(r"\b\w*Batch\w*Sampler\b", r"\bDataLoader\([^)\n]*(?<![\w.])sampler\s*=",
                   800), 2.5, key=True),
         # a list for an index, raised in the dataset's __getitem__ called by the loader's
         # fetch of single indices: the loader's sampler yields lists
         exc(r"list indices must be integers or slices, not list|unhashable type: 'list'"
             r"|only integer tensors of a single element can be converted to an index", 1.5,
             key=True),
         frame(r"fetch\.py in (?:<listcomp>|fetch)$", 0.5),
         raised_in(r" in __getitem__$", 1),
         text(r"(?<![\w.])batch_sampler\s*=", -3)),
        "a batch sampler yields a list of indices per step; passed as DataLoader(sampler=...) "
        "it is treated as a sampler of single indices, so each whole list reaches the "
        "dataset's __getitem__ as one index (and batch_size more of them are batched on top): "
        "the dataset fails on a list it cannot index with, or batches come out nested",
        "`next(iter(sampler))`: a list of indices means it belongs in batch_sampler=",
        "DataLoader(dataset, batch_sampler=sampler, ...) without batch_size, shuffle, sampler "
        "and drop_last (the batch sampler decides them)",
        priority=80, context=ABOUT_LOADING, explains=("worker_exception",)),
)
