"""The loader runs but too slowly: workers restarted each epoch, too few of them."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "workers_restart_each_epoch", "the workers are started again for every epoch",
        # the dataset pickled, or workers started, again for each new iterator / epoch
        (text(near(r"\b(?:re-?)?(?:pickl|unpickl|creat|start|spawn|launch|initiali[sz]|fork)\w*",
                   r"\b(?:every|each)\s+(?:time\b[^.\n]{0,40}?\bnew\s+iter\w*|new\s+iter\w*"
                   r"|epoch)", 80), 2, key=True),
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
         text(r"(?i)persistent_workers", 1),
         # the fix told as a speed-up ("persistent_workers=True ... speed up ... second epoch")
         text(near(r"persistent.?workers", r"\bspeed\w*|\bfaster\b|\bslow\w*|\boverhead\b"
                   r"|\b(?:second|next|each|every) epoch", 150), 2, key=True),
         text(r"(?i)\bmp\.spawn\b|\bspawn\b|\bforkserver\b", 0.5),
         # evidence for other causes: memory that grows, samples that repeat
         text(r"(?i)\bmemory\b|\bRAM\b|\bOOM\b|\bleak|duplicat|same (?:augment|random)", -2)),
        "persistent_workers is False (the default): each new iterator over the DataLoader (each "
        "epoch, each iter(loader)) shuts its workers down and starts num_workers new ones, and "
        "under spawn pickles the dataset to each again; with several ranks on one machine that "
        "is ranks x workers process starts per epoch, time not spent loading",
        "`loadertune bench DATASET --persistent both` (time to first batch, with and without)",
        "DataLoader(persistent_workers=True) and create the iterator once; fewer workers when "
        "each start is expensive (a large dataset pickled under spawn)",
        priority=45, context=(text(r"(?i)worker|load(?:er|ing)|multiprocess|\bfork|\bspawn"
                                   r"|\bbetween (?:\w+ ){0,2}epochs"),)),
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
         text(near(r"num_?workers\W{0,4}(?:=|is)?\s*0\b|(?:no|without|not set\w*|none of)"
                   r"[^\n]{0,40}num_?workers", r"\bslow\w*|bottleneck|cpu usage|high cpu", 150),
              1.5, key=True),
         # the GPU starved: the classic sign of a loader that cannot keep up
         text(near(r"\bgpu[- ]?(?:util\w*|usage|load)", r"\blow\b|\bdrops?\b|fluctuat\w*|\bidle\b"
                   r"|\b0 ?%", 60), 2, key=True),
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
        priority=40, context=(text(r"(?i)worker|load(?:er|ing)|data ?prep|\bstep|\bbatch"
                                   r"|\bgpu[- ]?util"),)),
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
