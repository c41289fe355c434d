"""What the probes look at: the target (script and/or dataset), planned settings, the machine."""

from __future__ import annotations

import contextlib
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loadertune import machine
from loadertune.errors import LoadertuneError
from loadertune.pipeline import LoadedDataset, load_dataset, split_spec

SAMPLE_TIME_LIMIT_S = 10.0


@dataclass
class Target:
    """``doctor``'s argument split into a script to read and a dataset spec to import."""

    raw: str | None = None
    script: Path | None = None
    spec: str | None = None


def parse_target(raw: str | None) -> Target:
    """``a.py`` -> script; ``a.py:make`` -> script and dataset; ``pkg.mod:ds`` -> dataset."""
    if raw is None:
        return Target()
    path = Path(raw).expanduser()
    if path.suffix == ".py" and ":" not in path.name:
        if not path.is_file():
            raise LoadertuneError(f"script {raw!r} does not exist; pass an existing .py file "
                                  "or a dataset as module:attr / script.py:attr")
        return Target(raw, script=path.resolve())
    if ":" not in raw:
        if path.exists():
            raise LoadertuneError(f"{raw!r} is not a Python script; pass SCRIPT.py or a "
                                  "dataset as module:attr / script.py:attr")
        raise LoadertuneError(f"{raw!r} is neither a .py script nor a dataset spec; use "
                              "SCRIPT.py, module:attr or script.py:attr")
    module, _ = split_spec(raw)
    script = None
    if module.endswith(".py"):
        script_path = Path(module).expanduser()
        if not script_path.is_file():
            raise LoadertuneError(f"script {module!r} in {raw!r} does not exist")
        script = script_path.resolve()
    return Target(raw, script=script, spec=raw)


@dataclass
class SampleInfo:
    """One item of the dataset, measured: its bytes, tensor count and whether it is CUDA."""

    nbytes: int
    tensors: int
    cuda: bool
    seconds: float


@dataclass
class DoctorContext:
    """Shared inputs of the probes; expensive facts are computed once, on first use."""

    target: Target = field(default_factory=Target)
    batch_size: int = 32
    split: str = "train"
    num_workers: int | None = None
    prefetch_factor: int = 2
    measure: bool = True
    measure_time_limit_s: float = 60.0
    storage_time_limit_s: float = 3.0
    _machine: machine.MachineInfo | None = None
    _loaded: LoadedDataset | None = None
    _load_error: str | None = None
    _loaded_tried: bool = False
    _cuda_before: bool = False
    _sample: SampleInfo | None = None
    _sample_error: str | None = None
    _sample_tried: bool = False

    @property
    def machine(self) -> machine.MachineInfo:
        if self._machine is None:
            self._machine = machine.collect()
        return self._machine

    @property
    def workers(self) -> int:
        """The worker count the checks assume: the one asked for, else what fits the CPUs."""
        if self.num_workers is not None:
            return self.num_workers
        return max(machine.usable_cpus_int(self.machine) - 1, 1)

    def dataset(self) -> LoadedDataset | None:
        """The dataset, imported in this process (once); None without a spec or when it fails."""
        if not self._loaded_tried and self.target.spec is not None:
            self._loaded_tried = True
            self._load_error = self.import_blocked()
            if self._load_error is not None:
                return None
            import torch

            self._cuda_before = torch.cuda.is_initialized()
            try:
                with contextlib.redirect_stdout(sys.stderr):  # keep --json output clean
                    self._loaded = load_dataset(self.target.spec, self.split)
            except LoadertuneError as err:
                self._load_error = str(err)
        return self._loaded

    def import_blocked(self) -> str | None:
        """Why the script must not be imported: it would start workers (train) on import."""
        script = self.target.script
        if script is None:
            return None
        from loadertune.doctor.script_ast import analyse

        try:
            facts = analyse(script.read_text(encoding="utf-8", errors="replace"), str(script))
        except SyntaxError:
            return None  # the import reports it
        if not facts.import_time_loads:
            return None
        line, what = facts.import_time_loads[0]
        return (f"not importing {script.name}: line {line} {what} at import time, so importing "
                "it would run the training; put that under `if __name__ == \"__main__\":`")

    @property
    def load_error(self) -> str | None:
        self.dataset()
        return self._load_error

    def cuda_initialised_by_import(self) -> bool:
        """True when importing the dataset initialised CUDA in this (the parent) process."""
        import torch

        return self.dataset() is not None and not self._cuda_before and \
            torch.cuda.is_initialized()

    def sample(self) -> SampleInfo | None:
        """The first item, fetched with a time limit so a hanging dataset cannot hang doctor."""
        if self._sample_tried:
            return self._sample
        self._sample_tried = True
        loaded = self.dataset()
        if loaded is None:
            return None
        box: dict[str, Any] = {}

        def fetch() -> None:
            import time

            started = time.monotonic()
            try:
                ds = loaded.dataset
                first = (loaded.item_indices(1) or [0])[0]
                item = next(iter(ds)) if loaded.iterable else ds[first]
                nbytes, tensors, cuda = measure_item(item)
                box["sample"] = SampleInfo(nbytes, tensors, cuda, time.monotonic() - started)
            except Exception as err:
                box["error"] = f"{type(err).__name__}: {err}"

        thread = threading.Thread(target=fetch, daemon=True, name="loadertune-sample")
        thread.start()
        thread.join(SAMPLE_TIME_LIMIT_S)
        if thread.is_alive():
            self._sample_error = f"fetching the first item took over {SAMPLE_TIME_LIMIT_S:g} s"
        else:
            self._sample = box.get("sample")
            self._sample_error = box.get("error")
        return self._sample

    @property
    def sample_error(self) -> str | None:
        self.sample()
        return self._sample_error


def measure_item(item: Any, depth: int = 0) -> tuple[int, int, bool]:
    """Bytes of array data, number of tensors/arrays, and whether any tensor is on CUDA."""
    import torch

    if depth > 20:
        return 0, 0, False
    if isinstance(item, torch.Tensor):
        return item.element_size() * item.nelement(), 1, item.is_cuda
    nbytes = getattr(item, "nbytes", None)
    if isinstance(nbytes, int) and hasattr(item, "shape"):
        return nbytes, 1, False
    if isinstance(item, (bytes, bytearray, str)):
        return len(item), 0, False
    parts: list[Any] = []
    if isinstance(item, dict):
        parts = list(item.values())
    elif isinstance(item, (list, tuple)):
        parts = list(item)
    total, count, cuda = 0, 0, False
    for part in parts:
        b, c, g = measure_item(part, depth + 1)
        total, count, cuda = total + b, count + c, cuda or g
    if not parts:
        total = 8
    return total, count, cuda
