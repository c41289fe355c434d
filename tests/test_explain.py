"""explain on real tracebacks: each scenario causes its failure in a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest
import torch
from _failures import EXPECTED, OWN_PROCESS, SHM, combined_script
from _lt import (
    cli,
    env,
)
from test_explain_corpus import CORPUS_CAUSES
from test_explain_torch_errors import CASES as TORCH_REFUSALS
from torch.utils.data import Dataset

from loadertune.explain import CATALOGUE, explain_text
from loadertune.explain.catalogue import library_messages
from loadertune.explain.normalize import normalize
from loadertune.trial.supervisor import kill_tree

TORCH = Path(__import__("torch").__file__).parent


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, str]:
    """Cause every failure (each process in its own session, killed afterwards)."""
    folder = tmp_path_factory.mktemp("failures")
    scripts = {"combined": combined_script(),
               **{name: script for name, (script, _) in OWN_PROCESS.items()}}
    procs = {}
    for name, text in scripts.items():
        script = folder / f"{name}.py"
        script.write_text(text)
        # Output goes to a file: a hung worker keeps a pipe open after the main process exits.
        with (folder / f"{name}.out").open("w") as fh:
            procs[name] = subprocess.Popen([sys.executable, str(script), str(folder)],
                                           cwd=folder, stdout=fh, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL,
                                           # no GPU, so that pin_memory=True fails on any host
                                           env=env(CUDA_VISIBLE_DEVICES=""),
                                           start_new_session=True)
    deadline = time.monotonic() + 90
    for proc in procs.values():
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 1))
        except subprocess.TimeoutExpired:
            pass
        finally:
            kill_tree(proc.pid, running=proc.poll() is None)
            proc.wait()
    return {name: (folder / f"{name}.out").read_text() for name in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_failure_is_explained(outputs: dict[str, str], name: str) -> None:
    text = outputs[name]
    expected = EXPECTED[name]
    assert text.strip(), f"{name} produced no output"
    explanation = explain_text(text)
    assert expected in explanation.ids(), f"{name}: got {explanation.ids()}\n{text[-3000:]}"
    if name not in ("iterable_dup", "fd_limit"):
        assert explanation.primary.signature.id == expected, explanation.ids()


def test_shm_exhaustion_in_a_1mb_dev_shm(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to mount a private 1 MB /dev/shm")
    script = tmp_path / "shm.py"
    script.write_text(SHM)
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c",
         f"mount -t tmpfs -o size=1m tmpfs /dev/shm && exec {sys.executable} {script}"],
        capture_output=True, text=True, env=env(), timeout=90)
    assert result.returncode != 0
    explanation = explain_text(result.stderr)
    # torch's Linux builds reserve the segment with posix_fallocate: a full /dev/shm is an
    # ENOSPC when the batch is allocated, not a SIGBUS when it is written
    assert explanation.primary.signature.id == "shm_exhausted", result.stderr



def test_cuda_fork_message_from_torch_source() -> None:
    source = (TORCH / "cuda" / "__init__.py").read_text()
    assert '"Cannot re-initialize CUDA in forked subprocess. To use CUDA with "' in source
    text = ("RuntimeError: Caught RuntimeError in DataLoader worker process 0.\n"
            "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
            "multiprocessing, you must use the 'spawn' start method\n")
    assert explain_text(text).primary.signature.id == "cuda_forked"


def test_pin_memory_thread_messages_from_torch_source() -> None:
    loader_src = (TORCH / "utils" / "data" / "dataloader.py").read_text()
    assert 'RuntimeError("Pin memory thread exited unexpectedly")' in loader_src
    pin_src = (TORCH / "utils" / "data" / "_utils" / "pin_memory.py").read_text()
    assert 'where=f"in pin memory thread for device {device_id}"' in pin_src
    for text in ("RuntimeError: Pin memory thread exited unexpectedly",
                 "RuntimeError: Caught RuntimeError in pin memory thread for device 0."):
        assert explain_text(text).primary.signature.id == "pin_memory_thread"


def test_ancdata_and_torch_fd_message() -> None:
    loader_src = (TORCH / "utils" / "data" / "dataloader.py").read_text()
    assert "received 0 items of ancdata" in loader_src
    assert explain_text("RuntimeError: received 0 items of ancdata").ids()[0] == "ancdata"


def test_loader_argument_errors_from_torch_source() -> None:
    loader_src = (TORCH / "utils" / "data" / "dataloader.py").read_text()
    for message in ("persistent_workers option needs num_workers > 0",
                    "prefetch_factor option could only be specified in multiprocessing.",
                    "timeout option should be non-negative"):
        assert message in loader_src
        assert explain_text(f"ValueError: {message}").ids()[0] == "invalid_loader_args"


def test_collate_type_and_iterator_next_from_torch() -> None:
    collate_src = (TORCH / "utils" / "data" / "_utils" / "collate.py").read_text()
    assert '"default_collate: batch must contain tensors, numpy arrays, numbers, "' in collate_src
    from torch.utils.data import DataLoader, default_collate

    with pytest.raises(TypeError) as collate_error:
        default_collate([object(), object()])
    text = f"TypeError: {collate_error.value}"
    assert explain_text(text).ids()[0] == "collate_unsupported_type"
    it = iter(DataLoader(range(4)))
    with pytest.raises(AttributeError) as next_error:
        it.next()  # type: ignore[attr-defined]
    assert explain_text(f"AttributeError: {next_error.value}").ids()[0] == "iterator_next_removed"


def test_round2_texts_name_their_cause() -> None:
    """Variants learned from the blind batches: retyped, older and prose forms of a message."""
    cases = {
        "Can't pickle local object 'get_dataset.<locals>.Dataset": "pickle_local_object",
        "TypeError: can't pickle _thread._local objects": "unpicklable_object",
        "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension "
        "0. Got 3 and 1 in dimension 1": "collate_size_mismatch",
        "Data loader seg fault\nRuntimeError: DataLoader worker (pid(s) 4864) exited "
        "unexpectedly": "worker_segfault",
        "RuntimeError: Couldn't open shared file mapping: <torch_1_2>, error code: <1455>":
            "windows_pagefile",
        "THCudaCheck FAIL file=THCGeneral.cpp line=50 error=3 : initialization error\n"
        "RuntimeError: Caught RuntimeError in DataLoader worker process 2.": "cuda_forked",
        "RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly\nSolution: add "
        "--shm-size=8g to the docker command": "bus_error_shm",
        "DataLoader does not work with an HDF5 file: h5py doesn't allow reading from "
        "multiple processes": "shared_file_handle",
        "RuntimeError: Expected a 'mps:0' generator device but found 'cpu'": "generator_device",
    }
    for text, cause in cases.items():
        assert explain_text(text).ids()[0] == cause, text
    noise = ("PossibleUserWarning: The dataloader, train_dataloader, does not have many "
             "workers which may be a bottleneck. Consider increasing the value of the "
             "`num_workers` argument")
    assert explain_text(noise).harmless


# Causes no scenario here can produce (a GPU, a torch internal failing): the texts torch
# prints for them, each checked against torch's own source in the tests above.
TEXT_ONLY = {
    "shm_exhausted": "RuntimeError: unable to allocate shared memory(shm) for file "
                     "</torch_1_2_0>: No space left on device (28)",
    "cuda_forked": "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA "
                   "with multiprocessing, you must use the 'spawn' start method",
    "pin_memory_thread": "RuntimeError: Pin memory thread exited unexpectedly",
    "ancdata": "RuntimeError: received 0 items of ancdata",
    "spawn_main_attribute": "AttributeError: Can't get attribute 'MyDataset' on <module "
                            "'__main__' (built-in)>",
    "generator_device": "RuntimeError: Expected a 'cuda' device type for generator but found "
                        "'cpu'",
    "fork_no_memory": "  File \"/usr/lib/python3.10/multiprocessing/popen_fork.py\", line 66, "
                      "in _launch\n    self.pid = os.fork()\nOSError: [Errno 12] Cannot "
                      "allocate memory",
    "invalid_loader_args": "ValueError: persistent_workers option needs num_workers > 0",
    "collate_unsupported_type": "TypeError: default_collate: batch must contain tensors, numpy "
                                "arrays, numbers, dicts or lists; found <class 'NoneType'>",
    "iterator_next_removed": "AttributeError: '_MultiProcessingDataLoaderIter' object has no "
                             "attribute 'next'",
    "harmless_worker_warning": "PossibleUserWarning: The dataloader, train_dataloader, does not "
                             "have many workers which may be a bottleneck.",
    # TRL's completion-only collator, a warning per sample (trl/trainer/utils.py)
    "response_template_not_found": "UserWarning: Could not find response key `### Answer:` in "
                                   "the following instance: ### Question: 2+2? ### Answer: 4 "
                                   "This instance will be ignored in loss calculation.",
}


def test_every_catalogue_entry_is_exercised() -> None:
    """Each entry is caused for real by a scenario or by torch refusing an argument, matched
    in a real-world corpus text, its text (checked against torch's source above) is
    matched right here, or a library's message for it names it (test_explain_library_messages
    checks each)."""
    ids = {s.id for s in CATALOGUE}
    for cause, text in TEXT_ONLY.items():
        assert explain_text(text).primary.signature.id == cause, cause
    covered = (set(EXPECTED.values()) | set(TEXT_ONLY) | CORPUS_CAUSES
               | {cause for _, cause in TORCH_REFUSALS.values()} | {"dataloader_failure"}
               | set(library_messages.RAISED) | set(library_messages.WARNED))
    assert ids <= covered, ids - covered


def test_every_signal_compiles() -> None:
    """Signals compile on first use (a text lacking their words never needs them): a broken
    regex must still fail here, not in a user's explain."""
    for entry in CATALOGUE:
        for signal in (*entry.signals, *entry.context):
            assert signal.compiled.pattern == signal.pattern
            assert signal.folded.flags & re.IGNORECASE


def test_unknown_text_says_unknown_and_suggests_doctor(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("ZeroDivisionError: division by zero\n")
    result = cli("explain", str(log), "--no-live")
    assert result.returncode == 1
    assert "unknown" in result.stdout and "doctor" in result.stdout
    data = json.loads(cli("explain", str(log), "--json", "--no-live").stdout)
    assert data["cause"] == "unknown" and data["suggest"].startswith("loadertune doctor")


def test_cli_json_gives_stable_ids_and_live_probes(outputs: dict[str, str]) -> None:
    result = cli("explain", "-", "--json", stdin=outputs["sigbus"], extra_env={})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["cause"] == "bus_error_shm"
    live = data["causes"][0]["live"]
    assert any(f["probe"] == "shm" and "/dev/shm" in f["evidence"] for f in live)


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    result = cli("explain", str(tmp_path / "missing.log"))
    assert result.returncode == 2
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("columns", ["80", "200"])
def test_cli_shows_the_id_and_confidence_at_any_width(tmp_path: Path, columns: str) -> None:
    """A panel's title is cut to one line: at 80 columns a long title lost the id and the
    confidence, so they are printed in the panel's body too."""
    log = tmp_path / "issue.txt"
    log.write_text("huggingface/tokenizers: The current process just got forked, after "
                   "parallelism has already been used. Disabling parallelism to avoid "
                   "deadlocks...\nTo disable this warning, you can either:\n")
    result = cli("explain", str(log), "--no-live", extra_env={"COLUMNS": columns})
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= int(columns)
    assert "harmless_tokenizers_fork, confidence" in result.stdout


def test_shell_killed_line_and_catalogue_listing() -> None:
    text = "Epoch 3: 41%|####     | 410/1000\nbash: line 1:  4242 Killed    python train.py\n"
    assert explain_text(text).primary.signature.id == "worker_oom_killed"
    assert not explain_text("the job was not killed by anything").known
    result = cli("explain", "--list", "--json")
    ids = [row["id"] for row in json.loads(result.stdout)]
    assert ids == [s.id for s in CATALOGUE] and len(set(ids)) == len(ids)


def test_web_page_and_retyped_forms_of_a_message_are_found() -> None:
    from loadertune.explain import normalize as norm

    page = ("RuntimeError: DataLoader worker (pid 12) is killed by signal: Bus error. It is "
            "possible that dataloader&#39;s workers are out of shared memory. Please try to "
            "raise your shared memory limit.\n")
    assert norm(page).lines[0].count("dataloader's") == 1
    assert explain_text(page).primary.signature.id == "bus_error_shm"
    quoted = "AttributeError: Can\u2019t pickle local object \u2018main.<locals>.<lambda>\u2019\n"
    assert explain_text(quoted).primary.signature.id == "pickle_local_object"
    assert norm("num\\_workers=4 in \\_\\_main\\_\\_\n").lines[0] == "num_workers=4 in __main__"
    lower = "eoferror: ran out of input on windows with num_workers=2\n"
    assert explain_text(lower).primary.signature.id == "spawn_pickle_failed"
    narrow = ("RuntimeError: unable to write to file </torch_1_2>: No\n"
              "space left on device (28)\n")
    assert explain_text(narrow).primary.signature.id == "shm_exhausted"
    exact = explain_text("RuntimeError: unable to write to file </torch_1_2>: No space left "
                         "on device (28)\n").primary.score
    assert explain_text(narrow).primary.score < exact, "a loose hit is weaker evidence"


def test_prose_forms_of_blind5_causes_are_general() -> None:
    advice = ("RuntimeError: DataLoader worker (pid(s) 11736) exited unexpectedly\n"
              "if __name__ == '__main__':freeze_support() on windows 10\n")
    assert explain_text(advice).primary.signature.id == "spawn_bootstrap", \
        "the guard quoted in the error's advice is not a guard in the script"
    words = "my DataLoader hits a dead lock with num_workers=4"
    assert explain_text(words).primary.signature.id == "worker_hang"
    slow = "increase the timeout of the dataloader: batches are slow on our cluster"
    assert explain_text(slow).primary.signature.id == "timeout"
    assert explain_text(slow).primary.score < explain_text(
        "RuntimeError: DataLoader timed out after 120 seconds").primary.score, "words weigh less"
    lam = "not pickleable on Mac (spawn issue?) - it's the lambda x: x in my DataLoader"
    assert explain_text(lam).primary.signature.id == "pickle_local_object"


def test_a_cause_ranks_above_the_symptom_it_explains() -> None:
    """A worker segfault scores higher than the shared LMDB handle that caused it; the
    handle's signature `explains` the segfault, so it comes first. Alone, the segfault wins."""
    crash = ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Segmentation "
             "fault.\nERROR: Unexpected segmentation fault encountered in worker.\n")
    handle = ("class Faces(Dataset):\n    def __init__(self, root):\n"
              "        self.env = lmdb.open(root, readonly=True, lock=False)\n")
    ranked = explain_text(crash + handle).matches
    assert [m.signature.id for m in ranked[:2]] == ["shared_file_handle", "worker_segfault"]
    assert ranked[1].score > ranked[0].score
    assert explain_text(crash).matches[0].signature.id == "worker_segfault"


def test_a_heeded_warning_yields_to_the_error_that_followed_it() -> None:
    """torch's too-many-workers warning, then (with fewer workers) another error: the later
    error is the problem. Both texts are torch's own, from real loaders."""
    with pytest.warns(UserWarning) as caught:
        torch.utils.data.DataLoader(range(4), num_workers=(os.cpu_count() or 1) + 1)
    warning = str(caught[0].message)
    empty = torch.utils.data.DataLoader(range(3), batch_size=4, drop_last=True)
    with pytest.raises(StopIteration) as failure:
        next(iter(empty))
    error = _failure_text(failure)
    assert explain_text(warning).primary.signature.id == "too_many_workers"
    story = (f'I got "{warning}"\nWhen I set num_workers = 1 in the config, a new error '
             f"occurred:\n{error}")
    ids = explain_text(story).ids()
    assert ids[0] == "loader_exhausted" and "too_many_workers" in ids
    unheeded = f"{warning}\n{error}"
    assert explain_text(unheeded).primary.signature.id == "too_many_workers"


class _StacksInGetitem(Dataset):
    """A dataset whose own __getitem__ stacks crops of different sizes."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.stack([torch.zeros(3, 8), torch.zeros(3, 8 + i)])


class _UnequalSamples(Dataset):
    """A dataset of samples of different lengths: the default collate cannot stack them."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.zeros(8 + i)


def _failure_text(failure: pytest.ExceptionInfo[BaseException]) -> str:
    """The traceback as a user pastes it; the frames are cleared so that a loader they hold
    is freed at once (in a reference cycle, gc's shutdown of it waits 5 s for its workers)."""
    text = "".join(traceback.format_exception(failure.value))
    traceback.clear_frames(failure.tb)
    return text


class _Captions(Dataset):
    """A dataset over a Python list: it takes one integer index at a time."""

    def __init__(self) -> None:
        self.captions = [f"caption {i}" for i in range(8)]

    def __len__(self) -> int:
        return len(self.captions)

    def __getitem__(self, i: int) -> str:
        return self.captions[i]


class _KeepsAnIterator(Dataset):
    """A dataset that keeps an iterator over another loader (a reference set it draws from)."""

    def __init__(self) -> None:
        self.reference = iter(torch.utils.data.DataLoader(_Captions(), batch_size=2))

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        return i


def test_a_loader_iterator_kept_on_the_dataset_is_named_when_spawn_pickles_it() -> None:
    """Spawned workers get the dataset pickled, and torch's loader iterators refuse to be:
    the real error names the iterator's class; explain names the iterator kept on the
    object first, and the unpicklable type after it."""
    loader = torch.utils.data.DataLoader(_KeepsAnIterator(), num_workers=1,
                                         multiprocessing_context="spawn")
    with pytest.raises(NotImplementedError) as failure:
        next(iter(loader))
    text = _failure_text(failure)
    assert "_SingleProcessDataLoaderIter" in text
    explanation = explain_text(text)
    assert explanation.ids()[:2] == ["loader_iterator_pickled", "unpicklable_object"]
    assert explanation.matches[1].details.get("type") == "_SingleProcessDataLoaderIter"


@pytest.mark.parametrize("use_up", [True, False])
def test_next_on_a_used_up_or_empty_loader_is_named_from_the_real_traceback(
        use_up: bool) -> None:
    """StopIteration from the loader's own next(): an iterator already through its epoch, or
    a loader with no batch at all (fewer samples than one batch, the rest dropped)."""
    if use_up:
        batches = iter(torch.utils.data.DataLoader(_Captions(), batch_size=4))
        assert len([next(batches), next(batches)]) == 2
    else:
        batches = iter(torch.utils.data.DataLoader(_Captions(), batch_size=16, drop_last=True))
    with pytest.raises(StopIteration) as failure:
        next(batches)
    assert explain_text(_failure_text(failure)).primary.signature.id == "loader_exhausted"


@pytest.mark.parametrize("workers", [0, 1])
def test_a_batch_sampler_passed_as_sampler_is_named_from_the_real_traceback(workers: int) -> None:
    """BatchSampler given as sampler=: each list of indices reaches __getitem__ as one index.
    Named from the real traceback (in a worker, under its "Caught TypeError" wrapper too);
    passed as batch_sampler= the same sampler works."""
    batches = torch.utils.data.sampler.BatchSampler(range(8), batch_size=4, drop_last=False)
    loader = torch.utils.data.DataLoader(_Captions(), sampler=batches, batch_size=2,
                                         num_workers=workers)
    with pytest.raises(TypeError) as failure:
        next(iter(loader))
    text = _failure_text(failure)
    assert "list indices must be integers or slices, not list" in text
    explanation = explain_text(text)
    assert explanation.primary.signature.id == "batch_sampler_as_sampler"
    assert "list indices must be integers or slices, not list" in " ".join(
        line for _, line in explanation.primary.evidence)
    fixed = next(iter(torch.utils.data.DataLoader(_Captions(), batch_sampler=batches)))
    assert fixed == [f"caption {i}" for i in range(4)]


@pytest.mark.parametrize(("dataset", "expected"), [(_StacksInGetitem(), "worker_exception"),
                                                   (_UnequalSamples(), "collate_size_mismatch")])
def test_the_frame_that_raised_tells_dataset_from_collate(dataset: Dataset,
                                                          expected: str) -> None:
    """One message ("stack expects each tensor to be equal size"), two causes: raised in the
    dataset's own __getitem__ it is the dataset's bug; raised in default_collate it is
    samples of different sizes. Real tracebacks from a real worker."""
    batches = iter(torch.utils.data.DataLoader(dataset, batch_size=2, num_workers=1))
    with pytest.raises(RuntimeError) as failure:
        next(batches)
    text = _failure_text(failure)
    del batches  # freed here, the loader stops its worker at once
    assert "stack expects each tensor to be equal size" in text
    explanation = explain_text(text)
    assert explanation.primary.signature.id == expected
    raised_in = normalize(text).raisers[-1][1]
    assert raised_in.endswith(" in __getitem__" if expected == "worker_exception"
                              else " in collate_tensor_fn")
