"""CUDA initialised in the parent before fork; CUDA in workers; pin_memory without accelerator."""

from __future__ import annotations

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, ok, warn
from loadertune.doctor.probes.startmethod import effective_method, script_facts

PROBE = "cuda"
FORK_FIX = ("keep CUDA out of the dataset and the workers (return CPU tensors, move batches "
            "to the GPU in the training loop), or use multiprocessing_context='spawn' / "
            "'forkserver'")


def probe(ctx: DoctorContext) -> list[Finding]:
    acc = ctx.machine.accelerator
    facts = script_facts(ctx)
    method, _ = effective_method(ctx.machine.start_method, facts)
    findings: list[Finding] = []
    if acc is None:
        findings.append(ok(PROBE, "cuda.accelerator", "no accelerator",
                           "torch finds no CUDA/XPU/MPS device: pin_memory=True does nothing "
                           "here (torch warns and ignores it)", accelerator=None))
    else:
        findings.append(ok(PROBE, "cuda.accelerator", f"accelerator: {acc}",
                           f"torch finds a {acc} device: pin_memory=True speeds host-to-device "
                           "copies", accelerator=acc))
    if facts is not None:
        for loader in facts.loaders:
            if loader.pin_memory and acc is None:
                findings.append(warn(PROBE, "cuda.pin_without_accelerator",
                                     "pin_memory=True with no accelerator",
                                     f"line {loader.line} sets pin_memory=True but this "
                                     "machine has no accelerator: torch warns \"'pin_memory' "
                                     "argument is set as true but no accelerator is found\"",
                                     "set pin_memory=torch.cuda.is_available()",
                                     f"{facts.path}:{loader.line}", line=loader.line))
        if method == "fork":
            for line, call in facts.item_cuda:
                findings.append(error(PROBE, "cuda.in_worker", "CUDA used inside the dataset",
                                      f"line {line} calls {call} in __getitem__/__iter__, which "
                                      "runs in forked workers: 'Cannot re-initialize CUDA in "
                                      "forked subprocess'", FORK_FIX, f"{facts.path}:{line}",
                                      line=line))
            if facts.module_cuda and any(lc.workers for lc in facts.loaders):
                line, call = facts.module_cuda[0]
                findings.append(warn(PROBE, "cuda.before_fork",
                                     "CUDA initialised in the parent before workers fork",
                                     f"line {line} ({call}) initialises CUDA at import time; "
                                     "forked workers inherit a CUDA context they cannot use",
                                     FORK_FIX, f"{facts.path}:{line}", line=line))
    if ctx.dataset() is not None and ctx.cuda_initialised_by_import() and method == "fork":
        findings.append(error(PROBE, "cuda.before_fork",
                              "importing the dataset initialised CUDA",
                              "torch.cuda.is_initialized() became True while importing "
                              f"{ctx.target.spec}; workers fork from this process", FORK_FIX))
    sample = ctx.sample() if ctx.dataset() is not None else None
    if sample is not None and sample.cuda:
        findings.append(error(PROBE, "cuda.item_on_gpu", "the dataset returns CUDA tensors",
                              "item 0 contains a CUDA tensor; workers cannot produce CUDA "
                              "tensors under fork, and pin_memory fails on them", FORK_FIX))
    return findings
