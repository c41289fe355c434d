import sys
import textwrap

import pytest

from loadertune.errors import DatasetSpecError
from loadertune.pipeline import check_not_empty, load_dataset


def test_module_spec_with_factory_and_collate_fn() -> None:
    loaded = load_dataset("fixture_datasets:squares")
    assert len(loaded.dataset) == 256
    assert loaded.collate_fn is not None and loaded.collate_fn.__name__ == "collate_fn"
    assert not loaded.iterable
    assert "Squares (map-style, 256 items)" in loaded.describe()


def test_iterable_dataset_spec() -> None:
    loaded = load_dataset("fixture_datasets:stream")
    assert loaded.iterable and loaded.length() is None


def test_script_path_spec_imports_by_stem(tmp_path, monkeypatch) -> None:
    script = tmp_path / "my_train.py"
    script.write_text(textwrap.dedent("""
        import torch
        from torch.utils.data import Dataset

        class Ds(Dataset):
            def __len__(self):
                return 3
            def __getitem__(self, i):
                return torch.tensor(i)

        dataset = Ds()
    """))
    monkeypatch.setattr(sys, "path", list(sys.path))
    loaded = load_dataset(f"{script}:dataset")
    assert len(loaded.dataset) == 3
    assert type(loaded.dataset).__module__ == "my_train"  # spawn workers can import it again
    assert str(tmp_path) in sys.path
    sys.modules.pop("my_train", None)


@pytest.mark.parametrize(("spec", "message"), [
    ("no_such_module_xyz:ds", "cannot import module 'no_such_module_xyz'"),
    ("fixture_datasets:nothing", "module has no attribute 'nothing'"),
    ("fixture_datasets:not_a_dataset", "is a int, not a Dataset"),
    ("fixture_datasets", "is not of the form module:attr"),
    ("fixture_datasets:", "is not of the form"),
    ("/no/such/script.py:ds", "does not exist"),
    ("fixture_datasets:Raising.__init__", "calling it with no arguments failed"),
])
def test_bad_specs_name_the_problem(spec: str, message: str) -> None:
    with pytest.raises(DatasetSpecError, match=message):
        load_dataset(spec)


def test_a_script_that_exits_on_import_is_reported(tmp_path) -> None:
    script = tmp_path / "trains_on_import.py"
    script.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(DatasetSpecError, match=r"called sys.exit\(3\).*__main__"):
        load_dataset(f"{script}:dataset")


def test_a_factory_that_raises_is_reported() -> None:
    with pytest.raises(DatasetSpecError, match="the factory raised OSError: dataset root"):
        load_dataset("fixture_datasets:broken_factory")


def test_a_function_needing_arguments_is_not_a_factory() -> None:
    with pytest.raises(DatasetSpecError,
                       match=r"zero-argument function.*calling it with no arguments failed"):
        load_dataset("fixture_datasets:collate_fn")


def test_empty_dataset_is_refused() -> None:
    with pytest.raises(DatasetSpecError, match="is empty"):
        check_not_empty(load_dataset("fixture_datasets:empty"))
