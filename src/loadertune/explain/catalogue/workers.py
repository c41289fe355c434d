"""Workers that die, hang or raise, and the generic fallback for a DataLoader failure."""

from __future__ import annotations

from loadertune.explain.catalogue.common import (
    A_LOADER,
    ABOUT_LOADING,
    NUM_WORKERS_ZERO_WORKS,
    PERSISTENT,
    WORKER_SIGNAL,
)
from loadertune.explain.signature import Signature, exc, frame, near, phrase, text

WORKERS_CONTEXT_FORK = (
    # a training run's own frames count: its loaders fork the workers as it starts
    text(r"(?i)worker|num_workers|dataloader|popen_fork|os\.fork|\btrain\w*\.py\b"),
)

# "freezing BatchNorm", "frozen backbone": parts of the model kept fixed, not a stall
NOT_MODEL_PARTS = (r"(?!\s+(?:the\s+|all\s+|some\s+)?(?:\w+\s+)?(?:batch ?norm\w*|bn\b|layers?\b"
                   r"|weights?\b|backbone|encoder|decoder|param\w*|model\b|embedding))")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "worker_oom_killed", "a worker was killed (SIGKILL): usually the OOM killer",
        (text(WORKER_SIGNAL + r"Killed", 3, key=True),
         text(r"killed by signal 9\b|(?:terminated|exited|failed) with (?:exit )?code -9\b"
              r"|exit (?:code|status) (?:-9|137)\b", 3, key=True),
         text(r"(?m)^(?:[^\n]*: line \d+: +\d+ )?Killed(?: +[^\n]*)?$", 2.5, key=True),
         text(r"(?i)\bOOM\b|oom[-_ ]kill|out of memory|memory is too (?:little|small)", 0.5),
         # prose naming host memory next to a worker that exited unexpectedly
         text(r"(?i)oom[-_ ]?kill|(?<!CUDA )(?<!cuda )\bout of (?:host |system |cpu )?"
              r"(?:memory|RAM)|memory (?:usage )?(?:reach|hit)\w* 100|ran out of (?:RAM|memory)",
              1.5, key=True),
         text(r"exited unexpectedly", 1),
         text(r"(?i)\bworkers?\b[^\n]{0,20}\bkilled\b(?! by signal)", 2, key=True),
         text(r"(?i)\b(?:the )?(?:process|training|job|program|python)\s+(?:is|was|got|gets|get"
              r"|being)\s+killed\b", 2, key=True),
         # "killed after it took up 60g of memory"
         text(near(r"\bkilled\b", r"\b(?:took|takes|taking|used|using|uses|eat\w*|consum\w*)\s+"
                   r"(?:up\s+)?(?:all\s+(?:the\s+)?|about\s+|over\s+|~\s*)?(?:\d+\s*(?:g|gb|gib|m|mb)"
                   r"\b|ram|memory)", 120), 2, key=True),
         text(r"(?i)memory (?:size|limit)|(?:insufficient|not enough|more|less) (?:RAM|memory)",
              0.5),
         text(near(r"\bkilled\b", r"\bmemory\b|\bRAM\b", 80), 1.5, key=True),
         # OpenCV's allocation failing: host memory, in a worker's image work
         text(r"(?i)Insufficient memory\)? Failed to allocate|\b(?:OutOfMemoryError|out of "
              r"memory)\b[^\n]{0,30}\b(?:opencv|cv2)\b", 2, key=True),
         # host memory (not the GPU's) out in a text about the number of workers
         text(near(r"(?<!CUDA )(?<!GPU )\b(?:memory|RAM)\b[^\n]{0,12}\bOOM\b", r"num_?workers",
                   300), 1.5, key=True),
         # a spawned child reading the dataset from a parent killed while it wrote
         text(r"UnpicklingError: pickle data was truncated", 3, key=True)),
        "the kernel's OOM killer (or a container's memory limit) killed a worker with "
        "SIGKILL: the workers together used more memory than available. Python-object "
        "datasets grow in every worker over an epoch (copy-on-read)",
        "`dmesg -T | grep -i -e oom -e 'killed process'` (the kernel names the worker it "
        "killed; `loadertune doctor DATASET` then gives the max safe num_workers)",
        "fewer workers (doctor's max safe num_workers), a smaller prefetch_factor or batch, "
        "and keep data in numpy arrays/Arrow instead of Python lists and dicts",
        priority=80, probes=("memory",), min_score=2),
    Signature(
        "worker_segfault", "a worker crashed in native code (segmentation fault)",
        (text(WORKER_SIGNAL + r"Segmentation\s+fault", 3, key=True),
         text(phrase("Unexpected segmentation fault encountered in worker"), 3, key=True),
         text(r"Fatal Python error: Segmentation fault", 2.5, key=True),
         # GNU OpenMP used before fork: the child aborts in the library
         text(r"fork\(\) called from a process already using GNU OpenMP", 4, key=True),
         text(r"(?i)Segmentation fault \(core dumped\)", 2, key=True),
         # prose ("seg fault", "segfault", SIGSEGV) next to a worker that exited unexpectedly
         text(r"(?i)\bseg[ -]?fault(?:s|ing|ed)?\b|\bSIGSEGV\b", 2, key=True),
         # the bare words (a title): weak, the message above may be in the text as well
         text(r"(?i)\bsegmentation fault\b(?! \(core dumped\))", 1, key=True),
         text(r"exited unexpectedly", 1)),
        "a C extension (image/audio decoder, OpenCV, a library not fork-safe) crashed inside "
        "a worker",
        "`python -X faulthandler train.py` with num_workers=0 prints the native stack",
        "upgrade or replace the crashing library, initialise it inside the worker "
        "(worker_init_fn) instead of before fork, or use multiprocessing_context='spawn'",
        priority=80, probes=("threads",)),
    Signature(
        "worker_killed_signal", "a worker was killed by a signal",
        (text(WORKER_SIGNAL + r"(?!Killed|Bus\s+error|Segmentation\s+fault)"
              r"(?P<signal>[A-Za-z][A-Za-z /:0-9-]*)", 3, key=True),
         text(phrase("Unexpected floating-point exception encountered in worker"), 3, key=True)),
        "a worker died from a signal (abort, floating-point error, an external kill)",
        "rerun with num_workers=0 to get the error in the main process",
        "fix the crashing code the signal points at (abort: an assertion in a C library)",
        detail="signal: {signal}", priority=70),
    Signature(
        "worker_exited", "a worker exited unexpectedly",
        # one signal for every form (message, retyped title, the raising source line): the
        # same event printed twice is not twice the evidence
        (text(r"(?i)data ?loader worker(?: \(pid\(s\) (?P<pids>[\d, ]+)\)| \(pid (?P<pid>\d+)\)"
              r"| \(pid[^)]*\))? exited unexpectedly(?: with exit code (?P<code>-?\d+))?"
              r"|RuntimeError\(f?'DataLoader worker \(pid\(s\) \{\w*\}\) exited unexpectedly",
              2.5, key=True),
         # batchgenerators' (nnU-Net's) words for the same event
         text(r"One or more background workers are no longer alive|Background workers died"
              r"|Some background worker is 6 feet under", 3, key=True),
         NUM_WORKERS_ZERO_WORKS),
        "a worker process ended without reporting an error: it crashed, was killed, or "
        "called exit (the signal is not always known)",
        "rerun with num_workers=0: the real error is raised in the main process",
        "fix what the num_workers=0 run shows; when memory is the cause, fewer workers",
        priority=50, probes=("memory", "shm")),
    Signature(
        "timeout", "DataLoader timed out",
        (text(r"DataLoader timed out after (?P<seconds>[\d.]+) seconds", 3, key=True),
         text(r"(?i)data ?loader (?:has )?timed? ?out\b", 2, key=True),
         text(r"(?i)\btime ?outs?\b(?!=)[^\n]{0,20}\b(?:of|in|for|from)\s+(?:the\s+|my\s+)?"
              r"data ?loaders?\b(?!\.py)|\bdata ?loaders?\b(?!\.py)[^\n]{0,20}\btime ?outs?\b(?!=)",
              1.5, key=True)),  # told in words: weaker than the message
        "no batch arrived within DataLoader(timeout=...): a worker is slow (slow storage, a "
        "huge item) or stuck (deadlock, waiting on a lock or network)",
        "`py-spy dump --pid <worker pid>` shows where a worker waits",
        "raise timeout= for slow items, or fix the stuck worker (see the hang entry)",
        priority=60, probes=("storage",)),
    Signature(
        "worker_hang", "workers hang (deadlock)",
        (text(r"Timeout \(\d+:\d\d:\d\d\)!", 2, key=True),
         text(r"Thread 0x[0-9a-f]+ \(most recent call first\)", 1, key=True),
         text(r"\(idle\)|py-spy", 1, key=True),
         text(r"(?i)\b(?:hangs?|hanging|hung|stuck|(?<!avoid )dead[ -]?lock(?:s|ed)?"
              r"|(?:freez(?:e|es|ing)|frozen)" + NOT_MODEL_PARTS + r"(?! to produce)"
              r"|seiz(?:e|es|ed|ing) up)\b", 1.5, key=True),
         # a stall told with what is missing: no error, no message
         text(r"(?i)\bno (?:other )?(?:error|message|exception)s?\b(?: (?:nor|or) (?:error"
              r"|message)s?)?|\bwithout (?:any )?(?:error|message)s?\b"
              r"|(?:don'?t|doesn'?t|won'?t) run\b", 1),
         text(r"(?i)refuses to yield|no more batches|never (?:returns|finishes|ends)", 1),
         text(r"(?i)stops? (?:running|working|responding|at)|no (?:progress|output)", 1.5,
              key=True),
         text(r"\^C|KeyboardInterrupt|(?i:\bctrl[ +-]*c)\b", 1.5, key=True),
         # a worker's stack or strace showing it waits on a lock
         text(r"FUTEX_WAIT|\bfutex\(", 2, key=True),
         # a library with its own thread pool, used in the workers, and a loader that stops
         text(near(r"\bcv2\b|\bopencv\b|\bOpenMP\b|\blibgomp\b|\bMKL\b",
                   r"(?:does ?n['o]?t|do ?n['o]?t|not|never) work\b|\bhang\w*|\bstuck\b"
                   r"|dead ?lock\w*", 150), 2, key=True),
         frame(r"in _try_get_(?:data|batch)$|queues\.py in get$|connection\.py in _?poll$",
               0.5),
         NUM_WORKERS_ZERO_WORKS),
        "the main process waits for batches that never come: a worker forked while another "
        "thread held a lock (logging, OpenMP/OpenCV/MKL thread pools, a queue) and waits on "
        "it forever, or it blocks on I/O",
        "`py-spy dump --pid <worker pid>` shows the lock or call the worker waits on",
        "start workers before creating threads, use multiprocessing_context='spawn' or "
        "'forkserver', call cv2.setNumThreads(0) and torch.set_num_threads(1) in "
        "worker_init_fn, and set DataLoader(timeout=...) to fail instead of hang",
        # a training run that stops is most often its loader's workers
        priority=55, probes=("threads",), context=ABOUT_LOADING),
    Signature(
        "too_many_workers", "more workers than the CPUs allow",
        (text(r"This DataLoader will create (?P<workers>\d+) worker process\s?es in total", 3,
              key=True),
         # the warning's second half alone (the first is often cut or wrapped mid-word)
         text(r"Our suggested max number of worker in current system is (?P<suggest>\d+)", 3,
              key=True),
         # the diagnosis in words (a maintainer's answer to "exited unexpectedly")
         text(r"(?i)\btoo many (?:data ?loader )?workers\b", 2.5, key=True),
         # num_workers is per rank: 4+ ranks (or GPUs) with 16+ workers each is more than most
         # machines have cores
         text(near(r"nproc_per_node\W{0,2}(?:[4-9]|\d{2})\b|\b(?:[4-9]|\d{2}) ?[x*×] ?(?:\w+ )?"
                   r"(?:gpus?|cards)\b",
                   r"num_?workers\W{0,3}(?:1[6-9]|[2-9]\d|\d{3})\b", 400), 2.5, key=True),
         # and each of them runs a thread pool as wide as the machine
         text(near(r"OMP_NUM_THREADS\W{0,2}(?:[8-9]|\d{2,})\b",
                   r"num_?workers\W{0,3}(?:[4-9]|\d{2,})", 400), 1.5),
         text(near(r"num_?workers", r"\ball (?:the )?(?:cpu )?cores\b|\bnumber of (?:cpu )?cores\b"
                   r"|\b\d{3,} processes\b", 100), 2, key=True),
         # told in words: the run takes more (or all) of the machine's cores
         text(r"(?i)\b(?:occup\w*|us(?:e|es|ing)|tak(?:e|es|ing)|grab\w*|spawn\w*)\s+(?:up\s+)?"
              r"(?:more|all(?: the)?|too many|\d{2,})\s+(?:(?:cpu|logical)\s+)?(?:cores|cpus)\b",
              2, key=True),
         # the warning heeded (fewer workers) and then another error: that error is the problem
         text(r"(?i)\b(?:set|chang\w*|reduc\w*|lower\w*|decreas\w*)\s+(?:the\s+)?num_?wo\w*"
              r"\W{0,3}(?:to\s+)?\d+\b[^\n]{0,80}\b(?:new|another|different|other) error", -5)),
        "num_workers exceeds the CPUs this process may use (affinity/cpuset); the workers "
        "time-share cores and can freeze or slow the machine",
        "`loadertune doctor --probe cores`",
        "num_workers <= the suggested number (`loadertune doctor` computes what fits)",
        priority=58, probes=("cores",)),
    Signature(
        "fork_no_memory", "starting a worker failed: fork could not reserve memory",
        # ENOMEM by its number: a title or a log cut short keeps only "[Errno 12] Cannot all"
        (text(r"OSError: \[Errno 12\]", 2, key=True),
         frame(r"popen_fork\.py in _launch$|in _launch$", 1.5),
         text(r"self\.pid = os\.fork\(\)|os\.fork\(\)", 1),
         frame(r"dataloader\.py in __init__$|process\.py in start$", 0.5)),
        "fork has to reserve as much memory as the parent process holds; with a large "
        "parent (a dataset in memory, a model on the CPU) and strict overcommit or a "
        "container memory cap, the kernel refuses (ENOMEM) and the worker never starts",
        "`cat /proc/sys/vm/overcommit_memory` (2 = strict) against the parent's RSS",
        "fewer workers, keep the parent small before the loader starts (load data lazily), "
        "multiprocessing_context='forkserver' or 'spawn', or allow overcommit",
        priority=75, context=WORKERS_CONTEXT_FORK, probes=("memory",)),
    Signature(
        "debugger_workers", "the workers run under a debugger that cannot follow them",
        (text(near(r"\bptvsd\b|\bdebugpy\b|\bpydevd\b|\b(?:vs ?code|pycharm)(?:'s)? debug\w*"
                   r"|\bunder (?:a |the )?debugger\b|\bin debug(?:ging)? mode\b|\b(?:when|while) "
                   r"debugging\b|\bwith (?:a |the )?debugger\b",
                   r"\bworkers?\b|num_?workers|exited unexpectedly|data ?loader", 300), 3,
              key=True),
         text(r"(?i)\bsubProcess\b|sys\.gettrace\(\)", 1)),
        "the script runs under a debugger (debugpy/ptvsd in VS Code, pydevd in PyCharm, pdb "
        "breakpoints): it traces or pauses the worker processes it does not follow, so "
        "workers die, hang or time out, while the same code runs fine without it",
        "run the same command outside the debugger, or with num_workers=0 under it",
        "num_workers=0 while debugging (e.g. when sys.gettrace() is not None); VS Code: "
        "\"subProcess\": true in launch.json to follow the workers",
        priority=72, context=ABOUT_LOADING),
    Signature(
        "worker_exception", "your dataset or collate_fn raised in a worker",
        (text(r"(?i)Caught (?P<exception>\w+) in DataLoader worker process (?P<worker>\d+)", 1.5,
              key=True),
         text(r"Original Traceback \(most recent call last\)", 0.5),
         # torch < 1.2 re-raised the worker's traceback as the message of its exception type
         text(r"(?m)^\w+(?:Error|Exception): '?Traceback \(most recent call last\)", 1.5,
              key=True),
         frame(r"in _worker_loop$", 0.5),
         # a video dataset's own retry warning for a file it cannot open (SlowFast and its
         # forks), told without its trial counter
         text(r"Failed to (?:meta load|decode|fetch) video\b", 1.5, key=True),
         # the dataset's own code raised (num_workers=0, or the worker's traceback as printed)
         frame(r"_utils/fetch\.py in (?:fetch|<listcomp>|__next__)$", 1, key=True),
         frame(r"in __getitem__$|in __getitems__$|in __iter__$", 0.5),
         # an ordinary exception of the data code (no worker wrapper shown)
         exc(r"^(?:ValueError|KeyError|IndexError|FileNotFoundError|AssertionError|"
             r"UnicodeDecodeError|ZeroDivisionError|json\.decoder\.JSONDecodeError)\b", 1,
             key=True),
         # told in words: one bad file (empty, corrupt, truncated) fails the whole run
         text(near(r"\b(?:bad|corrupt\w*|broken|truncated|empty|missing|invalid|0[- ]?bytes?)\s+"
                   r"(?:\w+\s+)?(?:files?|images?|samples?|records?|audio|video)\b",
                   r"\bfail\w*|\bcrash\w*|\braise\w*|\b(?:throws?|errors? out)\b|\babort\w*",
                   150), 1.5, key=True),
         # a read from remote storage failing inside the dataset (s3, gcs, http)
         text(r"(?i)\bfsspec\.exceptions\b|FSTimeoutError|\bbotocore\.exceptions\b|\bs3fs\b"
              r"|\bgcsfs\b|ReadTimeoutError", 1.5, key=True),
         # a decoder refusing one sample's file (a corrupt image, video or audio file)
         text(r"\bDECORDError\b|\bUnidentifiedImageError\b|cannot identify image file"
              r"|image file is truncated|\bLibsndfileError\b|moov atom not found"
              r"|Invalid data found when processing input", 1.5, key=True),
         # OpenCV's reader returned None for a file it could not decode (or find)
         text(r"!_src\.empty\(\) in function|!ssize\.empty\(\) in function", 2, key=True),
         text(near(r"'NoneType' object has no attribute '(?:shape|copy|astype)'",
                   r"\bimg\b|\bimage\b|imread", 400), 1.5, key=True),
         # a data file damaged on the way (h5py reading a truncated or corrupt file)
         text(r"Unable to (?:synchronously )?open file \((?:truncated file|file read failed)", 1.5,
              key=True)),
        "an exception in __getitem__/__iter__/collate_fn inside a worker; the part after "
        "'Original Traceback' is the real error",
        "rerun with num_workers=0: the same error is raised directly, with a plain traceback",
        "fix the error shown in the original traceback (often a bad file, index or shape)",
        detail="{exception} in worker {worker}", priority=10,
        context=ABOUT_LOADING),
    Signature(
        "workers_pile_up", "worker processes pile up epoch after epoch",
        # each epoch's loader (or pool, or manager) starts processes that never end
        (text(near(r"\b(?:more and more|(?:a )?growing number of|increasing (?:number of|"
                   r"amount of)|hundreds of|thousands of)\s+(?:\w+\s+){0,2}(?:sub)?process\w*"
                   r"|(?:sub)?process(?:es)?\s+(?:\w+\s+){0,3}(?:accumulat\w*|pil\w* up|keeps? "
                   r"(?:growing|increasing)|never (?:die|exit|end|terminat)\w*|(?:are |is )?not "
                   r"(?:killed|terminated|closed|released|cleaned)|left (?:behind|over|running))",
                   r"\b(?:each|every|per|after)\s+(?:\w+\s+)?(?:epoch|evaluation|validation)",
                   200), 3, key=True),
         text(near(r"\bzombie\w*|\bdefunct\b|\borphan\w*", r"\bworkers?\b|\bprocess\w*", 80),
              1.5, key=True),
         text(r"(?i)\bfork[- ]?bomb\w*|\baccumulat\w* of (?:\S+\s+){0,3}process\w*", 3, key=True),
         # the old workers outlive their loader: slow to shut down, never released
         text(near(r"\bworkers?\b|\b(?:worker|child) process(?:es)?\b",
                   r"\b(?:take|takes|took|taking) (?:a |very )?"
                   r"long(?: time)? to (?:shut ?down|exit|terminate|close|go away)|\brelease "
                   r"(?:its |their |the )?resources\b|\b(?:never|not) (?:get |being )?(?:shut ?down"
                   r"|terminated|released|cleaned up)\b|\b(?:still|remain\w*|stay\w*) (?:alive"
                   r"|running|around)\b", 150), 2.5, key=True),
         # new processes every epoch, and the memory runs out: the old ones are still there
         text(near(r"\b(?:creat|spawn|start|launch)\w*\s+(?:\w+\s+){0,3}process\w*",
                   r"\b(?:memory|ram)\b[^.\n]{0,30}\b(?:is out|runs? out|ran out|full|exhaust\w*)"
                   r"|\bout of memory\b", 250), 2, key=True),
         text(near(PERSISTENT, r"\brepeated\w* creat\w*|\bre-?creat\w*|\bcreat\w* "
                   r"(?:a )?new " + A_LOADER + r"s? (?:each|every)", 200), 2.5,
              key=True),
         # Lightning rebuilds persistent, pinning loaders every n epochs: torch leaks their
         # files and threads (pytorch#91252), named in Lightning's own warning
         text(r"(?i)reload_dataloaders_every_n_epochs|pytorch/pytorch/issues/91252", 2.5,
              key=True),
         text(r"(?i)\bmemory\b", 0.5)),
        "each epoch (or evaluation) creates a new DataLoader, iterator, Pool or Manager whose "
        "processes are never shut down (an old iterator is still referenced, a loader with "
        "persistent_workers=True is rebuilt every epoch, a pool is never closed): the process "
        "count and memory grow every epoch until the machine runs out",
        "`ps --ppid <training pid> --no-headers | wc -l` once per epoch: the count grows",
        "create the DataLoader once, outside the epoch loop; drop references to old "
        "iterators; close pools and managers you start (a `with` block); a loader rebuilt "
        "every n epochs (Lightning's reload_dataloaders_every_n_epochs) wants "
        "persistent_workers=False or pin_memory=False",
        priority=70, explains=("copy_on_read_growth", "worker_oom_killed", "pin_memory_thread")),
    Signature(
        "daemon_children", "a worker tried to start processes of its own",
        (text(r"daemonic processes are not allowed to have children", 4, key=True),
         text(r"(?i)\bdaemonic\b", 1)),
        "DataLoader workers are daemon processes, and Python forbids a daemon process to start "
        "children: a multiprocessing Pool or ProcessPoolExecutor, torch.compile's compile "
        "workers, or a DataLoader with num_workers > 0 inside __getitem__ or a transform fails",
        "the traceback's frame that starts a Process or Pool inside the worker",
        "do that work before the DataLoader (precompute it), use threads inside the worker, "
        "TORCHINDUCTOR_COMPILE_THREADS=1 for torch.compile in a worker, num_workers=0 for an "
        "inner DataLoader",
        priority=88, explains=("worker_exception",)),
    Signature(
        "dataloader_failure", "a DataLoader failed; the text does not show why",
        (frame(r"torch/utils/data/", 1, key=True),
         text(r"(?i)\bdata ?loaders?\b", 1, key=True),
         text(r"DataLoader worker|_MultiProcessingDataLoaderIter|_worker_loop", 1, key=True),
         text(r"(?i)\bnum_?workers?\b", 1, key=True)),
        "the log shows a DataLoader failure but not its cause (cut off, or the real error "
        "happened in a worker and was not printed)",
        "rerun with num_workers=0: the real error is raised in the main process "
        "(`loadertune doctor SCRIPT.py` checks this machine and the script)",
        "fix the error the num_workers=0 run shows",
        priority=1, fallback=True, probes=("memory", "shm"),
        context=(text(r"Traceback|\w+(?:Error|Exception)\b|exited unexpectedly|(?i:killed|"
                      r"crash\w*|fail\w*|hang\w*|stuck|freez\w*|\berror\b)"),)),
    Signature(
        "python_signal_glibc", "an old Python cannot block the signals a newer glibc reserves",
        (text(r"signal number 3[23] out of range", 4, key=True),
         text(near(r"resource_sharer\.py", r"pthread_sigmask", 600), 2, key=True)),
        "Python before 3.6.6 (3.5.7) asks the C library to block every signal up to NSIG, "
        "and a newer glibc refuses the two it reserves (32 and 33): the thread that shares "
        "file descriptors between processes (multiprocessing's resource_sharer, used to send "
        "worker batches) dies, and the loader waits for batches that never come",
        "python --version in the job's environment (3.6.5 or older, on a recent base image)",
        "use Python 3.6.6 or newer (3.7+), or an environment image that ships one",
        priority=88, explains=("worker_hang", "worker_exception")),
)
