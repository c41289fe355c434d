"""How the DataLoader is called: options that cannot go together, the iterator's API."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, PERSISTENT
from loadertune.explain.signature import Signature, exc, frame, near, raised_in, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "invalid_loader_args", "DataLoader options that cannot go together",
        (text(r"prefetch_factor option could only be specified in multiprocessing", 4,
              key=True),
         # num_workers computed with / (a float): the iterator cycles over range() of it
         text(near(r"range\(self\._num_workers\)", r"'float' object cannot be interpreted as an "
                   r"integer", 400), 3.5, key=True),
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
         text(r"\w+ attribute should not be set after \w*Loader is initiali[sz]ed", 4, key=True),
         text(r"(?:timeout|prefetch_factor) option should be non-negative", 4, key=True),
         # prefetch_factor=None (torch >= 2.0's default) reaching an older torch's check
         text(near(r"assert (?:self\.)?prefetch_factor > 0",
                   r"'>' not supported between instances of 'NoneType' and 'int'", 400), 4,
              key=True),
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
        "reassigned on a DataLoader already built (code written for torch < 1.3, or a wrapper "
        "library that does it); torch < 2.0 takes no prefetch_factor=None; num_workers must be "
        "an int (a count computed with / is a float: 1.0)",
        "the DataLoader(...) call: the options the message names",
        "drop the option the message names (prefetch_factor=None when num_workers=0; shuffle "
        "inside the sampler; shard an IterableDataset yourself); compute counts with //",
        priority=90),
    Signature(
        "iterator_next_removed", "the loader's iterator has no .next() method",
        (text(r"'(?:_(?:MultiProcessing|SingleProcess)DataLoaderIter|DataLoader)' object has no "
              r"attribute 'next'", 4, key=True),
         # next() on the loader itself
         text(r"'DataLoader' object is not an iterator", 4, key=True),
         text(r"(?i)(?:data_?iter|iterator|\w+_iter)\.next\(\)", 1)),
        "DataLoader iterators are Python iterators: `it.next()` was an alias removed in torch "
        "1.13 (old tutorials and notebooks still call it); a DataLoader itself never had it "
        "and is no iterator: next(loader) needs iter(loader) first",
        "the line that calls `.next()` on `iter(loader)`",
        "use `next(it)` instead of `it.next()` (on a loader: `next(iter(loader))`)",
        priority=90),
    Signature(
        "module_name_shadowed", "a module's name was rebound to a value",
        (text(r"'(?:numpy\.ndarray|list|dict|str|int|tuple|Tensor|DataFrame|function)' object "
              r"has no attribute '(?:Dataset|DataLoader|TensorDataset|IterableDataset|Sampler|"
              r"utils|data)'", 4, key=True),),
        "the code imports a module under a short name (from torch.utils import data; import "
        "numpy as np) and later assigns a value to that name (data = np.load(...)), so "
        "data.Dataset looks the class up on the array instead of the module",
        "grep the script for the name before the dot in the error (e.g. '^\\s*data\\s*=')",
        "rename the variable, or use the full module path (torch.utils.data.Dataset)",
        priority=88),
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
              r"|drop_last\s*=\s*True", 1),
         text(r"`?Dataloader`? returned 0 length\. Please make sure that it returns at least "
              r"1 batch", 3, key=True),
         # told in words: the loop over the loader never runs
         text(r"(?i)\b(?:does ?n'?t|does not|did ?n'?t|did not|never)\s+(?:even\s+)?"
              r"(?:enters?|go(?:es)? into)\s+the\s+(?:for[- ])?loop\b", 2, key=True),
         text(near(r"\b(?:data ?)?loader\b[^.\n]{0,20}\bof length 0\b|\blength 0 loader\b",
                   r"batch_size\s*>|\bbatch size (?:is )?(?:larger|bigger|greater)\b|drop_last",
                   300), 3, key=True)),
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
    Signature(
        "subset_getitems_bypass", "the loader calls Subset.__getitems__, not the subclass's "
        "__getitem__",
        (text(r"overrides __getitem__ but not __getitems__", 4, key=True),
         text(near(r"\bSubset", r"__getitems__", 600), 3, key=True),
         # a Subset subclass with its own __getitem__
         text(near(r"\bclass \w+\(\s*(?:[\w.]+\.)?Subset\s*\)", r"\bdef __getitem__\(", 600),
              2.5, key=True)),
        "torch 2.x's Subset has a __getitems__ that the DataLoader calls with a whole batch of "
        "indices; a Subset subclass that overrides only __getitem__ is passed over (the loader "
        "reads the wrapped dataset directly, so the subclass's changes never reach a batch), "
        "and newer releases refuse such a class when it is built",
        "`type(subset).__getitems__ is torch.utils.data.Subset.__getitems__` while the class "
        "defines its own __getitem__",
        "add `def __getitems__(self, indices): return [self[i] for i in indices]` to the "
        "subclass, or wrap the dataset in a plain Dataset instead of subclassing Subset",
        priority=88, explains=("collate_list_field", "per_sample_overhead", "worker_exception")),
    Signature(
        "loader_iterator_pickled", "a DataLoader iterator was pickled or deep-copied",
        (text(r"_(?:MultiProcessing|SingleProcess)DataLoaderIter\W{0,4}\s*cannot be pickled"
              r"|cannot be pickled'?,\s*'_(?:MultiProcessing|SingleProcess)DataLoaderIter", 4,
              key=True),
         text(r"(?i)can(?:not|'t) (?:be )?pickle\w*[^.\n]{0,40}(?:DataLoader ?Iter\w*|loader "
              r"iterator)", 2.5, key=True)),
        "an object that is pickled or deep-copied holds a live DataLoader iterator "
        "(iter(loader) kept as an attribute of a model, LightningModule, trainer or dataset): "
        "a checkpoint that saves the object, copy.deepcopy (an EMA copy, saved "
        "hyperparameters) or spawn sending it to a process pickles the iterator, and loader "
        "iterators refuse, since they own worker processes and queues",
        "find the attribute: [k for k, v in vars(obj).items() if 'DataLoaderIter' in "
        "type(v).__name__]",
        "keep the iterator out of the object's state: create it where it is used, or drop it "
        "in __getstate__ (state.pop('_iter', None)) and create it again when needed",
        priority=88, explains=("unpicklable_object", "pickle_local_object", "worker_exception")),
    Signature(
        "loader_not_indexable", "a DataLoader was indexed like a list",
        (text(r"'DataLoader' object is not subscriptable|'DataLoader' object does not support "
              r"indexing", 4, key=True),),
        "a DataLoader is an iterable of batches, not a sequence: loader[i] has nothing to "
        "return (the batches do not exist until the loop asks for them, and shuffling "
        "changes them each epoch)",
        "the line that indexes the loader",
        "loop over it (`for batch in loader`), take one batch with next(iter(loader)), or "
        "index the dataset (loader.dataset[i]) for one sample",
        priority=90),
    Signature(
        "iterable_dataset_no_len", "len() of a loader whose IterableDataset has no length",
        (text(near(r"object of type '\w+' has no len\(\)", r"dataloader\.py|IterableDataset"
                   r"|len\((?:self\.)?\w*loader\w*\)", 2000), 3.5, key=True),
         raised_in(r"torch/utils/data/dataloader\.py in __len__$", 2, key=True),
         # a DataPipe (torchdata, torchtext's datasets) asked for a length it cannot know
         text(r"\w+(?:Iter)?DataPipe instance doesn'?t have valid length", 4, key=True),
         # Lightning sizing a stream's epoch as inf, then a fraction of it as an int
         text(near(r"cannot convert float infinity to integer", r"num_training_batches|"
                   r"val_check_\w+|IterableDataset", 1500), 3.5, key=True)),
        "len(loader) is the dataset's length (over batch_size); an IterableDataset (a stream, "
        "a streaming Hugging Face dataset, WebDataset) usually has no __len__, so anything "
        "that asks for the loader's length (a progress bar, a scheduler's total steps, a "
        "Trainer sizing an epoch) fails",
        "`hasattr(dataset, '__len__')` is False for the dataset the loader wraps",
        "give the dataset a __len__ when the count is known (with_length() in WebDataset), "
        "or tell the consumer the length (max_steps in a Trainer, total= for a progress bar)",
        priority=86, explains=("worker_exception",)),
    Signature(
        "iterable_len_mismatch", "an IterableDataset's __len__ is not what the loader yields",
        (text(near(r"\bIterableDataset\b", r"\bdef __len__\b|`__len__`|\b__len__ defined\b", 1500),
              1.5, key=True),
         text(r"(?i)\bvalidation(?:_step)?\b[^.\n]{0,60}\bnever\b|\bnot (?:being )?called\b"
              r"|\bbatch_size\b", 0.5)),
        "len(loader) of an IterableDataset is len(dataset) itself, not divided by the batch "
        "size (torch cannot know how the stream batches), and with several workers each "
        "yields its own stream; a __len__ that counts samples, or the samples of one worker, "
        "makes a trainer plan too many or too few batches per epoch: validation that should "
        "run at the epoch's end never does, epochs end early, progress bars are wrong",
        "compare len(loader) with the number of batches one epoch really yields",
        "drop __len__ from the IterableDataset (give the trainer max_steps or a batch "
        "count), or make it return the batches one epoch yields across all workers",
        priority=86, explains=("code_assumes_batch_size_one",)),
    Signature(
        "epoch_never_ends", "the loader's epoch has no end",
        # an iterator that loops forever: a "for batch in loader" that never finishes
        (text(near(r"\b(?:loop\w*|iterat\w*|runs?|running|goes|going|keeps?)\s+(?:on\s+)?"
                   r"(?:indefinitely|forever|infinitely|endlessly)\b|\binfinite(?:ly)? "
                   r"(?:loop|iterat\w*)|\bnever (?:ends?|stops?|finish\w*|terminat\w*)\b",
                   r"\biterator\b|\bloader\b|\bepoch\b|DALI\w*Iterator", 300), 3, key=True),
         # DALI's iterator with neither reader_name nor size
         text(near(r"DALI(?:Generic|Classification)Iterator", r"\breader_name\b", 1500), 1.5)),
        "the loader (or the iterator that stands in for it) never raises StopIteration: an "
        "IterableDataset or generator that loops forever, or an external iterator that is "
        "not told the epoch's size (DALI's DALIGenericIterator without reader_name= or "
        "size=), so `for batch in loader` never ends and the next epoch, validation or the "
        "end of training never comes",
        "count the batches of one pass (for i, _ in enumerate(loader)) against len(dataset) / "
        "batch_size: the count runs past it",
        "end each pass: give the iterator its size (DALI: reader_name='Reader' or size=), let "
        "__iter__ stop after one pass, or bound the loop (itertools.islice, max_steps)",
        priority=80, context=ABOUT_LOADING),
)
