import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import DataLoader

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_workers": 0, "prefetch_factor": 2}, "prefetch_factor=2 needs num_workers > 0"),
        ({"num_workers": 0, "persistent_workers": True}, "persistent_workers=True needs"),
        ({"num_workers": -1}, "num_workers must be >= 0"),
        ({"batch_size": 0}, "batch_size must be >= 1"),
        ({"num_workers": 2, "prefetch_factor": 0}, "prefetch_factor must be >= 1"),
        ({"num_workers": 2, "multiprocessing_context": "thread"}, "unknown start method"),
        ({"num_workers": 1.5}, "num_workers must be an integer"),
        ({"num_workers": True}, "num_workers must be an integer"),
        ({"pin_memory": "yes"}, "must be True or False"),
    ],
)
def test_invalid_configs_name_the_problem(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        LoaderConfig(**kwargs)


def test_kwargs_leave_out_worker_options_without_workers() -> None:
    assert LoaderConfig(num_workers=0, batch_size=8).to_kwargs() == {
        "batch_size": 8, "num_workers": 0, "pin_memory": False}


def test_kwargs_fill_torch_default_prefetch() -> None:
    kwargs = LoaderConfig(num_workers=3, batch_size=4, persistent_workers=True,
                          multiprocessing_context="spawn").to_kwargs(include_batch_size=False)
    assert kwargs == {"num_workers": 3, "prefetch_factor": 2, "persistent_workers": True,
                      "multiprocessing_context": "spawn", "pin_memory": False}


def test_label_and_round_trip() -> None:
    cfg = LoaderConfig(num_workers=4, batch_size=16, prefetch_factor=4, persistent_workers=True)
    assert cfg.label() == "w4 pf4 persist"
    assert LoaderConfig.from_dict(cfg.to_dict()) == cfg
    assert LoaderConfig(batch_size=2).label() == "w0"


configs = st.builds(
    lambda w, pf, pin, persist, sm, bs: LoaderConfig(
        num_workers=w, batch_size=bs, prefetch_factor=pf if w else None, pin_memory=pin,
        persistent_workers=persist and w > 0, multiprocessing_context=sm if w else None),
    st.integers(0, 16), st.none() | st.integers(1, 8), st.booleans(), st.booleans(),
    st.sampled_from([None, "fork", "spawn", "forkserver"]), st.integers(1, 512))


@given(configs)
def test_every_valid_config_is_accepted_by_torch(cfg: LoaderConfig) -> None:
    loader = DataLoader(torch.arange(4), **cfg.to_kwargs())  # constructing starts no worker
    assert loader.num_workers == cfg.num_workers
    assert loader.batch_size == cfg.batch_size
    if cfg.num_workers:
        assert loader.prefetch_factor == cfg.effective_prefetch
