"""What each worker holds of its own (a copy of the dataset, the seed it started from) and
the random state the loader and its sampler draw from."""

from __future__ import annotations

from loadertune.explain.catalogue.common import (
    A_LOADER,
    ABOUT_LOADING,
    GROWING,
    PERSISTENT,
)
from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "iterator_per_step", "a new iterator over the loader at every step",
        # next(iter(loader)) in the loop body: each call starts the loader from its beginning
        (text(r"(?m)^[ \t]*(?:for|while)\b[^\n]*:[ \t]*\n(?:[^\n]*\n){0,6}?[^\n]*\bnext\(\s*iter"
              r"\(", 3, key=True),
         text(near(r"\bnext\(\s*iter\(", r"\b(?:each|every) (?:iteration|step|batch|time)\b"
                   r"|\bin(?:side)? (?:the |a |each |every )?(?:\w+ )?loop\b", 300), 2, key=True),
         text(r"(?i)\b(?:always|every time|each time|over and over)\b[^.\n]{0,40}\bfirst "
              r"batch\b|\bfirst batch\b[^.\n]{0,40}\b(?:every time|each time|over and over"
              r"|again and again)", 2, key=True)),
        "next(iter(loader)) inside the loop makes a new iterator every step, and a new "
        "iterator starts from the loader's beginning: unshuffled it returns the first batch "
        "every time, shuffled a random batch (never a full epoch), and with num_workers > 0 "
        "it starts and stops all workers for each batch",
        "print the sample indices (or a checksum) of a few steps' batches: the same ones "
        "every step",
        "create the iterator once outside the loop (it = iter(loader), then next(it) per "
        "step, a new iter() when it raises StopIteration) or loop `for batch in loader`",
        priority=72, context=ABOUT_LOADING),
    Signature(
        "persistent_workers_stale_state", "persistent workers never see the dataset change",
        # set_epoch, a curriculum or any attribute set in the main process after the start
        (text(near(PERSISTENT, r"\bset_\w*epoch\w*|\bignored\b|\bstale\b|out of sync|"
                   r"(?:always|still|stays?|remains?)\s+(?:\S+\s+){0,6}(?:the same|equal to|at) "
                   r"(?:the |its )?(?:initial\w*|first|original|old)|\bchange (?:the )?workers?'?s?"
                   r"'? (?:\w+ )?attribute|\b(?:not|never) observ\w*|\bdo ?n'?t see\b"
                   r"|epoch\s*==\s*0\b|\bnot (?:be )?(?:propagat\w*|reflected|updated|synced|seen"
                   r"|passed)|\bnever "
                   r"(?:propagat\w*|reach\w*|updated|seen)|\bold (?:value|state|copy|epoch)",
                   200), 3, key=True),
         text(near(r"\bset_\w*epoch\w*", r"\bworkers?\b", 200), 1),
         text(near(PERSISTENT, r"\bsame (?:\w+ ){0,2}(?:samples?|data|order|batches)\b"
                   r"[^.\n]{0,40}\b(?:every|each|across) epochs?", 200), 2, key=True),
         text(r"(?i)persistent_workers\s*=\s*True", 0.5)),
        "with persistent_workers=True each worker keeps the copy of the dataset it received "
        "when the loader first started; whatever the main process changes on its dataset "
        "afterwards (set_epoch, a curriculum step, a new attribute) stays in the main "
        "process, so the workers go on with the first epoch's state",
        "print the attribute (the epoch) inside __iter__/__getitem__ next to "
        "torch.utils.data.get_worker_info().id: it never changes",
        "keep the changing value in shared memory (multiprocessing.Value, a shared tensor) "
        "read inside the worker, pass it through the sampler (samplers run in the main "
        "process), or use persistent_workers=False so each epoch copies the dataset anew",
        priority=75),
    Signature(
        "cached_sample_mutated", "transforms change the dataset's cached samples in place",
        # a cache that hands out its own objects: what a transform adds stays in the cache
        (text(near(r"\bCache\w*Dataset\b|\bcach(?:e|ed|ing)\b", PERSISTENT, 200), 2,
              key=True),
         text(near(r"\bcach\w*", r"\bin[- ]place\b|\bdeep ?copy\w*|\bshallow(?:ly)? cop\w*"
                   r"|\bmutat\w*", 200), 2.5, key=True),
         text(near(r"\bcach\w*", r"\b(?:second|2nd|next|later) epoch\b|\bepoch 2\b"
                   r"|\bfirst epoch (?:works|is fine|runs)", 300), 1.5)),
        "the dataset caches samples and returns the cached objects themselves; transforms "
        "that change a sample in place (append to a list, add a key, normalise an array) "
        "change the cache, so the next epoch starts from samples already transformed and "
        "drifts further each epoch (with persistent workers the workers' caches keep it), "
        "until shapes or lengths differ and collate fails",
        "compare dataset[0] before and after one epoch: the cached sample has changed",
        "return a copy from the cache (copy.deepcopy(sample), or copy the arrays), or make "
        "the transforms return new objects; a library's caching dataset may need an upgrade "
        "(MONAI's CacheDataset deep-copies since its fix of issue 2116)",
        priority=72, context=ABOUT_LOADING,
        explains=("collate_size_mismatch", "workers_restart_each_epoch")),
    Signature(
        "dataset_order_per_worker", "each worker's copy of the dataset keeps its own order",
        # some items twice and others never in one epoch: the workers disagree on the order
        (text(near(r"\b(?:duplicat\w*|repeat\w*|twice|identical|the same)\b",
                   r"\b(?:dropp\w*|missing|skipp\w*|never (?:seen|appear\w*|shown|used))\b",
                   120), 3, key=True),
         text(r"(?i)\b(?:batches|samples|images|items)\b", 0.5),
         text(r"(?i)\bworkers?\b", 0.5)),
        "the dataset decides the order itself (a list of items or batches it shuffles in "
        "__init__ or at each epoch with its own random generator); each worker holds its own "
        "copy and shuffles it differently or at another time, so the index the sampler sends "
        "means a different item in each worker: within one epoch some items come twice and "
        "others never",
        "hash or print the items of one epoch with num_workers=0 and with 2: duplicates and "
        "gaps appear only with workers",
        "let the sampler own the order (shuffle=True or a sampler seeded in the main process) "
        "and keep the dataset's item list fixed; or reshuffle with a seed every worker "
        "shares (the epoch number), never per worker",
        priority=72, context=ABOUT_LOADING, explains=("iterable_duplicates",)),
    Signature(
        "fixed_loader_generator", "every run draws the same randomness in its workers",
        # workers seed torch, random and numpy from the loader's base seed, which comes from
        # its generator: a generator seeded with a constant fixes all of them
        (text(near(r"\bseed\b`?", r"\b(?:never|not|n't)\s+(?:\w+\s+)?(?:reach\w*|propagat\w*|"
                   r"passed|appl\w*|take effect|used)|\bno matter (?:what|which)|\bregardless of"
                   r"|\bwhatever (?:the )?(?:value of )?`?seed", 150), 2, key=True),
         text(near(r"\b(?:same|identical)\b", r"\b(?:every|each|across|between|different|two|"
                   r"several)\s+(?:\w+\s+)?runs?\b|\ball (?:the |my )?runs\b"
                   r"|\bevery (?:value of )?`?seed", 120), 1.5, key=True),
         # the same base seed on every rank: each rank's workers augment alike
         text(near(r"\bsame (?:\w+ ){0,2}(?:seeds?|random\w*)|\b(?:synchroni[sz]\w*|shared?)\b"
                   r"[^\n]{0,40}\bgenerator|\bbase_seed\b", r"\b(?:ranks?|processes|gpus|nodes"
                   r"|devices)\b", 150), 3, key=True),
         text(r"(?i)generator\.manual_seed\(\s*\d{3,}|torch\.Generator\(\)\.manual_seed\(\s*\d",
              1.5),
         text(r"(?i)\bworkers?\b|num_workers", 0.5)),
        "each worker seeds torch, `random` and numpy from the DataLoader's base seed, drawn "
        "from its generator (or the global torch RNG); when that generator is seeded with a "
        "constant, or the user's seed never reaches it, every run shuffles and augments "
        "identically whatever seed it is given",
        "hash the first batches of two runs with different seeds: they are identical",
        "seed the DataLoader's generator from the run's seed "
        "(generator=torch.Generator().manual_seed(seed)), and seed numpy per worker from "
        "torch.initial_seed() in worker_init_fn",
        priority=60, context=ABOUT_LOADING),
    Signature(
        "sampler_set_epoch_missing", "DistributedSampler shuffles the same way every epoch",
        (text(near(r"\bset_epoch\b", r"DistributedSampler|\bdistributed\b|\bddp\b", 300), 2.5,
              key=True),
         # told as the call that is missing ("set_epoch not called for BatchSampler")
         text(r"(?i)\bset_epoch\b\W{0,3}(?:\(\w*\) )?(?:is |was |gets |got )?(?:not|never|n't) "
              r"(?:being )?called|\b(?:not|never|n't|without) call\w* (?:\w+\.)*set_epoch\b", 2,
              key=True),
         text(r"(?i)the same ordering will be always used|\bsame (?:order\w*|shuffl\w*|"
              r"permutation|sequence)\s+(?:\w+\s+){0,3}(?:every|each|all) epochs?", 2.5, key=True),
         text(near(r"\bnot (?:\w+\s+)?(?:re-?)?shuffled|\bsame order\w*|\bno (?:re-?)?shuffl\w*",
                   r"\b(?:each|every|per)[- ]epoch|\bacross epochs\b", 80), 2, key=True),
         text(r"(?i)DistributedSampler", 1)),
        "DistributedSampler seeds its shuffle with seed + epoch, and the epoch only changes "
        "when set_epoch(epoch) is called: without that call every epoch visits the data in "
        "the same order on every rank",
        "print the first indices of two epochs from the sampler: they are the same",
        "call sampler.set_epoch(epoch) at the start of every epoch, before iterating the "
        "loader (Lightning and Accelerate do it for their own samplers)",
        priority=70),
    Signature(
        "iterator_consumes_rng", "each new loader iterator moves the global random state",
        (text(near(r"(?:fixed|same|set|manual) seed|\breproduc\w*|manual_seed",
                   r"\b(?:another|second|extra|additional|other) " + A_LOADER +
                   r"|\bcreat\w* (?:an? )?(?:new |another )?(?:data ?loader|iterator)"
                   r"|data ?loaders? (?:will )?affect\w*", 250), 2.5, key=True),
         text(near(r"\biterat\w* (?:over )?(?:an? |the )?(?:\w+ )?(?:data ?loader|loader)",
                   r"\bchang\w* (?:the )?(?:seed|random|rng)\w*|\bdifferent results?\b", 150), 2.5,
              key=True),
         # a validation or sanity-check pass changes the training order
         text(near(r"\b(?:val\w*|sanity|test|eval\w*)\s+(?:\w+\s+){0,2}(?:data ?loader|loader|loop"
                   r"|steps?|iterat\w*|pass\w*)", r"\b(?:affect\w*|chang\w*|shift\w*|alter\w*"
                   r"|advanc\w*)\b[^.\n]{0,60}\b(?:shuffl\w*|order\w*|indices|seeds?|random\w*|rng)",
                   200), 3, key=True),
         text(r"(?i)\brandom (?:state|mechanism|numbers?|stream)|\bRNG\b", 0.5)),
        "each time a loader iterator starts (iter(loader), each epoch, a sanity check) it "
        "draws its base seed, and a RandomSampler its permutation, from the global torch "
        "RNG: one more loader or iteration shifts every random number drawn after it, so a "
        "fixed seed gives other results",
        "seed, create a second loader's iterator, then draw torch.rand(1): it differs from "
        "the run without that iterator",
        "give each DataLoader its own generator=torch.Generator().manual_seed(seed) so it "
        "does not draw from the global RNG; seed after creating the loaders",
        priority=55),
    Signature(
        "iteration_state_leak", "every new pass over the loader leaves state behind",
        # memory that grows with each new iterator (each epoch), not within one pass
        (text(near(r"\bre-?iterat\w*|\biter\(\s*\w*loader\w*\s*\)|\bnew iterators?\b",
                   r"\b(?:memory|RAM)\b[^.\n]{0,40}(?:" + GROWING + r"|\bexplod\w*|\bblow\w* up"
                   r"|\bleak\w*)", 300), 3, key=True),
         # and reusing one iterator does not grow
         text(near(r"\b(?:same|one|single)\s+(?:\w+\s+){0,2}iterators?\b",
                   r"\bfine\b|\bno (?:leak|growth|problem)|\bstable\b|\bflat\b", 150), 2,
              key=True)),
        "the dataset, its sampler or a wrapper around them keeps the state of a pass on the "
        "object (the buckets of a grouping or bucketing wrapper, a list it appends to, a cache "
        "of items) instead of in the iterator: each new iter(loader), so each epoch, adds to "
        "what the last one left, and host RAM grows epoch after epoch, also with num_workers=0",
        "loop over a few fresh iter(loader) passes with num_workers=0 and print the RSS "
        "(psutil.Process().memory_info().rss) after each: it rises with every pass and stays "
        "flat when one iterator is reused",
        "keep a pass's state in __iter__'s own locals (write it as a generator) or reset it "
        "when a pass starts, bound any cache, or build the iterator once and reuse it "
        "(detectron2: a release with the re-iterable AspectRatioGroupedDataset)",
        priority=66, context=ABOUT_LOADING, probes=("memory",),
        explains=("copy_on_read_growth", "worker_oom_killed", "workers_restart_each_epoch")),
)
