"""`TuneResult`: the recommended DataLoader kwargs and the evidence behind them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loadertune.bench.sweep import SweepResult
from loadertune.config import LoaderConfig
from loadertune.machine import MachineInfo
from loadertune.trial import TrialPlan
from loadertune.trial.results import TrialResult


@dataclass
class TuneResult:
    """What `tune` recommends and why: every trial, the reason the search stopped, its cost.

    ``kwargs`` are DataLoader keyword arguments without ``batch_size``; ``reason`` says why the
    search stopped (or what limited it); ``notes`` explain the other settings; ``seconds`` is
    the wall time spent tuning (near zero when ``from_store``).
    """

    kwargs: dict[str, Any]
    config: LoaderConfig
    trials: list[TrialResult]
    reason: str
    seconds: float
    from_store: bool = False
    notes: list[str] = field(default_factory=list)
    dataset: str = ""
    spec: str | None = None
    machine: MachineInfo | None = None
    plan: TrialPlan | None = None
    probe: dict[str, Any] | None = None
    stopped_by: str = "search"       # search | budget | interrupted
    run_id: int | None = None
    started_at: str = ""
    fingerprints: dict[str, Any] = field(default_factory=dict)
    interrupt: BaseException | None = field(default=None, repr=False, compare=False)

    @property
    def best(self) -> TrialResult | None:
        """The recommended config's result (its trials pooled when it was re-measured)."""
        from loadertune.trial.compare import merge

        return next((r for r in merge(self.trials) if r.config == self.config and r.ok), None)

    def samples_per_s(self) -> float | None:
        best = self.best
        return best.samples_per_s if best else None

    def dataloader_line(self) -> str:
        """``DataLoader(dataset, batch_size=..., ...)`` ready to paste."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.to_kwargs().items())
        return f"DataLoader(dataset, {args})"

    def as_sweep(self) -> SweepResult:
        """The trials as a SweepResult, for the bench table and plot."""
        machine = self.machine
        assert machine is not None, "a TuneResult without machine facts cannot be shown"
        trials = sorted(self.trials, key=lambda r: (r.config.num_workers,
                                                    r.config.effective_prefetch,
                                                    r.config.pin_memory))
        return SweepResult(machine=machine, dataset=self.dataset, spec=self.spec,
                           plan=self.plan or TrialPlan(), results=trials,
                           started_at=self.started_at, duration_s=self.seconds,
                           interrupted=self.stopped_by == "interrupted")

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "loadertune": "tune",
            "kwargs": self.kwargs,
            "config": self.config.to_dict(),
            "dataloader": self.dataloader_line(),
            "samples_per_s": best.samples_per_s if best else None,
            "reason": self.reason,
            "notes": list(self.notes),
            "seconds": self.seconds,
            "from_store": self.from_store,
            "stopped_by": self.stopped_by,
            "run_id": self.run_id,
            "started_at": self.started_at,
            "dataset": self.dataset,
            "spec": self.spec,
            "machine": self.machine.to_dict() if self.machine else None,
            "plan": self.plan.to_dict() if self.plan else None,
            "probe": self.probe,
            "fingerprints": self.fingerprints,
            "trials": [r.to_dict() for r in self.trials],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TuneResult:
        config = LoaderConfig.from_dict(data["config"])
        machine = data.get("machine")
        plan = data.get("plan")
        return cls(
            kwargs=dict(data.get("kwargs") or config.to_kwargs(include_batch_size=False)),
            config=config,
            trials=[TrialResult.from_dict(t) for t in data.get("trials") or []],
            reason=data.get("reason", ""),
            seconds=float(data.get("seconds", 0.0)),
            from_store=bool(data.get("from_store", False)),
            notes=list(data.get("notes") or []),
            dataset=data.get("dataset", ""),
            spec=data.get("spec"),
            machine=MachineInfo(**machine) if machine else None,
            plan=TrialPlan(**plan) if plan else None,
            probe=data.get("probe"),
            stopped_by=data.get("stopped_by", "search"),
            run_id=data.get("run_id"),
            started_at=data.get("started_at", ""),
            fingerprints=dict(data.get("fingerprints") or {}),
        )
