"""What the machine gives the workers: the CPUs they may run on, storage fast enough."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, GPU_USE, HANGS
from loadertune.explain.signature import Signature, near, text

# object stores and the tools that read from them
REMOTE = (r"s3://|gs://|\bs3\b|\bgcs\b|\bboto3?\b|\baws s3\b|\bgsutil\b|pipe:curl|azure blob"
          r"|\bminio\b|object (?:store|storage)|\bbuckets?\b")
# storage that seeks or travels a network for each file
SLOW_MEDIA = (r"\bHDDs?\b|\bhard ?(?:dis[kc]|drive)s?\b|\bNFS\b|\blustre\b|\bgpfs\b"
              r"|network (?:file ?system|storage|drive|dis[kc])|mechanical (?:dis[kc]|drive)")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "worker_cpu_affinity", "the workers are confined to fewer CPUs than expected",
        # workers inherit the affinity of the process that starts them; a library or a job
        # launcher can narrow it, and every worker then shares those cores
        (text(near(r"sched_(?:get|set)affinity|\b(?:cpu|core) affinity|\baffinity\b|\btaskset\b"
                   r"|--cpu[-_]bind|cpus[-_]per[-_]task", r"\bworkers?\b|data ?loader", 300), 3,
              key=True),
         text(near(r"\bworkers?\b|\bprocess(?:es)?\b|\bdata ?loa?d\w*", r"\b(?:(?:the )?same|one|a "
                   r"single|single|a few)\s+(?:cpu\s+)?cores?\b|\bsingle[- ]core\b"
                   r"|\bonly (?:one|two|a single|[1-4]) (?:cpus?|cores?)\b(?! (?:machine|node|vm))",
                   250),
              2.5, key=True),
         # fewer cores busy than there are workers: they share the few they may run on
         text(near(r"\bonly \d+ (?:out )?of (?:my |the )?\d+ (?:cpus?|cores?)\b",
                   r"(?:even though|although|despite|while|but|with)\b[^.\n]{0,40}\b\d+ "
                   r"(?:data ?loader )?workers\b", 120), 3, key=True),
         text(r"(?i)\bslurm\b|\bsrun\b|\bnumactl\b|OMP_PROC_BIND|KMP_AFFINITY|GOMP_CPU_AFFINITY",
              0.5)),
        "each worker inherits the CPU affinity of the process that starts it; a library "
        "(an OpenMP runtime, a conda-forge build), numactl/taskset or a job launcher (Slurm's "
        "srun, --cpu-bind) narrowed it, so all the workers share one or a few cores however "
        "many num_workers asks for",
        "`loadertune doctor --probe cores` for the main process, and "
        "print(len(os.sched_getaffinity(0))) in worker_init_fn: fewer CPUs in the workers",
        "give the workers the job's cores back in worker_init_fn (os.sched_setaffinity(0, "
        "cores)); with Slurm request --cpus-per-task for the workers and check srun's "
        "--cpu-bind; unset OMP_PROC_BIND / KMP_AFFINITY",
        priority=70, probes=("cores",)),
    Signature(
        "slow_storage", "the storage cannot deliver data as fast as training uses it",
        (text(near(SLOW_MEDIA + r"|spinning|\bslow (?:dis[kc]|storage|drive)",
                   r"\bslow\w*|\bit/s\b|bottleneck|"
                   + GPU_USE + r"|\bidle\b|\bspeed\b|throughput|\bbatch(?:es)? per",
                   250), 2.5, key=True),
         # where the data lives, told as such ("I am loading data from a hdd"): the question
         # is then why it is slow, wherever in the text the slowness is told
         text(near(r"\b(?:load\w*|read\w*|stor\w*|sav\w*|kept|data(?:set)?|images|files)\b"
                   r"[^.\n]{0,30}\b(?:from|on|in) (?:an? |my |the |our )?(?:external )?(?:"
                   + SLOW_MEDIA + ")",
                   r"\bslow\w*|\bit/s\b|bottleneck|" + GPU_USE + r"|\bidle\b|throughput", 1500),
              2.5, key=True),
         text(r"(?i)\b(?:i/?o|disk|storage)[- ](?:bound|bottleneck|limited|wait)\b|\biowait\b", 2,
              key=True),
         # the first epoch slow, the later ones fast: they read from the page cache what the
         # first had to fetch from the storage
         text(near(r"\bfirst epoch\b[^.\n]{0,60}\b(?:slow\w*|takes?|took|minutes|hours)\b",
                   r"\b(?:second|2nd|later|subsequent|following|next|other) epochs?\b[^.\n]{0,80}"
                   r"\b(?:fast\w*|quick\w*|better|normal|fine|less than)\b", 300), 2.5, key=True),
         # workers in uninterruptible sleep (state D) wait on the disk
         text(r"(?i)\bD[ -]?(?:state|状态)|\buninterruptible (?:sleep|i/?o)\b", 2.5, key=True),
         # loading is slow while the CPUs idle: the workers wait on reads, not on work
         text(near(r"\b(?:cpus?|cores)\b[^.\n]{0,30}\b(?:idle|not (?:fully )?(?:used|utili[sz]ed)|"
                   r"underutili[sz]ed)\b|\b(?:lot of|plenty of|much) (?:cpu|core)s? idle|\blow "
                   r"(?:\w+ )?utili[sz]ation (?:on|of) (?:my |the )?(?:cpus?|cores)\b"
                   r"|\bonly \d+ (?:or \d+ )?(?:out )?of (?:my |the )?\d+ cores",
                   r"\bslow\w*|\bgpu\b|\bdays\b|\bworkers?\b", 200), 2.5, key=True),
         # the GPU waits while the data is read: caching it in RAM is what the user tries
         text(near(r"\b(?:load\w*|read\w*|cach\w*|put\w*|keep\w*) (?:the |all |whole )?(?:\w+ )?"
                   r"(?:data(?:set)?|images|files) (?:in|into) (?:the )?(?:ram|memory)\b"
                   r"|\bcache=True\b|\bpreload\w*", GPU_USE + r"|\bgpu (?:is )?idle", 250), 2,
              key=True),
         # slower since the data is read per sample instead of held in memory
         text(near(r"\bInMemoryDataset\b|\bin[- ]memory (?:dataset|data|cache)\b",
                   r"\b(?:speed|it/s)\b[^.\n]{0,30}\bdrop\w*|\bmuch slower\b|\bslow(?:s|ed)?"
                   r" down\b",
                   300), 2, key=True),
         text(r"(?i)\bSSD\b|\bNVMe\b|local (?:disk|drive|storage)", 0.5)),
        "batches wait for storage: the disk or network file system delivers fewer bytes (or "
        "random reads) per second than training consumes (a hard disk seeking between many "
        "small files, NFS/Lustre/S3 latency); more workers help only until the storage is "
        "saturated",
        "`loadertune doctor --probe storage DATA_DIR` (read speed and kind of device of the "
        "dataset's files)",
        "copy the data to a local SSD/NVMe or RAM, pack small files into shards read "
        "sequentially (webdataset, LMDB), cache decoded samples; then tune num_workers and "
        "prefetch_factor",
        priority=65, probes=("storage",)),
    Signature(
        "remote_storage_overloaded", "too many workers stream from remote storage at once",
        (text(near(REMOTE, r"broken ?pipe|connection (?:reset|aborted|closed)|\bSlowDown\b"
                   r"|\b503\b|\b429\b|too many requests|rate[- ]?limit\w*|throttl\w*"
                   r"|read timed? ?out", 2000), 2.5, key=True),
         text(r"Reduce your request rate|\(SlowDown\)", 3, key=True),
         text(near(REMOTE, r"num_?workers\W{0,4}(?:=|to|of|is)?\s*(?:[2-9]\d|\d{3,})\b"
                   r"|\b(?:[2-9]\d|\d{3,}) workers\b|\b(?:too )?many workers\b", 1500), 1),
         text(r"(?i)\bwebdataset\b|\bwds\.|streaming=True|\bStreamingDataset\b", 0.5)),
        "every worker on every rank opens its own streams to the object store (S3, GCS, "
        "HTTP): ranks x num_workers connections at once exceed what the store or the network "
        "allows, so requests are throttled (SlowDown, 503, 429) or connections dropped, which "
        "the loader sees as broken pipes, resets and timeouts",
        "count the streams (ranks x num_workers) and rerun one rank with a quarter of the "
        "workers; `loadertune bench DATASET --workers 2,4,8,16` shows where throughput stops "
        "growing",
        "fewer workers per rank (the store serves all ranks' workers at once), retries with "
        "backoff (boto3 Config(retries={'mode': 'adaptive'}), webdataset "
        "handler=wds.warn_and_continue), larger shards (fewer requests), or a local cache of "
        "the shards",
        priority=68, context=ABOUT_LOADING),
    Signature(
        "security_agent_stall", "an antivirus or endpoint agent scans the workers",
        (text(near(r"\bantivirus\w*|\banti-virus\b|\bDefender\b|\bmdatp\w*|\bCrowdStrike\b"
                   r"|\bfalcon[- ]sensor\b|\bSophos\b|\bMcAfee\b|\bCarbon Black\b"
                   r"|\bendpoint (?:security|protection)\b|\breal-?time (?:protection|scan\w*)",
                   r"\bworkers?\b|data ?loader|\bhang\w*|\bstall\w*|\bslow\w*|\bfreez\w*"
                   r"|\bstuck\b", 400), 3, key=True),),
        "a security agent (Microsoft Defender for Endpoint, CrowdStrike, Sophos; Windows "
        "Defender's real-time protection) inspects each new process and the files it opens: "
        "the workers' start, imports and every sample read wait on it, so the loader hangs "
        "or crawls only on the machines that run the agent",
        "ps -eo comm | grep -iE 'mdatp|wdavdaemon|falcon|sophos|mcafee|cbagent' (Windows: "
        "Get-MpComputerStatus); a host without the agent does not stall",
        "exclude the Python environment and the data folders from scanning (or the agent's "
        "process monitoring of the training job), with whoever manages the agent",
        priority=72, context=ABOUT_LOADING),
    Signature(
        "output_pipe_full", "the job's output goes into a pipe nobody reads",
        (text(near(r"std(?:out|err)\s*=\s*(?:subprocess\.)?PIPE|\b(?:stdout|stderr|output|logs?)\b"
                   r"[^.\n]{0,60}\bpipes?\b|\bpipes?\b[^.\n]{0,40}\b(?:buffers?|fill\w*|full)\b"
                   r"|\b(?:fill\w*|full)\b[^.\n]{0,80}\bpipes?\b",
                   HANGS + r"|\bfroze\w*|\bblock\w*", 400), 3, key=True),
         text(r"\bpipe_write\b", 2, key=True),
         text(r"(?i)\bweb ?ui\b|\bgui\b|\bPopen\b|\blauncher\b", 0.5)),
        "a launcher (a web UI, a GUI, a distributed launcher, subprocess.Popen with "
        "stdout=PIPE) reads the training's output through a pipe and stopped reading it: "
        "once the pipe's buffer (64 KiB on Linux) is full the next print, log line or "
        "progress bar blocks, and training stops wherever it writes next (often an epoch "
        "or evaluation start)",
        "py-spy dump --pid <trainer> shows a write (pipe_write in the kernel stack: cat "
        "/proc/<pid>/stack); ls -l /proc/<pid>/fd/1 /proc/<pid>/fd/2 names a pipe",
        "have the launcher drain the output (a reader thread, or communicate()), send it to a "
        "file instead of a pipe, or run training directly from a shell",
        priority=72, context=ABOUT_LOADING),
    Signature(
        "whole_dataset_in_memory", "the whole dataset is built in memory at once",
        (text(near(r"\bInMemoryDataset\b|\bself\.collate\(|\bcollate\(data_?list\)",
                   r"posix_memalign|out of memory|Cannot allocate memory|DefaultCPUAllocator|"
                   r"\bKilled\b", 800), 2.5, key=True),),
        "a dataset that preprocesses by gathering every sample into one in-memory structure "
        "(PyG's InMemoryDataset.collate of all graphs, a list of decoded tensors saved as "
        "one file) needs RAM for all of it at once, plus copies while concatenating: with "
        "millions of samples that is more than the machine has",
        "estimate the collated size (samples x bytes per sample) against free RAM (free -g)",
        "store the samples on disk one file (or shard) each and load them in __getitem__ "
        "(PyG's Dataset instead of InMemoryDataset), or collate in chunks",
        priority=84),
)
