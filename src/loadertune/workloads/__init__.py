"""Bundled demo datasets, each a real Dataset usable as ``loadertune.workloads:NAME``.

Every name is a factory with a size parameter: tests call them small, benchmarks realistic.
"""

from loadertune.workloads.bigtensor import bigtensor
from loadertune.workloads.iterable import iterable
from loadertune.workloads.jpeg import jpeg
from loadertune.workloads.mixed import mixed
from loadertune.workloads.pylist import pylist, pylist_numpy
from loadertune.workloads.remote import remote
from loadertune.workloads.tiny import tiny
from loadertune.workloads.tokenize import tokenize
from loadertune.workloads.worker_cache import worker_cache

NAMES = ("jpeg", "remote", "tiny", "bigtensor", "pylist", "pylist_numpy", "iterable", "mixed",
         "worker_cache", "tokenize")

__all__ = ["NAMES", "bigtensor", "iterable", "jpeg", "mixed", "pylist", "pylist_numpy", "remote",
           "tiny", "tokenize", "worker_cache"]
