"""Noise that looks like an error but did not fail the run."""

from __future__ import annotations

from loadertune.explain.catalogue.common import DATAPIPE_LAMBDA_WARNING
from loadertune.explain.signature import Signature, frame, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "harmless_shutdown", "probably harmless: errors printed while shutting down",
        (text(r"Exception ignored in:? ?<(?:bound method |function )?[\w.]*"
              r"(?:DataLoaderIter|Loader)\w*\.__del__", 3, key=True),
         text(r"Exception ignored in", 1, key=True),
         text(r"Python is likely shutting down|sys\.meta_path is None", 2, key=True),
         text(r"can only (?:test|join) a child process", 1.5, key=True),
         # CUDA tensors shared with workers outlived the process that made them (at exit)
         text(r"Producer process has been terminated before all shared CUDA tensors "
              r"released", 3, key=True),
         frame(r"in _shutdown_workers$", 1),
         # multiprocessing's resource tracker counting semaphores left at exit
         text(r"There appear to be \d+ leaked semaphore objects? to clean up at shutdown", 3,
              key=True),
         # torch's module globals already set to None when the iterator's __del__ ran at exit
         text(r"NoneType\W{0,2}(?: object)? has no attribute \W{0,2}(?:python_exit_status"
              r"|_shutdown_workers|MP_STATUS_CHECK_INTERVAL)\b", 3, key=True),
         # a worker/pin-memory thread's trace printed after training ended
         text(r"(?i)(?<!to )finish\w* training|training (?:is |has )?(?:finished|completed|done"
              r"|ended)",
              1.5, key=True),
         text(r"(?i)(?:can|could|may) (?:safely )?(?:be )?(?:ignored?|dismiss\w*)|is harmless"
              r"|no effect on (?:the )?training", 1.5),
         frame(r"in __del__$", 0.5)),
        "a DataLoader iterator was cleaned up after its workers were gone (interpreter "
        "shutdown, a loop left early, an iterator copied into another process): Python "
        "prints 'Exception ignored' and carries on; batches and results are not affected",
        "the run finished (or continued) after these lines; nothing else failed",
        "nothing required; to silence it, exhaust or `del` the iterator before exit, use "
        "persistent_workers=True, and don't pass iterators to other processes",
        priority=20, harmless=True),
    Signature(
        "harmless_tokenizers_fork", "probably harmless: tokenizers disabled its thread pool",
        (text(r"huggingface/tokenizers: The current process just got forked", 4, key=True),
         text(r"(?i)current process just got forked[^\n]*Disabling parallelism", 3, key=True),
         text(r"TOKENIZERS_PARALLELISM", 1, key=True),
         text(r"Avoid using `?tokenizers`? before the fork if possible", 3, key=True)),
        "a fast (Rust) tokenizer was used before DataLoader workers forked; in each worker it "
        "turns its own thread pool off to avoid a deadlock and says so. Tokenising still "
        "works (single-threaded per worker)",
        "`echo $TOKENIZERS_PARALLELISM` (unset: each forked worker prints the warning once)",
        "set TOKENIZERS_PARALLELISM=false (workers already parallelise), or tokenize only "
        "inside the workers",
        priority=20, harmless=True),
    Signature(
        "harmless_rss_shared", "probably harmless: RSS counts shared pages in every worker",
        (text(near(r"\bRSS\b|\bresident (?:set|memory)", r"\bmmap\w*|memory[- ]mapp\w*|\barrow\b"
                   r"|\b(?:hf|hugging ?face) datasets\b|np\.memmap|\blmdb\b|page cache", 300), 3,
              key=True),
         # a static dataset that seems copied into each worker: the pages are shared
         text(near(r"(?:memory|ram)\b[^.\n]{0,60}\b(?:increas\w*|grow\w*|scal\w*|multipl\w*)"
                   r"\s+linearly|linearly[^.\n]{0,40}\b(?:memory|ram)\b",
                   r"(?:number of |num_?)workers", 150), 2.5, key=True),
         text(near(r"\b(?:own|a|its) (?:replica|copy) of the dataset|\bdataset (?:is )?(?:copied|"
                   r"replicated|duplicated)", r"\bworkers?\b|\bprocess\w*", 150), 1),
         text(r"(?i)\b(?:PSS|USS)\b|smaps", 0.5)),
        "RSS counts every page a process maps, shared or not: pages of memory-mapped files "
        "(Hugging Face datasets' Arrow tables, np.memmap, LMDB) as they are read, and the "
        "parent's arrays each forked worker still shares; summed over workers they multiply "
        "a dataset that is in memory once, and mapped pages are page cache the kernel gives "
        "back under pressure",
        "`loadertune bench DATASET` reports PSS and USS per worker: USS stays flat while RSS "
        "grows or multiplies; or cap the run's memory (systemd-run --scope -p MemoryMax=...) "
        "and see it finish",
        "nothing to fix; watch PSS/USS rather than RSS. If the machine does run out, it is "
        "another cause (copy-on-read lists, a real leak)",
        priority=25, harmless=True),
    Signature(
        "harmless_worker_warning", "probably harmless: a warning by or about the workers",
        (text(r"does not have many workers which may be a bottleneck", 3, key=True),
         # Lightning telling what it adjusted or what the logs will lack
         text(r"The number of training batches \(\d+\) is smaller than the logging interval",
              3, key=True),
         text(r"You requested to overfit but enabled \w+(?:/\w+)? dataloader shuffling", 3,
              key=True),
         # datasets could not fingerprint a map's arguments: it recomputes, nothing fails
         text(r"couldn't be hashed properly, a random hash was used instead", 3, key=True),
         # torchvision's read_video: pts only matters for seeking and audio/video sync
         text(r"The pts_unit 'pts' gives wrong results", 3, key=True),
         # a feature extractor called without the rate it was given elsewhere: advice only
         text(r"It is strongly recommended to pass the `?sampling_rate`? argument to this "
              r"function", 3, key=True),
         text(r"Consider setting `?persistent_workers=True`?", 2.5, key=True),
         text(r"(?i)Consider increasing the value of the `?num_workers`? argument", 2.5,
              key=True),
         # each worker sets one intra-op thread; native backends warn once per worker
         text(r"Cannot set number of intraop threads after parallel work has started", 3,
              key=True),
         # default_collate turning a read-only numpy array into a tensor
         text(r"The given NumPy array is not writ(?:e)?able", 2.5, key=True),  # both spellings
         # Lightning: workers under ddp_spawn pay a process start each: slow, not broken
         text(r"Dataloader\(num_workers>0\) and ddp_spawn do not mix well", 3, key=True),
         # deprecations raised from torch's or a library's data path, not by the user's code
         text(r"TypedStorage is deprecated", 2.5, key=True),
         # a forked worker drops the thread pool it inherited and says so
         text(r"Leaking Caffe2 thread-?pool after fork", 3, key=True),
         # Python 3.12+: fork from a process with threads (torch's pools) warns in every run
         text(r"is multi-threaded, use of fork\(\) may lead to deadlocks in the child", 3,
              key=True),
         # the Lightning hint named and dismissed in words
         text(near(r"\bnum_workers\b[\"'`]? warn\w*|\bwarn\w* (?:about )?(?:the )?[\"'`]?"
                   r"num_workers",
                   r"\bsilenc\w*|not worth worrying|\bsuppress\w*|\bharmless\b", 150), 2.5,
              key=True),
         text(r"output with one or more elements was resized since it had shape", 2.5,
              key=True),
         # torch's own DataLoader code warning about an argument it passes itself
         text(near(r"DeprecationWarning|FutureWarning", r"torch/utils/data/", 300), 2.5,
              key=True),
         # a DataPipe built with a lambda (a library's dataset, torchtext's) warns at once;
         # nothing fails without workers
         text(DATAPIPE_LAMBDA_WARNING, 2.5, key=True),
         text(r"PossibleUserWarning|UserWarning|\[W \w+\.cpp:\d+\]", 0.5)),
        "a warning, not an error: a library (Lightning, most often) suggests more or "
        "persistent workers for speed, a worker notes its thread setting, collate copies "
        "a read-only array, or torch's own (or a library's) data code uses something torch "
        "has since deprecated (an argument, TypedStorage, resizing an out tensor), or Python "
        "3.12+ notes that the workers were forked from a process with threads, or a "
        "DataPipe notes a lambda it could not pickle for workers; nothing failed",
        "the run goes on after the warning",
        "`loadertune tune` finds num_workers and prefetch for this machine; or silence the "
        "warning (np.array(x, copy=True) for the read-only array; "
        "multiprocessing_context='forkserver' for the fork warning)",
        priority=15, harmless=True),
)
