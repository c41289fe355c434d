"""Signals, regex fragments and texts several themes share: one place for each word."""

from __future__ import annotations

from loadertune.explain.signature import text

# "is killed by signal: Killed" (and retyped: "killed by signaled: Killed"); the name is on
# the same line (a title may end after "signal")
WORKER_SIGNAL = (r"DataLoader worker \(pid:? ?(?P<pid>[^)\n]*)\) is killed by signal(?:ed)?:?"
                 r"[ \t]+")
SHM_FIX = ("give /dev/shm more room: Docker `--shm-size=8g` or `--ipc=host`, Kubernetes an "
           "emptyDir with medium: Memory at /dev/shm; or lower num_workers, prefetch_factor or "
           "batch_size so fewer bytes are in flight")
CONTAINER = text(r"(?i)\bdocker\b|\bcontainer\b|kubernetes|\bk8s\b|\bpod\b|root@[0-9a-f]{12}\b"
                 r"|nvcr\.io|--shm-size", 0.5)
WINDOWS = text(r"(?i)\bwindows\b|\bwin(?:10|11)\b|[A-Z]:/\w|popen_spawn_win32|/AppData/"
               r"|~/Anaconda3/|Program Files", 0.5)
NUM_WORKERS_ZERO_WORKS = text(r"(?i)num_?workers?\W{0,4}(?:=|to|as|改为|改成|设为|を)?\s*"
                              r"(?:0|zero)\b[^\n]{0,80}(?:works?|fine|solv|fix|disappear"
                              r"|no error|正常|不再|解决|解決|問題なく|動)", 0.5)
WORKERS_CONTEXT = (text(r"(?i)worker|num_workers|dataloader|multiprocess|\bfork"),)

# fragments for `near` and other patterns (no flags: `near` sets them)
# DataPipes warn when built with a lambda (noise alone; a failure once workers pickle it)
DATAPIPE_LAMBDA_WARNING = r"Lambda function is not supported (?:for|by) pickle"
PERSISTENT = r"persistent.?workers?"
A_LOADER = r"(?:data ?loader|loader|iterator)"
# the platforms whose default start method is spawn
SPAWN_PLATFORMS = r"\bwindows\b|\bwin(?:7|10|11|32)\b|\bmac ?os\b|\bosx\b|\bdarwin\b"
# the GPU waiting for data, in words ("GPU idle time is twice the active time")
GPU_WAITS = (r"\bgpu (?:is |sits |stays )?(?:idle|waiting|starv\w*)|\bgpu idle time\b"
             r"|\bgpus? (?:is |are |being )?under-?(?:used|utili[sz]ed)\b")
GPU_USE = r"\bgpu[- ]?(?:util\w*|usage|load)"
# memory told as growing ("RAM keeps increasing", "memory usage is rising")
# a run told as stopped in words
HANGS = r"\bhang\w*|\bhung\b|\bstuck\b|\bfreez\w*"
GROWING = r"\b(?:grow\w*|increas\w*|ris(?:e|es|ing)|climb\w*)"
MEMORY_GROWS = r"\b(?:memory|RAM)\b[^.\n]{0,40}" + GROWING

# A text given to a DataLoader tool is about loading unless it names nothing of it: the one
# guard of the causes told in words (a hang, a slowdown, repeated samples, growing memory),
# so that a report that says "training" or "epoch" instead of "DataLoader" still counts.
ABOUT_LOADING = (text(r"(?i)worker|data ?loader|\bloader\b|\bloading\b|dataset|torch/utils/data"
                      r"|get_?item|multiprocess|\bfork|\bspawn|augment|shuffl|\bsampler\b"
                      r"|collate|\bbatch|\bepochs?\b|\bsteps?\b|\btrain(?:ing|\w*\.py)\b"
                      r"|annotations?\b|data ?prep|\bdecod\w*|\bsamples?\b|\bimread\b"
                      r"|!_src\.empty\(\)|" + GPU_USE + "|"
                      + GPU_WAITS),)
