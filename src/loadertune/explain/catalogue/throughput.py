"""The loader runs but too slowly: workers restarted or slow to start, too few of them,
costly transforms, per-sample overhead, snapshots."""

from __future__ import annotations

from loadertune.explain.catalogue.common import (
    ABOUT_LOADING,
    GPU_USE,
    GPU_WAITS,
    PERSISTENT,
    SPAWN_PLATFORMS,
)
from loadertune.explain.signature import Signature, near, text

# how long workers take to start: measured with and without persistent workers
TIME_TO_FIRST_BATCH = ("`loadertune bench DATASET --persistent both` (time to first batch, "
                       "with and without)")

# spawn platforms: loading with workers slower than without them (each worker a fresh
# interpreter), told in words
SPAWN_WORKERS_SLOWER = near(
    SPAWN_PLATFORMS + r"|\bmacs\b",
    r"num_?workers\s*(?:>=?\s*\d|=\s*[1-9])\d*\b[^.\n]{0,80}\b(?:slow\w*|bottleneck|takes? \d)"
    r"|\b(?:slow\w*|bottleneck)\b[^.\n]{0,80}num_?workers\s*(?:>=?\s*\d|=\s*[1-9])"
    r"|num_?workers\W{0,4}(?:=|to|as)?\s*0\b[^.\n]{0,60}\b(?:faster|takes? <?\d)", 250)

# the GPU's use told as low, falling or swinging: it waits for something, most often data
GPU_STARVED = near(GPU_USE, r"\blow\b|\bdrops?\b|fluctuat\w*|flicker\w*|volatile|\bidle\b"
                   r"|\b0 ?%|\b(?:of|at|is) 0\b", 60)

# a training log whose steps are mostly a wait for data: a second or more of each step in the
# loader (mmcv, MMEngine, detectron2 and others print `time: 31.5, data_time: 11.1`)
DATA_BOUND_LOG = r"\btime: \d+(?:\.\d+)?,?\s+data(?:_time)?: [1-9]\d*\.\d+"

# num_workers left at 0 (or not set), as code, a command-line flag or words
NO_WORKERS = (r"num[_-]?workers\W{0,4}(?:=|is|to|as)?\s*0\b|\b(?:no|without|not set\w*|none of"
              r"|n'?t use any)[^\n]{0,40}num[_-]?workers")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "workers_restart_each_epoch", "the workers are started again for every epoch",
        # the dataset pickled, or workers started, again for each new iterator / epoch
        (text(near(r"\b(?:re-?)?(?:pickl|unpickl|creat|start|spawn|launch|initiali[sz]|fork)\w*",
                   r"\b(?:every|each)\s+(?:time\b[^.\n]{0,40}?\bnew\s+`?(?:_\w*)?iter\w*"
                   r"|new\s+iter\w*|epoch)", 80), 2, key=True),
         # frequent validation passes: each one starts the validation loader's workers
         text(near(r"\bval_check_interval\b|\bval_percent_check\b|\bvalidat\w* (?:very )?"
                   r"(?:often|frequently|many times)", r"\bworkers?\b[^.\n]{0,60}\b(?:overhead"
                   r"|slow\w*|restart\w*)|\b(?:overhead|slow\w*)\b[^.\n]{0,60}\bworkers?\b",
                   300), 2, key=True),
         # time lost when an epoch starts, in words ("slow at the start of each epoch",
         # "every epoch beginning takes about 3min")
         text(near(r"\b(?:slow\w*|pause\w*|delay\w*|lag\w*|stall\w*|wait\w*|wast\w*"
                   r"|takes?\s+(?:about\s+|around\s+|~\s*)?\d+\s*(?:s|sec\w*|min\w*)\b)",
                   r"\b(?:start\w*|begin+ing|first (?:batch|iteration|step)s?) of (?:each|every|"
                   r"an?|the) (?:new )?epoch|\b(?:each|every|very) (?:new )?epoch'?s? (?:start\w*|"
                   r"begin+ing|transition)|\bepoch (?:start\w*|begin+ing)|\bbefore (?:each |every "
                   r"|the )?(?:evaluation|validation|eval)\w*(?: (?:begins|starts|loop|run))?",
                   120), 2, key=True),
         text(r"(?i)\b(?:pause|gap|delay|wait\w*|idle|stall\w*|lag)\s+between\s+(?:\w+\s+){0,2}"
              r"epochs\b", 2, key=True),
         text(near(r"\b(?:before|start of) (?:the )?(?:training|validation|evaluation|eval)\b",
                   r"\btakes? (?:a )?(?:long|very long|long long|several minutes|minutes|ages)\b"
                   r"|\blong (?:wait|time|pause)", 80), 2, key=True),
         # spawn on Windows/macOS: every pass over the loader starts its workers anew
         text(near(SPAWN_PLATFORMS, r"num_?workers\s*(?:>|>=|=)\s*\d+[^.\n]{0,40}"
                   r"\b(?:slow\w*|\d+ ?(?:x|times) slower)", 150), 2, key=True),
         # the code iterates the loader anew inside a loop: one worker start-up per pass
         text(r"for \w+ in range\([^)\n]*\):\s*\n\s+for [^\n]+ in [\w.]*loader\w*", 1.5),
         text(r"(?i)persistent_workers", 1),
         # the fix told as a speed-up ("persistent_workers=True ... speed up ... second epoch")
         text(near(PERSISTENT, r"\bspeed\w*|\bfaster\b|\bslow\w*|\boverhead\b|\bshort\w*"
                   r"|\b(?:second|next|each|every) epoch|\bruntime\b", 150), 2, key=True),
         text(r"(?i)\bmp\.spawn\b|\bspawn\b|\bforkserver\b", 0.5),
         # evidence for other causes: memory that grows, samples that repeat
         # (memory as where the data is kept, "into memory", "in-memory", is not such evidence)
         text(r"(?i)\b(?:memory|RAM)\b[^.\n]{0,40}\b(?:grow\w*|increas\w*|leak\w*|explod\w*"
              r"|usage|consum\w*|spik\w*|us(?:ed|es)\b)|\bOOM\b|\bout of memory\b|\bleak"
              r"|duplicat|same (?:augment|random)", -2)),
        "persistent_workers is False (the default): each new iterator over the DataLoader (each "
        "epoch, each iter(loader)) shuts its workers down and starts num_workers new ones, and "
        "under spawn pickles the dataset to each again; with several ranks on one machine that "
        "is ranks x workers process starts per epoch, time not spent loading",
        TIME_TO_FIRST_BATCH,
        "DataLoader(persistent_workers=True) and create the iterator once; fewer workers when "
        "each start is expensive (a large dataset pickled under spawn)",
        # each restart re-imports the main module in every new worker: its prints and set-up
        # come again with every epoch's pause
        priority=45, context=ABOUT_LOADING, explains=("spawn_reimport_side_effect",)),
    Signature(
        "worker_thread_oversubscription", "every worker runs a thread pool the size of the "
        "machine",
        (text(near(r"\b(?:each|every|per) (?:data ?loader )?workers?\b[^.\n]{0,80}"
                   r"\b(?:\d{3} ?% ?(?:of )?CPU\b|more than 100 ?%|(?:multiple|many|\d+) (?:\w+ )?"
                   r"threads\b)"
                   r"|\b(?:so many|too many|large amount of|huge number of) threads\b"
                   r"|\bthreads? (?:per|in each|inside each) (?:data ?loader )?workers?\b"
                   r"|\boversubscri(?:bed|ption)\b", r"\bslow\w*|\bspeed\w*|\bCPUs?\b|\bepochs?\b"
                   r"|\bdata ?loaders?\b|\bworkers?\b", 300), 3, key=True),
         # every core busy, and more workers or cores change nothing
         text(near(r"\b(?:all|every) (?:the |of the )?(?:cpus?|cores?)\b[^.\n]{0,40}\b(?:high|"
                   r"100 ?%|full|busy|maxed)", r"\b(?:increas\w*|more|add\w*)\b[^.\n]{0,40}"
                   r"\b(?:num_workers|workers|cores|cpus)\b[^.\n]{0,60}\b(?:didn'?t|did not|"
                   r"does ?n[o']t|no) (?:help|improve|change|speed)", 600), 3, key=True),
         text(r"cv2\.setNumThreads\(\s*[01]\s*\)|torch\.set_num_threads\(\s*1\s*\)"
              r"|OMP_NUM_THREADS\s*=\s*1|MKL_NUM_THREADS", 1)),
        "each worker process runs its own intra-op thread pools (OpenCV's, torch's, "
        "OpenMP/MKL/OpenBLAS under numpy), each sized to every core of the machine: "
        "workers x cores threads fight for the CPUs, so loading slows down while all cores "
        "look busy, and more workers or cores make it no faster",
        "`loadertune doctor --probe threads` (threads per worker against the cores), or "
        "the thread count of one worker: ps -o nlwp <pid>",
        "one thread per worker: cv2.setNumThreads(0) and torch.set_num_threads(1) in "
        "worker_init_fn, or OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 for the job; `loadertune "
        "tune` weighs threads against workers",
        priority=72, probes=("threads",), context=ABOUT_LOADING,
        explains=("too_few_workers", "too_many_workers")),
    Signature(
        "too_few_workers", "the loader cannot keep up: too few workers (or none)",
        # the steps wait for data every few batches: the prefetched batches ran out
        (text(near(r"\b(?:hang\w*|pause\w*|stall\w*|stuck|freez\w*|wait\w*|slow\w*|lag\w*"
                   r"|spikes?|delay\w*)\b", r"\bevery (?:\d+|few|couple of|other) (?:\w+ )?"
                   r"(?:steps|iterations|iters|batches)\b", 100), 2.5, key=True),
         # num_workers left at 0: all loading in the main process, its thread pool on every core
         text(near(r"(?:very |too |extremely )?high cpu (?:usage|load|utili[sz]ation)|cpu "
                   r"(?:usage|load)[^\n]{0,20}\b\d{3,} ?%|\b\d{3,} ?% (?:cpu|of)",
                   r"data ?(?:prep\w*|load\w*|augment\w*|pipeline)|bottleneck|dataloader", 200), 2,
              key=True),
         text(near(r"\bbottleneck", r"data ?(?:load\w*|prep\w*|pipeline)|load\w* (?:the )?data\b"
                   r"|dataloader", 100), 1.5, key=True),
         # slow training told with its step time: the loader is the first suspect
         text(near(r"\b(?:very |too |extremely |really )+slow\w*\b", r"\b(?:per|each|one|every) "
                   r"(?:batch|iteration|step)\b|\bsec\w* ?(?:/|per) ?(?:it|iter\w*|batch|step)\b"
                   r"|\bit/s\b|\btrain\w* (?:process|speed|time)\b", 150), 1.5, key=True),
         text(near(NO_WORKERS, r"\bslow\w*|bottleneck|cpu usage"
                   r"|high cpu|\bmuch faster|\bspeed\w* up\b|\bboost\w*|\d+(?:\.\d+)? ?it/s to "
                   r"\d", 150),
              1.5, key=True),
         # the GPU starved: the classic sign of a loader that cannot keep up
         text(GPU_STARVED, 2, key=True),
         text(DATA_BOUND_LOG, 2, key=True),
         # asking how to raise the GPU's use: it waits for something, most often the data
         text(near(GPU_USE, r"\b(?:increas\w*|improv\w*|rais\w*|boost\w*|maximi[sz]\w*"
                   r"|higher)\b", 30), 1.5, key=True),
         # loading in the main process, in a text about the GPU's use
         text(near(NO_WORKERS, GPU_USE + "|" + GPU_WAITS, 400), 1.5, key=True),
         text("(?i)" + GPU_WAITS, 2, key=True),
         text(r"\bsem_timedwait\b|\b_try_get_data\b", 0.5),
         # on-the-fly processing (augmentation, resampling, decoding) made training long
         text(near(r"\bspeed[- ]?perturb\w*|\baugment\w*|on[- ]the[- ]fly|\bresampl\w*|\bdecod\w*",
                   r"\btakes? (?:so |too |very )?long|\btraining time\b|\b\d+ (?:days|hours)\b"
                   r"|\bslow\w*", 200), 1.5, key=True),
         # on Windows/macOS workers that slow loading down are slow to start, not too few
         text(SPAWN_WORKERS_SLOWER, -2),
         # evidence for a hang, a crash or memory instead
         text(r"(?i)\bexited unexpectedly|\bkilled\b|\bout of memory\b|\bOOM\b|never "
              r"(?:returns|finishes)|\bforever\b|dead[ -]?lock", -2)),
        "the training steps wait for data: with num_workers=0 every batch is loaded in the main "
        "process between steps (and its thread pool spreads each transform over all cores), and "
        "with too few workers the prefetched batches run out, so the run pauses every few "
        "steps until a worker finishes its next batch",
        "`loadertune watch` around the training loop shows the share of time spent waiting "
        "for data; `loadertune tune DATASET` measures the worker counts",
        "raise num_workers (and prefetch_factor) to what `loadertune tune` measures; keep "
        "heavy work out of the main process",
        priority=40, context=ABOUT_LOADING),
    Signature(
        "slow_transform", "each sample's decode or transform costs more than the workers supply",
        # the GPU starved although several workers load: the per-sample work is the bottleneck
        (text(near(GPU_USE + "|" + GPU_WAITS, r"num_?workers\W{0,3}(?:=|:)\s*(?:[4-9]|[1-9]\d)\b",
                   400), 1.5, key=True),
         text(GPU_STARVED, 1),
         # videos decoded per sample in a loader that is slow: the heaviest per-sample work
         text(near(r"\bvideos? ?(?:data ?loader|decod\w*|read(?:er|ing))\b|\bVideoReader\b",
                   r"\bslow\w*|" + DATA_BOUND_LOG, 300), 2, key=True),
         # a transform named as the bottleneck, or as far slower than another implementation
         text(r"(?i)\b(?:resiz\w*|augment\w*|transforms?|decod\w*|skimage|scikit-image|imread)"
              r"[^.\n]{0,40}\b(?:(?:is|was|are|were|be(?:ing)?) (?:the |a |my )?(?:main |real )?"
              r"bottleneck|orders? of magnitude slower|takes? (?:most|\d+ ?%) of the time)\b", 3,
              key=True),
         # loading in the main process: too few workers, whatever the transforms cost
         text(NO_WORKERS, -2),
         text(r"(?i)\bskimage\b|scikit-image", 0.5),
         # storage, not CPU, when the text points at the disk or the network
         text(r"(?i)\b(?:hdd|hard (?:disk|drive)|nfs|network (?:drive|storage|file)|s3|gcs)\b",
              -2)),
        "every sample passes through __getitem__'s decode and transforms in one worker; when one "
        "sample's work (a slow resize such as skimage's, decoding large images, heavy "
        "augmentation) costs more than the workers together can supply per training step, "
        "the GPU idles between batches whatever num_workers is once the cores are busy",
        "`loadertune bench DATASET` shows where worker time goes (its 'where worker time goes' "
        "line) and samples/s per worker; time dataset[i] with the transform on and off",
        "use faster implementations (cv2 or PIL instead of skimage, decord for video, decode at "
        "reduced size), resize once offline and store the smaller files, cache decoded "
        "samples, or move augmentation to the GPU (kornia, DALI); then `loadertune tune "
        "DATASET`",
        priority=45, context=ABOUT_LOADING, explains=("too_few_workers",)),
    Signature(
        "slow_worker_start", "each worker takes seconds to start",
        # spawn/forkserver: a fresh interpreter per worker imports the main module's world
        (text(near(r"\bworkers?\b", r"\btak\w*\s+(?:about\s+|~\s*|over\s+)?\d+\s*(?:s|sec\w*"
                   r"|min\w*)\b[^.\n]{0,20}\bto (?:start|spin up|launch|initiali[sz]e|come up)"
                   r"|\b(?:slow|long)\s+(?:worker\s+)?(?:start\w*|initiali[sz]ation|spin[- ]?up)",
                   100), 2.5, key=True),
         text(r"(?i)forkserver.?preload", 2, key=True),
         # spawned workers and a start-up pause spent importing
         text(near(r"\bspawn\w*\b[^.\n]{0,40}\bworkers?\b|\bworkers?\b[^.\n]{0,40}\bspawn\w*",
                   r"\bstart-?up (?:pause|time|delay|cost)|\bre-?import\w*"
                   r"|\bimport\w* (?:torch|the \w+)\b", 300), 2.5, key=True),
         text(SPAWN_WORKERS_SLOWER, 2.5, key=True),
         text(near(r"\b(?:data ?loader|worker)s?\b (?:initiali[sz]ation|start\w*)", r"\bslow\w*|"
                   r"\bspeed ?up\b|\bminutes?\b|\bsequential\w*", 120), 1.5, key=True),
         text(r"(?i)\bspawn\b|\bforkserver\b|\bimport\w*", 0.5)),
        "under spawn or forkserver (Windows, macOS, Python 3.14+ Linux) every worker is a fresh "
        "interpreter: it imports the main module and all it imports (torch, model code, heavy "
        "libraries) and unpickles the dataset before its first batch, seconds per worker, "
        "paid again every epoch without persistent workers",
        TIME_TO_FIRST_BATCH,
        "persistent_workers=True; multiprocessing.set_forkserver_preload([...]) with the heavy "
        "modules so the forkserver imports them once; keep heavy imports and set-up out of "
        "module level of the main script; fork where it is safe",
        priority=55, context=ABOUT_LOADING),
    Signature(
        "per_sample_overhead", "small samples fetched and collated one at a time",
        # the loader calls __getitem__ per index and collates: for tiny rows that is the cost
        (text(near(r"\bone (?:row|sample|item|element|index|example) at a time|\brow[- ]by[- ]row\b"
                   r"|\bper[- ](?:sample|item|row) (?:overhead|call|fetch\w*|index\w*)",
                   r"\bbatch\w*|collat\w*|\bslow\w*|inefficien\w*|bottleneck|overhead", 200), 3,
              key=True),
         text(r"(?i)\bindex(?:ing|ed)? (?:by|with) a list of indices|__getitems__|batched "
              r"(?:index\w*|fetch\w*)|BatchSampler[^\n]{0,40}batch_size=None", 2, key=True),
         text(near(r"\bTensorDataset\b|\bper[- ](?:sample|row|item)\b|__getitem__",
                   # not Python's "indices must be integers or slices" (an index error)
                   r"\b(?:tensor |array |batch )?(?<!integers or )slic\w*|\bwhole[- ]batch"
                   r"|\bbatch (?:index\w*|fetch\w*)", 200), 2.5, key=True),
         text(r"(?i)TensorDataset|in[- ]memory (?:tensor|array)s?", 0.5)),
        "the DataLoader fetches a batch one index at a time (a __getitem__ call per sample) "
        "and then collates the pieces; for small samples (a row of a tensor, a few features) "
        "that Python work per sample costs more than the data, so loading is bound by "
        "overhead, not by I/O or transforms, and more workers barely help",
        "`loadertune bench DATASET` at num_workers=0: samples/s far below indexing the "
        "underlying tensor with a whole batch of indices",
        "fetch whole batches: a __getitems__(indices) (torch >= 2.1) or "
        "DataLoader(ds, sampler=BatchSampler(RandomSampler(ds), batch_size, False), "
        "batch_size=None) with a __getitem__ that takes a list of indices; for tensors already "
        "in memory, index them directly without a DataLoader",
        priority=50),
    Signature(
        "in_order_blocking", "one slow sample holds back batches other workers have ready",
        (text(r"\bin_order\s*=\s*False\b", 3, key=True),
         text(near(r"\bfirst[- ]available\b|\bFIFO\b|\bout[- ]of[- ]order\b|\bas soon as (?:it "
                   r"is |they are )?(?:ready|available|done)\b|\bwhichever (?:worker|batch) "
                   r"(?:is |finishes )?first", r"\bworkers?\b|data ?loader", 300), 2.5, key=True),
         text(near(r"\b(?:one|a single)\s+(?:slow|straggl\w*)\s+(?:worker|sample|item|batch)",
                   r"\bblock\w*|\bwait\w*|\bstall\w*|\bhold\w* (?:\w+ )?(?:up|back)", 100), 2.5,
              key=True),
         text(r"(?i)\bstragglers?\b|\bhead[- ]of[- ](?:the[- ])?line\b", 1)),
        "the DataLoader returns batches in the sampler's order and batch i comes from worker "
        "i mod num_workers, so one slow sample (a large file, a retry, a slow read) holds back "
        "the batches the other workers have ready; more workers do not help a cost that varies "
        "from sample to sample",
        "`loadertune watch` around the loop: stalls come one worker at a time; or time "
        "__getitem__ over a few hundred indices: a few take far longer than the rest",
        "DataLoader(in_order=False) (torch >= 2.6) hands out batches as workers finish them "
        "(the order changes, not the data); make the slow samples cheaper (cache, pre-decode) "
        "and raise prefetch_factor",
        priority=62, context=ABOUT_LOADING),
    Signature(
        "stateful_snapshots", "StatefulDataLoader snapshots the workers' state every step",
        (text(near(r"Stateful ?Data ?[Ll]oader", r"\bslow\w*|\d+ ?s(?:ec\w*)? (?:per|/) ?it\w*"
                   r"|\bper iter\w*|\boverhead\b", 200), 3, key=True),
         text(r"snapshot_every_n_steps", 2, key=True)),
        "torchdata's StatefulDataLoader records the state of every worker each "
        "snapshot_every_n_steps batches (default 1): each snapshot is a round trip to all "
        "workers, so every step waits for it",
        "time a few hundred batches with snapshot_every_n_steps=1 and =1000",
        "StatefulDataLoader(..., snapshot_every_n_steps=N) with N your checkpoint interval "
        "(the state is only needed when a checkpoint is written)",
        priority=60),
)
