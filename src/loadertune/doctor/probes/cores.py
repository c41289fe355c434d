"""CPUs: os.cpu_count vs sched_getaffinity vs the cgroup quota, and the workers that fit."""

from __future__ import annotations

import math

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, ok, warn

PROBE = "cores"


def workers_that_fit(usable: float) -> int:
    """Workers that fit beside the main (training) process: one core each, at least 1."""
    return max(math.floor(usable + 1e-9) - 1, 1)


def probe(ctx: DoctorContext) -> list[Finding]:
    facts = ctx.machine
    count, affinity = facts.logical_cpus, facts.affinity_cpus
    quota, lws, usable = facts.cgroup_cpu_quota, facts.local_world_size, facts.usable_cpus
    fit = workers_that_fit(usable)
    quota_text = f"{quota:g} CPUs" if quota is not None else "none"
    evidence = (f"os.cpu_count()={count}, sched_getaffinity={affinity}, cgroup quota="
                f"{quota_text}, local ranks={lws} -> {usable:g} usable CPU(s) per process")
    data = {"cpu_count": count, "affinity": affinity, "cgroup_quota": quota,
            "local_world_size": lws, "usable": usable, "workers_fit": fit}
    findings = [ok(PROBE, "cores.summary", f"{fit} worker(s) fit on {usable:g} usable CPU(s)",
                   evidence + f"; one core stays with the main process -> num_workers<={fit}",
                   **data)]
    if affinity < count:
        findings.append(warn(PROBE, "cores.affinity", f"only {affinity} of {count} CPUs allowed",
                             f"sched_getaffinity allows {affinity} CPU(s) but os.cpu_count() "
                             f"says {count} (taskset, numactl or a cpuset)",
                             "size num_workers from len(os.sched_getaffinity(0)), not "
                             f"os.cpu_count(): here at most {fit} worker(s)", **data))
    if quota is not None and quota < affinity:
        findings.append(warn(PROBE, "cores.quota", f"cgroup CPU quota of {quota:g} CPUs",
                             f"the container's CPU quota ({quota:g} CPUs) is "
                             f"below the {affinity} CPUs it can see; os.cpu_count() and "
                             "sched_getaffinity overstate what it may use",
                             f"use at most {fit} worker(s) or raise the quota (docker "
                             "--cpus, Kubernetes resources.limits.cpu)", **data))
    if lws > 1:
        findings.append(ok(PROBE, "cores.ranks", f"{lws} local ranks share the CPUs",
                           f"LOCAL_WORLD_SIZE={lws}: each rank's loader gets {usable:g} CPUs",
                           **data))
    if ctx.num_workers is not None and ctx.num_workers > fit:
        findings.append(_too_many(ctx.num_workers, fit, usable, evidence, data))
    return findings


def _too_many(workers: int, fit: int, usable: float, evidence: str,
              data: dict[str, object]) -> Finding:
    """More workers than CPUs time-share them (a warning); as many as CPUs only leaves the
    training step without a core of its own, which measurement should settle (a note)."""
    cores = max(math.floor(usable + 1e-9), 1)
    measure = ("unless items mostly wait on storage or network (then more workers than cores "
               "pay); `loadertune tune` measures which")
    if workers > cores:
        return warn(PROBE, "cores.too_many_workers",
                    f"num_workers={workers} exceeds the {cores} usable CPU(s)", evidence,
                    f"use num_workers<={fit}: more workers than cores time-share the CPUs "
                    f"with the training step and each other, {measure}", **data)
    return ok(PROBE, "cores.too_many_workers",
              f"num_workers={workers} leaves no core to the main process",
              f"{evidence}; fine when the training step is light (the GPU does the work); with "
              f"a CPU-heavy step try num_workers={fit}, {measure}", **data)
