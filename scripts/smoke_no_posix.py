"""Import every loadertune module and run every command's ``--help`` without POSIX-only modules.

What Windows lacks is made unavailable to loadertune's own code: importing ``resource``,
``fcntl``, ``termios``, ``pwd``, ``grp``, ``pty`` or ``tty`` from a loadertune module raises
ImportError, and POSIX-only functions and signals (``os.killpg``, ``os.setsid``,
``signal.SIGKILL``...) are removed while loadertune is imported, so using one at import time
fails. ``sys.platform`` is left alone: loadertune does not branch on it, and faking it would
send the standard library down Windows code paths this interpreter does not have.
Dependencies (torch, numpy...) are imported first, normally: their platform support is theirs.

Exit 0 when everything imports and every ``--help`` works; otherwise exit 1 naming the module
or command that broke, with its traceback.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import signal
import sys
import traceback
from pathlib import Path

BLOCKED = frozenset({"resource", "fcntl", "termios", "pwd", "grp", "pty", "tty"})
POSIX_ONLY = {
    os: ("killpg", "setsid", "setpgid", "getpgid", "getpgrp", "fork", "forkpty",
         "geteuid", "getgid", "sched_getaffinity", "sched_setaffinity", "posix_fadvise",
         "wait3", "wait4", "WNOHANG"),
    signal: ("SIGKILL", "SIGCHLD", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM",
             "SIGSTOP", "SIGCONT", "SIGPIPE", "pthread_kill", "setitimer", "alarm"),
}
DEPENDENCIES = ("torch", "torch.utils.data", "torch.multiprocessing", "torch.distributed",
                "numpy", "psutil", "rich", "rich.console", "typer", "typer.testing",
                "matplotlib", "PIL.Image")


class NoPosix(importlib.abc.MetaPathFinder):
    """Refuses the POSIX-only modules to imports made by loadertune's own code."""

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name.partition(".")[0] not in BLOCKED:
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith(
                ("importlib", "_frozen_importlib")):
            frame = frame.f_back
        importer = frame.f_globals.get("__name__", "") if frame is not None else ""
        if importer == "loadertune" or importer.startswith("loadertune."):
            raise ImportError(f"{name} is POSIX-only (made unavailable by smoke_no_posix; "
                              f"imported by {importer})", name=name)
        return None


def module_names() -> list[str]:
    """Every module under the loadertune package, found on disk (nothing imported)."""
    spec = importlib.util.find_spec("loadertune")
    assert spec is not None and spec.origin is not None, "loadertune is not installed"
    root = Path(spec.origin).parent
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = ("loadertune", *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def missing_extra(err: BaseException | None) -> str | None:
    """The optional dependency (not a blocked module) whose absence caused ``err``, if any."""
    while err is not None:
        name = getattr(err, "name", None) if isinstance(err, ModuleNotFoundError) else None
        if name and name.partition(".")[0] not in BLOCKED and not name.startswith("loadertune"):
            return name
        err = err.__cause__ or err.__context__
    return None


def make_posix_unavailable() -> None:
    for mod, names in POSIX_ONLY.items():
        for name in names:
            if hasattr(mod, name):
                delattr(mod, name)
    for name in BLOCKED:
        sys.modules.pop(name, None)  # so that a later import reaches the finder
    sys.meta_path.insert(0, NoPosix())


def commands(app):  # type: ignore[no-untyped-def]
    """Every command path of the typer app: ["bench"], ["history", "show"]..."""
    import typer

    root = typer.main.get_command(app)
    out: list[list[str]] = [[]]

    def walk(cmd, prefix: list[str]) -> None:  # type: ignore[no-untyped-def]
        for name, sub in sorted((getattr(cmd, "commands", None) or {}).items()):
            if not getattr(sub, "hidden", False):
                out.append([*prefix, name])
                walk(sub, [*prefix, name])

    walk(root, [])
    return out


def main() -> int:
    for dep in DEPENDENCIES:
        importlib.import_module(dep)
    make_posix_unavailable()
    failed: list[str] = []
    names = module_names()
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as err:
            extra = missing_extra(err)
            if extra is not None:
                print(f"skipped {name}: the optional {extra!r} is not installed")
                continue
            failed.append(f"import {name}")
            print(f"FAILED: import {name}\n{traceback.format_exc()}", file=sys.stderr)
    if failed:
        return _verdict(failed, len(names), 0)
    from typer.testing import CliRunner

    from loadertune.cli import app

    paths = commands(app)
    runner = CliRunner()
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        if result.exit_code != 0 or "Usage" not in result.output:
            failed.append(f"loadertune {' '.join([*path, '--help'])}")
            tb = "".join(traceback.format_exception(result.exception)) if result.exception else ""
            print(f"FAILED: loadertune {' '.join(path)} --help (exit {result.exit_code})\n"
                  f"{result.output}{tb}", file=sys.stderr)
    return _verdict(failed, len(names), len(paths))


def _verdict(failed: list[str], modules: int, helps: int) -> int:
    if failed:
        print(f"smoke_no_posix: {len(failed)} failed without POSIX-only modules: "
              + "; ".join(failed), file=sys.stderr)
        return 1
    print(f"smoke_no_posix: {modules} modules imported and {helps} --help pages shown "
          f"without {', '.join(sorted(BLOCKED))} or POSIX-only os/signal functions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
