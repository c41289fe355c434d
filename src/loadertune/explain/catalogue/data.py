"""The dataset itself: sharding, seeding, memory, batch shapes, file handles, retries."""

from __future__ import annotations

from loadertune.explain.catalogue.common import (
    ABOUT_LOADING,
    GROWING,
    MEMORY_GROWS,
    NUM_WORKERS_ZERO_WORKS,
)
from loadertune.explain.signature import Signature, frame, near, phrase, text

# SQLite's own words for a connection used by several processes at once
SQLITE_SHARED = r"database (?:is locked|disk image is malformed)"
HANDLE_LIBS = (r"(?:lmdb|h5py|hdf5|pytables|HDF5ExtError|\.h5\b|zipfile|tarfile|sqlite|"
               + SQLITE_SHARED + r"|database (?:connection|handle)|\bdb connection|pymongo|psycopg"
               r"|tiffslide|openslide|tifffile|\.svs\b|\bzarr\b|netcdf|rasterio)")
# fine with one worker (or none), broken with more: state the workers share
ONE_WORKER_FINE = near(r"num_?workers`?\W{0,6}(?:=|==|is|are)?\s*(?:(?:0|zero) or )?(?:1|one)\b",
                       r"num_?workers`?\s*(?:>|>=)\s*1\b|num_?workers`?\s*=\s*(?:[2-9]|\d{2,})\b"
                       r"|more (?:data ?loader )?(?:processes|workers)", 300)
MANY_PROCS = (r"(?:num_?work|(?:multiple|several|many|different) (?:processes|workers)"
              r"|multi-?process)")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "iterable_duplicates", "an IterableDataset yields duplicates across workers",
        (text(phrase("Length of IterableDataset"), 3, key=True),
         # webdataset: every rank would read the same shards unless a nodesplitter is given
         text(r"(?i)(?:input )?pipeline needs to be reconfigured for multi-?node training", 4,
              key=True),
         text(phrase("not properly configuring the IterableDataset replica at each worker"), 3,
              key=True),
         text(r"(?i)iterable[ -]?datasets?[^\n]*duplicat|duplicat[^\n]*iterable[ -]?datasets?", 3,
              key=True),
         text(r"(?i)(?:repeated|duplicat\w*)[^\n]{0,60}(?:num_?work\w*|workers?|multi-?process)"
              r"|(?:num_?work\w*|workers?|multi-?process\w*)[^\n]{0,80}(?:repeated|duplicat\w*)",
              2, key=True),
         text(r"(?i)num_?workers?[^\n]{0,40}affects?[^\n]{0,40}(?:number|batches|samples)",
              2, key=True),
         text(near(r"\b(?:outputs?|yields?|gives?|produces?|returns?)\s+\d{2,}\s+(?:mini-?)?"
                   r"batch(?:es)?\b", r"\bexpect\w*|\bshould\b", 400), 2, key=True),
         # an epoch's length that changes with the worker count
         text(r"(?i)num_?workers?\W{0,3}(?:>|=|is|are|of)?\s*\d*[^\n]{0,40}\b(?:steps|batches|"
              r"samples|iterations|length)\b[^\n]{0,40}\b(?:wrong|incorrect|multipl\w*|"
              r"doubled|too many|more than)", 2, key=True),
         text(r"(?i)(?:every|each|all(?: the)?)\s+(?:samples?|items?|batch(?:es)?|examples?"
              r"|records?|rows?|lines?)[^\n]{0,40}?\b(?:\d+|num_workers|multiple|several|n)"
              r"\s+times\b|\b(?:samples?|items?|data|batch(?:es)?|examples?)[^\n]{0,30}"
              r"\b(?:twice|duplicated|repeated)\b", 2, key=True),
         text(r"(?i)\bsame (?:batch|sample|item|example|data)\w*[^\n]{0,40}(?:over and over|"
              r"again|repeated\w*|\d+ times|multiple times|several times)", 2, key=True),
         text(near(r"\b(?:each|every) (?:data ?loader )?worker",
                   r"(?:own )?cop(?:y|ies) of the (?:full|whole|entire) (?:dataset|data|stream"
                   r"|datapipe|pipeline)|the (?:full|whole|entire) (?:dataset|stream|datapipe)",
                   100), 2.5, key=True),
         text(r"(?i)\bshard\w*\b[^\n]{0,60}\b(?:across|between|among|per|by)\s+(?:the\s+)?"
              r"(?:\w+\s+)?workers?\b", 2, key=True),
         # the stream not split: "sharding was not enabled", "reads the records multiple
         # times", webdataset refusing to run on several ranks without a node splitter
         text(r"(?i)\bshard(?:ing)?\s+(?:was|is)\s+(?:not|n't)\s+(?:enabled|implemented|supported|"
              r"done)|\bwithout\s+(?:any\s+)?sharding\b|\bno\s+sharding\b|\bnot\s+sharded\b", 2.5,
              key=True),
         text(r"(?i)\b(?:read|yield|load|return|process|go(?:es)? through|iterat)\w*\s+(?:over\s+)?"
              r"(?:the\s+|each\s+|every\s+|all\s+)?(?:\w+\s+){0,2}(?:multiple|several|\d+|"
              r"num_workers) times\b", 2, key=True),
         text(r"explicit nodesplitter|nodesplitter=|split_by_node", 3, key=True),
         text(r"(?i)IterableDataset|iterable[- ]style|iterable dataset|streaming|datapipe", 1),
         text(r"(?i)random|seed|np\.random", -1),
         text(r"(?i)\bmemory\b|\bRAM\b|\bOOM\b|copy[- ]on[- ]|refcount|reference count", -2)),
        "every worker (and every rank) runs its own copy of the IterableDataset's __iter__; "
        "without sharding by worker and rank each yields the whole stream, so samples repeat "
        "num_workers (x ranks) times",
        "count samples in an epoch with num_workers=0 and num_workers=2: they differ",
        "in __iter__, use torch.utils.data.get_worker_info() to take every num_workers-th "
        "item (or split the files/shards) per worker id, and per rank in a multi-GPU job "
        "(webdataset: nodesplitter=wds.split_by_node)",
        priority=70),
    Signature(
        "numpy_seed_workers", "workers repeat the same random augmentations",
        (text(r"(?i)(?:same|identical)[^\n]{0,60}random|random[^\n]{0,80}(?:same|identical)",
              2, key=True),
         text(r"(?m)^(\[[\d\s.,-]+\])\n(?:\1\n){3,}", 2, key=True),
         # the same, told in Chinese (随机 random, 一样/相同 the same)
         text(r"(?:隨機|随机)[^\n]{0,40}(?:一樣|一样|相同)|(?:相同|一樣|一样)[^\n]{0,40}(?:隨機|随机)",
              2, key=True),
         text(r"\b(\d+\.\d+)(?: \1\b){3,}", 1.5, key=True),
         # one seed for every worker: "default_rng(self.seed) in every dataloader worker",
         # "mixing the worker id into the seed"
         text(near(r"\bseed(?:s|ed)?\b", r"\b(?:every|each|all)\s+(?:the\s+)?(?:data ?loader\s+)?"
                   r"workers?\b|\bworker[ _]?id\b", 80), 2, key=True),
         # told as seeding: "equally seeded", "reseed torch's random states and not numpy"
         text(r"(?i)\b(?:equally|identically|same)[ -]seeded\b|re-?seed\w*[^\n]{0,60}\bnot\s+"
              r"(?:numpy|np)\b|(?:numpy|np\.random)[^\n]{0,40}\bnot\s+(?:re-?)?seeded", 2,
              key=True),
         # "does not exhibit random behaviour", and the post everyone cites about it
         text(r"(?i)(?:not|n't)\s+(?:\w+\s+){0,2}random\s+(?:behaviou?r|numbers|augmentations?)",
              1.5, key=True),
         text(r"a-bug-that-plagues-thousands-of-open-source-ml-projects", 2, key=True),
         text(r"(?m)^\[Worker (\d+)\] ([^\n:]+): ([\d.]+)\n\[Worker (?!\1)\d+\] \2: \3$", 2,
              key=True),
         text(near(r"\brandom\w*", r"\b(?:reused|repeated|repeating|recurring)\b", 100), 2,
              key=True),
         text(r"(?i)np\.random|numpy\.random|numpy random|random in numpy", 1),
         # the fix named with its purpose: a worker_init_fn for the randomness
         text(near(r"worker_init_fn", r"\brandom\w*|\bseed\w*", 80), 2, key=True),
         text(r"(?i)augment\w*|transform\w*", 0.5),
         text(r"(?i)worker_init_fn|seed", 0.5),
         NUM_WORKERS_ZERO_WORKS),
        "forked workers start as copies of the main process, including numpy's (or another "
        "library's) global random state, so each worker draws the same random numbers and "
        "applies the same augmentations (torch reseeds its own RNG and `random` per worker, "
        "not numpy's before torch 1.9 nor generators held by the dataset)",
        "print np.random.rand() in __getitem__ with num_workers=2: the workers print the same",
        "seed per worker: worker_init_fn=lambda i: np.random.seed(torch.initial_seed() % "
        "2**32), or use torch's RNG / np.random.default_rng created inside the worker",
        priority=65, context=ABOUT_LOADING),
    Signature(
        "too_few_shards", "fewer data shards than ranks x workers",
        (text(r"max is dataset\.n(?:um)?_shards=\d+", 4, key=True),
         # a stream split by node into parts of different sizes
         text(near(r"split_dataset_by_node", r"\bdifferent (?:amounts?|numbers?) of\b|\buneven\w*"
                   r"|\bnot (?:evenly|equally)\b", 600), 3, key=True),
         # webdataset: a worker given no shard
         text(r"(?i)perhaps you have fewer shards than workers", 4, key=True),
         text(r"(?i)\b(?:only|just|a single|one|fewer|too few|less|not enough)\s+(?:\w+\s+){0,2}"
              r"shards?\b", 2, key=True),
         text(r"(?i)\bnum_?shards?\b[^\n]{0,40}(?:<|less than|smaller than|fewer than)", 2,
              key=True),
         # the workers beyond the shard count get nothing
         text(near(r"\bn(?:um)?_?shards?\b|\bshards?\b", r"\bonly (?:\w+ ){0,2}worker 0\b"
                   r"|\bother workers? (?:\w+ ){0,2}(?:gets?|receiv\w*|sees?) (?:an? )?(?:empty"
                   r"|no data|nothing)|\bworkers? (?:\w+ )?(?:without|with no) data\b"
                   r"|\bidle workers\b", 300), 2.5,
              key=True),
         # more workers than shards: the extra ones idle, so adding workers changes nothing
         text(near(r"\bshards?\b|webdataset|\btar (?:files?|archives?)\b",
                   r"\bnum_?workers`?\s+(?:does(?:n'?t| not) (?:seem to )?(?:have|make)|has) "
                   r"(?:any |an? |no )?(?:effect|difference)|\bmore workers\b[^.\n]{0,30}"
                   r"(?:does(?:n'?t| not)|no) (?:help|speed|faster)", 800), 2.5, key=True),
         text(near(r"\bshards?\b", r"\bddp\b|distributed|\branks?\b|\bnodes?\b|world.?size"
                   r"|\bgpus\b", 300), 1),
         # an IterableDataset whose ranks get different amounts: the short one stops early
         text(near(r"\b(?:unequal|uneven|imbalanced|different)\s+(?:\w+\s+){0,2}(?:data|lengths?"
                   r"|sizes?|counts?|number of (?:batches|samples))", r"\branks?\b|\bgpus\b|\bddp\b"
                   r"|distributed", 200), 2.5, key=True),
         # an IterableDataset over several processes that hangs at the end of an epoch: a rank
         # ran out first and waits in a collective
         text(near(r"\biterable ?dataset\b", r"\b(?:hangs?|hanging|hung|stuck|freez\w*)\b"
                   r"[^.\n]{0,30}\b(?:at )?(?:the )?end of (?:an? |the |each |every |one |single "
                   r"|first )*epoch", 300), 2.5, key=True),
         text(r"(?i)webdataset|\bwds\.|split_by_node|split_by_worker|nodesplitter", 1),
         text(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez\w*|empty|no data|zero (?:samples|"
              r"batches))\b", 1)),
        "an IterableDataset is split by shards (files) over ranks x workers: with fewer shards "
        "than that, some workers or ranks get nothing; a rank whose data runs out early waits "
        "in the next collective (all-reduce, barrier) while the others still train, so DDP "
        "hangs, or an epoch comes out empty or short; Hugging Face datasets stops the extra "
        "workers instead, so loading runs on as many workers as there are shards",
        "count the shards against world_size x num_workers",
        "at least world_size x num_workers shards of similar size (more is better), fewer "
        "workers, or equal-length epochs per rank (webdataset: resampled=True / with_epoch(n))",
        priority=70, context=(text(r"(?i)shards?\b|iterable ?dataset|\bcollective\b|webdataset"),),
        explains=("worker_hang", "too_many_workers")),
    Signature(
        "image_cache_oom", "caching every decoded image in RAM runs out of memory",
        (text(near(r"--cache\b|\bcache=['\"]?ram\b|\bcache_images\b|\bCaching images\b",
                   r"\bkilled\b|\bout of memory\b|\bOOM\b|\bstops?\b|\bstopped\b|"
                   r"\bcrash\w*|\bRAM\b|\bmemory\b", 300), 3, key=True),
         text(r"(?i)\bGB RAM\b|\bcache=(?:ram|disk)\b", 0.5)),
        "the trainer's image cache (YOLO's --cache / cache=ram, a dataset that preloads) "
        "decodes every image into RAM before or during the first epoch: width x height x 3 "
        "bytes per image for the whole set (about 150 GB for COCO at 640), so memory runs "
        "out while caching and the process is killed",
        "estimate images x height x width x 3 bytes against free RAM (free -g); YOLO prints "
        "the GB it caches",
        "cache on disk (cache=disk) or not at all, cache a subset, or train at a smaller "
        "image size",
        priority=76, context=ABOUT_LOADING, explains=("worker_oom_killed",)),
    Signature(
        "cached_latents_with_augmentation", "cached encodings cannot take random augmentation",
        (text(r"when caching latents, either color_aug or random_crop cannot be used", 4,
              key=True),
         text(near(r"\bcach\w* (?:the )?latents?\b|\bcache_latents\b", r"\bcolor_aug\b"
                   r"|\brandom_crop\b|\baugment\w*|\bflip\w*", 200), 2.5, key=True)),
        "caching each image's encoded latents (or any preprocessed output) fixes its pixels "
        "once; random augmentation (color_aug, random_crop, flips) has to change them every "
        "step, so the trainer refuses both together",
        "look for cache_latents together with color_aug / random_crop in the config",
        "turn the augmentations off to cache, or stop caching to augment (flip_aug can be "
        "cached with both orientations in some trainers)",
        priority=80),
    Signature(
        "per_worker_cache", "a cache filled inside the workers is one cache per worker",
        # a dict or RAM cache the dataset fills as it reads: each worker fills its own copy
        (text(near(r"\bcache\s*=\s*(?:True|['\"]ram['\"])|\b(?:ram|memory|in-memory) cach\w*"
                   r"|\bcach\w* (?:the )?(?:images|samples|data|items|decoded\w*|features)\b"
                   r"|self\.cache\b", MEMORY_GROWS + r"|\bper[- ]worker\b|\beach worker\b", 200),
              4, key=True),
         # a RAM cache of images sized against the machine's memory (yolov3/5's --cache)
         text(near(r"\bcache[_-]?images?\b|\bcach\w* (?:\d+k? )?images\b",
                   r"\b\d+\s*GB?\b[^.\n]{0,20}(?:\bmemory\b|\bRAM\b)|\bfree (?:memory|RAM)\b"
                   r"|(?:memory|RAM) (?:runs? out|is full)", 200), 3, key=True),
         # a reader library's own cache per open file: OpenSlide keeps tiles per slide handle
         text(near(r"\b(?:openslide|tiffslide)\b", MEMORY_GROWS + r"|\bmemory leak", 300), 3,
              key=True)),
        "the dataset caches what it reads (a dict, a RAM cache of decoded images, a reader "
        "library's cache per open file such as OpenSlide's per slide handle) as it goes; "
        "each worker holds its own copy of the dataset, so each fills its own cache: memory "
        "grows with num_workers and through the first epochs, and without persistent "
        "workers the caches are thrown away and refilled every epoch",
        "`loadertune doctor DATASET` measures per-worker memory (PSS) over an epoch; the "
        "growth stops with num_workers=0",
        "fill the cache before the workers start (decode once into a numpy array or a shared "
        "tensor the workers read), or cache on disk (np.memmap, LMDB); persistent_workers="
        "True keeps a per-worker cache across epochs",
        priority=65, context=ABOUT_LOADING, probes=("memory",),
        explains=("copy_on_read_growth",)),
    Signature(
        "smart_cache_not_updated", "a smart cache serves the same subset every epoch",
        (text(near(r"\bSmartCache\w*", r"\bonly (?:sees|see|uses?|trains? on)\b|\bsubset\b"
                   r"|\bfraction\b|\bportion\b|\bsame (?:cases|samples|images)\b", 300), 3,
              key=True),
         text(r"\bupdate_cache\(\)|\breplace_rate\b", 1)),
        "MONAI's SmartCacheDataset keeps only cache_rate (or cache_num) of the data in memory "
        "and swaps in replace_rate of it when update_cache() is called; start(), "
        "update_cache() at each epoch end and shutdown() are the caller's job (Ignite's "
        "SmartCacheHandler does them): without them training sees the first cached subset "
        "every epoch",
        "print the ids of the first batch of two epochs: the same subset",
        "call train_ds.start() before training, train_ds.update_cache() after each epoch "
        "and train_ds.shutdown() at the end (a Lightning callback or Ignite's "
        "SmartCacheHandler), or use CacheDataset with cache_rate=1.0 when the data fits",
        priority=75),
    Signature(
        "copy_on_read_growth", "memory grows in every worker (copy-on-read)",
        (text(r"(?i)copy[- ]on[- ](?:read|access)", 3, key=True),
         text(r"(?i)(?:memory|\bRAM\b)[^\n]{0,80}(?:grow|increas|leak|goes up|keeps? (?:rising"
              r"|in\w*ea\w*ing|climbing))"
              r"|(?:grow|increas|leak)\w*[^\n]{0,40}memory|\b\d+\s*GB? (?:RAM )?(?:during|"
              r"over|per) (?:an |one |each )?epoch", 1.5, key=True),
         text(r"pytorch/pytorch/issues/13246", 2),
         # growth that goes on until the process is killed: the kill is its end, not its cause
         text(r"(?i)\b(?:memory|RAM)\b[^.\n]{0,60}(?:" + GROWING + r"|不断|持续)[^.\n]{0,40}"
              r"(?:\b(?:until|till|then)\b|直至|直到)[^.\n]{0,40}(?:\bkilled\b|\boom\b|\bcrash\w*"
              r"|100 ?%|被杀)", 2, key=True),
         # growth over the epoch is the mark of copy-on-read (a leak in the model grows by step)
         text(near(MEMORY_GROWS,
                   r"\b(?:during|over|through(?:out)?|within|in) (?:an |the |one |each )?"
                   r"(?:training )?epoch", 100), 2, key=True),
         # too much memory blamed on building the loaders or the dataset
         text(near(r"\b(?:too much|high|huge|a lot of|lots of|excessive)\s+(?:\w+\s+)?(?:ram"
                   r"|memory)|\b(?:ram|memory)\s+(?:usage\s+)?(?:is\s+)?(?:too high|explod\w*"
                   r"|ran out|runs? out)",
                   r"data ?loader\w*|\bdataset\w*|\bworkers?\b", 200), 1.5, key=True),
         text(r"(?i)copy[- ]on[- ]write|\bCoW\b", 1.5, key=True),
         text(r"(?i)reference counts?|refcounts?|ob_refcnt", 1.5),
         text(r"(?i)list\[dict\]|lists? of (?:dicts?|strings?|objects)", 1),
         text(r"(?i)num_workers\s*(?:>\s*0|is nonzero|=\s*[1-9])|workers", 0.5),
         text(r"(?i)\[str\(|list of|\bdict\b|pd\.read_\w+|DataFrame|self\.\w+ = \[", 1)),
        "each worker touches the dataset's Python objects (lists, dicts, pandas object "
        "columns); updating their reference counts writes to the pages, so every worker "
        "slowly gets its own copy of all of it: memory grows with num_workers and the epoch",
        "`loadertune doctor DATASET` measures per-worker memory (PSS) and flags "
        "Python-object lists",
        "store the data in numpy arrays, Arrow or torch tensors (one buffer, no per-item "
        "refcounts), or keep only file paths/offsets in the dataset",
        priority=60, context=ABOUT_LOADING,
        probes=("memory",)),
    Signature(
        "decoder_memory_leak", "the media decoder leaks memory with every item it decodes",
        # memory that grows with a video/audio decoder, also without workers
        (text(near(r"\bpyav\b|\bav==|\bimport av\b|\bdecord\b|torchvision\.io\.read_video"
                   r"|\btorchaudio\.load\b|\bffmpeg\b|\bVideoReader\b",
                   MEMORY_GROWS + r"|\b(?:memory|RAM)\b[^.\n]{0,20}\bleak\w*|\bleak\w*[^.\n]{0,20}"
                   r"\b(?:memory|RAM)\b|(?:memory|RAM) is (?:still |continu\w* )?grow\w*", 400), 3,
              key=True),
         # growth that num_workers=0 does not stop is not the workers' copies
         text(near(r"num_?workers\W{0,4}(?:=|to|as)?\s*0\b",
                   r"\bstill\b[^.\n]{0,30}(?:grow\w*|increas\w*|leak\w*|ris\w*)|(?:grow\w*"
                   r"|increas\w*|leak\w*)[^.\n]{0,30}\b(?:still|anyway|as well|too)\b", 200), 1.5)),
        "the library that decodes each sample (PyAV, decord, an ffmpeg binding) leaks memory "
        "on every clip or file it opens, so host RAM grows batch after batch, with or without "
        "workers, until an allocation fails or the OOM killer ends the run",
        "watch RSS while looping over `dataset[i]` alone in one process (no DataLoader): it "
        "grows with each item",
        "close every container/reader you open (container.close(), `with av.open(...)`), use "
        "another decoder or version (OpenCV, torchvision's video_reader, a newer PyAV/decord), "
        "or recycle the workers (persistent_workers=False) so each epoch starts fresh",
        priority=66, context=ABOUT_LOADING, probes=("memory",),
        explains=("copy_on_read_growth", "worker_oom_killed")),
    Signature(
        "shared_file_handle", "a file handle opened in __init__ is shared by the workers",
        (text(r"KeyError: .?Unable to open object", 3, key=True),
         text(r"(?i)bad object header|bad symbol table|object overruns|wrong b-tree", 2,
              key=True),
         text(r"(?i)(?:h5py\.File|lmdb\.open|zipfile\.ZipFile|tarfile\.open)\(", 1.5, key=True),
         text(near(HANDLE_LIBS, MANY_PROCS, 400), 1.5, key=True),
         text(ONE_WORKER_FINE, 1.5, key=True),
         # told in words: every process uses the one handle or connection
         text(near(r"\b(?:same|shared|single|one)\s+(?:[\w-]+\s+){0,2}(?:connection|handle)s?\b",
                   r"\bprocess(?:es)?\b|\bworkers?\b", 150), 1.5, key=True),
         text(near(r"segmentation fault|KeyError|corrupt|wrong|bigger than|crash", HANDLE_LIBS,
                   600), 2),
         text(r"(?i)\b(?:h5py|hdf5|lmdb|pytables)\b", 1),
         text("(?i)" + SQLITE_SHARED, 1.5, key=True),
         # the thread's answer: open / initialise the reader inside each worker
         text(r"(?i)(?:initiali[sz]\w*|open\w*|creat\w*)\s+(?:the\s+|a\s+|its\s+)?[\w ]{0,30}?"
              r"(?:within|inside|in)\s+(?:each|every)\s+worker", 2.5, key=True),
         frame(r"h5py|lmdb", 1),
         text(r"(?i)can'?t pickle|cannot pickle|cannot be pickled|not (?:be )?seriali[sz]"
              r"(?:able|ed)", -3),
         text(r"(?i)(?:doesn't|does not|don't) exist|not found", -6)),
        "an h5py/LMDB/zip handle or a database connection opened in the dataset's __init__ is "
        "inherited by every forked worker; the library's state (file offsets, caches, locks, "
        "the socket) is then shared and reads return garbage, KeyErrors or crash",
        "`loadertune doctor DATASET` (its pickling check names the open file the dataset "
        "holds)",
        "store only the path (or the connection's address) in __init__ and open the file or "
        "connection lazily in each worker (first __getitem__ or worker_init_fn)",
        priority=75, context=ABOUT_LOADING, min_score=2.5,
        explains=("worker_segfault", "worker_exited", "worker_exception")),
    Signature(
        "hdf5_file_lock", "several processes collide on an HDF5 file's lock",
        (text(r"unable to lock file, errno = 11", 4, key=True),
         text(r"(?i)unable to (?:open|lock) (?:the )?file[^\n]{0,80}(?:lock|errno = 11|Resource "
              r"temporarily unavailable)", 3, key=True),
         text(r"HDF5_USE_FILE_LOCKING", 2, key=True),
         text(r"(?i)\bh5py\b|\bhdf5\b|\.h5\b|h5f\.pyx", 1)),
        "HDF5 locks a file it opens (for writing, and since HDF5 1.10 for reading too); h5py "
        "before 3.0 opened files in append mode by default, so several processes (workers, "
        "DDP ranks) opening the same file collide on the lock: 'unable to lock file, errno = "
        "11'. On NFS or Lustre the lock itself can fail",
        "`python -c \"import h5py; print(h5py.__version__, h5py.version.hdf5_version)\"` and "
        "the mode the dataset passes to h5py.File",
        "open with h5py.File(path, 'r') (read-only, one handle per worker, opened lazily); "
        "export HDF5_USE_FILE_LOCKING=FALSE where several readers share a network file system",
        priority=78),
    Signature(
        "dataset_retry_recursion", "the dataset retries itself until RecursionError",
        (text(r"RecursionError|maximum recursion depth exceeded", 2, key=True),
         # the same overflow caught by the interpreter itself (faulthandler's dump follows)
         text(r"Fatal Python error: Cannot recover from stack overflow", 3, key=True),
         text(r"return self(?:\.__getitem__\(|\[)[^\n]*(?:random|randint|index ?\+ ?1|idx ?\+ "
              r"?1)", 2.5, key=True),
         frame(r" in (?:__getitem__|_?get_?item\w*|prepare_data|load_?\w*)$", 1.5, key=True,
               min_count=4),
         # a log cut before the RecursionError: the same __getitem__ line failing again
         # while its own failure is handled
         text(r"(?s)(File \"[^\"\n]+\", line \d+, in __getitem__)\n.{0,2000}?During handling of "
              r"the above exception, another exception occurred:.{0,2000}?\1", 2, key=True),
         # the same retry as a loop: no error, the first batch never comes
         text(near(r"__getitem__|\bdataset\b|\bdata ?loader\b", r"\b(?:stuck|hangs?|loops?)\b"
                   r"[^.\n]{0,30}\b(?:in|inside) (?:the|a|an|this) (?:while|infinite|endless) "
                   r"loop\b|\bwhile True\b[^.\n]{0,60}\b(?:never|forever|stuck)\b", 300), 2.5,
              key=True)),
        "__getitem__ catches a bad sample and calls itself with another index; when every "
        "sample fails (wrong path, missing files, a filter that rejects all) it recurses "
        "until Python's recursion limit (or, written as a loop, it never returns and the "
        "first batch never comes)",
        "load one item with num_workers=0 and print the exception the retry swallows",
        "fix the data path / the failing read; retry in a bounded loop that re-raises after "
        "a few attempts instead of recursing",
        priority=70, context=ABOUT_LOADING,
        explains=("worker_exited", "worker_segfault")),
    Signature(
        "stale_dataset_cache", "the dataset trusts an index cache written for other files",
        (text(r"No labels (?:found )?in [^\n]*\.cache\b", 3.5, key=True),
         # a preprocessed dataset unpickled by code whose modules have moved since
         text(near(r"\w+_dataset_loader\b|\blazily_load_dataset\b|\bpreprocess\w*",
                   r"No module named '[\w.]+'", 600), 2.5, key=True),
         text(near(r"\.cache\b|\bcache (?:file|folder|dir\w*)\b", r"\b(?:delet|remov|stale|"
                   r"outdated|old|regenerat|rebuil)\w*", 150), 2, key=True),
         text(r"(?i)labels? (?:actually |do |does )?exists?", 1)),
        "the dataset reads a cache of its file list or labels (YOLO's labels .cache, a "
        "preprocessed index, a Hugging Face datasets cache) written for other files, another "
        "version or another project, and trusts it instead of the files on disk",
        "compare the cache file's date and path with the data's, or move it aside and run "
        "again",
        "delete the cache (the *.cache next to the labels, the datasets cache directory) so "
        "it is rebuilt from the files, and never copy it between projects",
        priority=82, explains=("empty_dataset",)),
    Signature(
        "corrupt_annotations", "annotation files break the format the framework checks",
        (text(r"Label class \d+(?:\.\d+)? exceeds nc=\d+", 4, key=True),
         # a dataset built from a config (the registry names its class) reading an annotation
         # file whose entries are strings where records were expected
         text(r"\w+Dataset: string indices must be integers", 3, key=True),
         # YOLO's check of box sizes, retyped in words ("what you mean by negative label")
         text(r"(?i)\bnegative (?:label|label value|box|coordinate|width|height)s?\b", 3,
              key=True),
         # the label scan's count of corrupt files (not its "0 corrupt")
         text(r"(?i)\b[1-9]\d* corrupt(?:ed)?\b[^\n]{0,60}\blabels?\b|\blabels?\b[^\n]{0,60}"
              r"\b[1-9]\d* corrupt(?:ed)?\b|non-normali[sz]ed or out of bounds coordinates", 3,
              key=True),
         text(r"(?i)\bcoordinates?\b[^\n]{0,40}\b(?:above|greater than|larger than|over|exceed"
              r"\w*)\s+1\b", 2, key=True)),
        "the annotation files do not follow the format the framework checks (YOLO: one row "
        "`class x y w h` per box, class ids below nc, coordinates normalised to 0-1): a class "
        "id out of range, pixel coordinates or a wrong column count; the label scan drops "
        "those images as corrupt, or training stops",
        "open one of the files the scan names as corrupt and check it against the format "
        "(ids < nc, every coordinate in 0-1)",
        "fix or regenerate the labels (convert pixel boxes to normalised ones, remap class "
        "ids, set nc to the number of classes) and delete the labels cache",
        priority=84, explains=("worker_exception",)),
    Signature(
        "sample_size_limit", "a sample is outside the size limits the batching accepts",
        (text(r"exceeds max_tokens limit of \d+|Sentences? lengths? should not exceed max_tokens"
              r"|Unable to handle input id \d+ of size", 4, key=True),
         text(r"size \{\} / \{\}|skip[-_]invalid[-_]size[-_]inputs", 2, key=True),
         text(r"(?i)\bmax[-_ ](?:tokens|positions|duration|source[-_]positions)\b", 1)),
        "a token- or duration-budget batching (fairseq's max_tokens/max_positions, a "
        "bucketing sampler's max_duration) refuses a sample it cannot place: one longer than "
        "the budget (sentences that grew after BPE, a long audio file) or an empty one",
        "find the sample the message names (its index and size) in the preprocessed data",
        "filter samples by the limit after the final tokenisation, raise max_tokens / "
        "max_positions, or let the trainer skip them (fairseq: "
        "--skip-invalid-size-inputs-valid-test)",
        priority=84, explains=("worker_exception",)),
    Signature(
        "map_output_length_mismatch", "a batched map returned columns of another length",
        (text(r"ArrowInvalid: Column \d+ named \w+ expected length \d+ but got length \d+", 4,
              key=True),
         text(r"(?i)\bremove_columns\b|\bbatched\s*=\s*True\b|group_texts", 1)),
        "a batched Dataset.map function returned more or fewer rows than it was given (it "
        "chunks, packs or filters texts) while the old columns, one row per input, are kept: "
        "Arrow cannot build a table from columns of different lengths",
        "len() of each column the function returns against the batch it got",
        "drop the old columns in the same call (map(..., batched=True, "
        "remove_columns=dataset.column_names)) or return every column at the new length",
        priority=86, explains=("worker_exception", "empty_dataset")),
    Signature(
        "datasets_cache_location", "the datasets cache sits where it cannot be written",
        (text(r"Not enough disk space\. Needed: ", 4, key=True),
         text(near(r"No space left on device", r"site-packages/datasets/|arrow_writer|"
                   r"HF_DATASETS_CACHE|\.cache/huggingface", 4000), 4, key=True)),
        "Hugging Face datasets writes the prepared Arrow files (and map caches) under "
        "~/.cache/huggingface/datasets: on a small system disk that fills up, while the data "
        "disk has room; on a shared or network file system its free-space check can fail "
        "('Needed: Unknown size') although there is space",
        "df -h ~/.cache/huggingface (or $HF_DATASETS_CACHE) against the prepared size",
        "point the cache at a local disk with room (HF_DATASETS_CACHE=/data/hf_cache, or "
        "cache_dir= in load_dataset); on shared file systems a node-local cache",
        priority=86, explains=("shm_exhausted", "worker_exception")),
)
