"""Main-guard / import-time AST check, and a real spawn run of a script without a guard."""

from __future__ import annotations

import sys
import textwrap

from _lt import (
    checks,
    doctor_here,
    run,
)

from loadertune.doctor.script_ast import analyse

NO_GUARD = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(torch.arange(8))
    loader = DataLoader(ds, batch_size=2, num_workers=1, multiprocessing_context="spawn")

    def train():
        for batch in loader:
            pass

    train()
    """)


def test_import_time_iteration_through_a_function_is_found() -> None:
    facts = analyse(NO_GUARD)
    assert facts.has_main_guard is False
    assert [line for line, _ in facts.import_time_loads] == [11]
    assert "train()" in facts.import_time_loads[0][1]


def test_code_under_main_guard_or_without_workers_is_fine() -> None:
    guarded = NO_GUARD.replace("train()\n", 'if __name__ == "__main__":\n    train()\n')
    assert analyse(guarded).import_time_loads == []
    assert analyse(guarded).has_main_guard
    no_workers = NO_GUARD.replace("num_workers=1", "num_workers=0")
    assert analyse(no_workers).import_time_loads == []


def test_direct_loop_and_next_iter_and_pool_at_module_level() -> None:
    src = textwrap.dedent("""\
        from torch.utils.data import DataLoader
        import multiprocessing as mp
        dl = DataLoader(ds, num_workers=4)
        first = next(iter(dl))
        for i, b in enumerate(dl):
            pass
        pool = mp.Pool(2)
        """)
    lines = [line for line, _ in analyse(src).import_time_loads]
    assert lines == [4, 5, 7]


def test_lambda_and_pin_memory_and_cuda_in_getitem_are_recorded() -> None:
    src = textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, Dataset
        class D(Dataset):
            def __getitem__(self, i):
                return torch.ones(2).cuda()
        dl = DataLoader(D(), num_workers=2, collate_fn=lambda b: b, pin_memory=True)
        """)
    facts = analyse(src)
    assert facts.loaders[0].lambdas == ["collate_fn"]
    assert facts.loaders[0].pin_memory
    assert facts.item_cuda and facts.item_cuda[0][0] == 5


def test_script_without_guard_really_fails_under_spawn_and_doctor_names_the_line(tmp_path) \
        -> None:
    script = tmp_path / "train_noguard.py"
    script.write_text(NO_GUARD)
    real = run([sys.executable, str(script)], timeout=90, cwd=str(tmp_path))
    assert real.returncode != 0
    assert "bootstrapping phase" in real.stderr
    report = doctor_here(str(script), ["startmethod"])
    assert report["worst"] == "error"
    [finding] = checks(report, "startmethod.no_main_guard")
    assert finding["severity"] == "error"
    assert finding["where"] == f"{script}:11"
    assert checks(report, "startmethod.in_effect")[0]["data"]["start_method"] == "spawn"


def test_same_script_under_fork_is_a_warning(tmp_path) -> None:
    script = tmp_path / "train_fork.py"
    script.write_text(NO_GUARD.replace(', multiprocessing_context="spawn"', ""))
    report = doctor_here(str(script), ["startmethod"])
    [finding] = checks(report, "startmethod.no_main_guard")
    assert finding["severity"] == "warn" and report["worst"] == "warn"


def test_a_dataset_in_a_script_that_trains_on_import_is_not_imported(tmp_path) -> None:
    marker = tmp_path / "trained"
    script = tmp_path / "trains_on_import.py"
    script.write_text(NO_GUARD.replace("def train():\n", f"def train():\n"
                                       f"    open({str(marker)!r}, 'w').close()\n")
                      + "def make():\n    return ds\n")
    report = doctor_here(f"{script}:make", ["startmethod", "pickling"])
    assert not marker.exists()
    [blocked] = checks(report, "pickling.load_failed")
    assert "line 12" in blocked["evidence"] and blocked["severity"] == "error"
    assert checks(report, "startmethod.no_main_guard")[0]["where"] == f"{script}:12"
