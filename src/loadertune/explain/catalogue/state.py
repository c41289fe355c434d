"""What each worker holds of its own: a copy of the dataset and the seed it started from."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "persistent_workers_stale_state", "persistent workers never see the dataset change",
        # set_epoch, a curriculum or any attribute set in the main process after the start
        (text(near(r"persistent.?workers", r"\bset_epoch\b|\bignored\b|\bstale\b|out of sync|"
                   r"\bnot (?:be )?(?:propagat\w*|reflected|updated|synced|seen|passed)|\bnever "
                   r"(?:propagat\w*|reach\w*|updated|seen)|\bold (?:value|state|copy|epoch)",
                   200), 3, key=True),
         text(near(r"\bset_epoch\b", r"\bworkers?\b", 200), 1),
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
        "fixed_loader_generator", "every run draws the same randomness in its workers",
        # workers seed torch, random and numpy from the loader's base seed, which comes from
        # its generator: a generator seeded with a constant fixes all of them
        (text(near(r"\bseed\b`?", r"\b(?:never|not|n't)\s+(?:\w+\s+)?(?:reach\w*|propagat\w*|"
                   r"passed|appl\w*|take effect|used)|\bno matter (?:what|which)|\bregardless of"
                   r"|\bwhatever (?:the )?(?:value of )?`?seed", 150), 2, key=True),
         text(near(r"\b(?:same|identical)\b", r"\b(?:every|each|all|across|between|different)"
                   r"\s+(?:\w+\s+)?runs?\b|\bevery (?:value of )?`?seed", 120), 1.5, key=True),
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
        priority=60, context=(text(r"(?i)worker|data ?loader|augment\w*|shuffl\w*"),)),
)
