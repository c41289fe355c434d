"""What training frameworks do to the user's loader before the first batch."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

FRAMEWORKS = r"lightning|\blite\b|\bfabric\b|accelerate|\btrainer\b|setup_dataloaders|prepare"

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "framework_rebuilds_loader", "the framework rebuilt the loader with its own sampler",
        (text(r"Trying to inject `?DistributedSampler`? into", 4, key=True),
         text(r"(?i)\breplace_sampler_ddp\b|\buse_distributed_sampler\b", 2, key=True),
         # told in words: the user's sampler or shuffle replaced when the run went distributed
         text(near(r"\b(?:replac\w*|inject\w*|overrid\w*|swap\w*|forc\w*)\b[^.\n]{0,60}"
                   r"\b(?:sampler|shuffle)", FRAMEWORKS, 300), 2.5, key=True),
         text(r"(?i)\bre-?instantiat\w* (?:the |my |your )?(?:data ?loader|loader)|"
              r"\bsetup_dataloaders\b|\bprepare_data_loader\b", 1),
         text(r"(?i)DistributedSampler", 0.5)),
        "under DDP, Lightning (Trainer, Fabric/Lite) and Accelerate rebuild the DataLoader to "
        "put a DistributedSampler in it: they call its class again with the arguments they "
        "can read back from its attributes, so a sampler you set is replaced, shuffle comes "
        "from their defaults, and a DataLoader subclass whose constructor arguments are not "
        "stored under the same names cannot be rebuilt",
        "print(type(loader.sampler)) on the loader the framework hands back "
        "(trainer.train_dataloader, or what setup_dataloaders / prepare returns)",
        "build the DistributedSampler yourself (wrapping your own sampler, with the shuffle "
        "you want) and turn the replacement off: Trainer(use_distributed_sampler=False) "
        "(replace_sampler_ddp=False before Lightning 2.0), Fabric.setup_dataloaders(..., "
        "use_distributed_sampler=False); keep a DataLoader subclass's constructor arguments "
        "as attributes of the same names",
        priority=70),
)
