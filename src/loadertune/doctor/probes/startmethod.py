"""Start method in effect, and whether the script starts workers at import time."""

from __future__ import annotations

import sys

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, ok, warn
from loadertune.doctor.script_ast import ScriptFacts, analyse
from loadertune.errors import LoadertuneError

PROBE = "startmethod"

IMPLICATIONS = {
    "fork": ("workers are forked copies of the parent: the dataset is not pickled and its "
             "memory is shared copy-on-write; CUDA must not be initialised in the parent "
             "before the workers start, and locks held by the parent's threads at fork time "
             "can deadlock a worker"),
    "spawn": ("each worker is a fresh interpreter that re-imports your main script and "
              "unpickles the dataset: the script needs `if __name__ == \"__main__\":`, the "
              "dataset must be picklable, and workers start slower"),
    "forkserver": ("workers are forked from a clean server process: the main script is "
                   "re-imported and the dataset is pickled as under spawn (main guard and "
                   "picklable dataset needed), but CUDA in the parent is safe"),
}


def script_facts(ctx: DoctorContext) -> ScriptFacts | None:
    """The script's AST facts (None without a script); a syntax error is bad input."""
    if ctx.target.script is None:
        return None
    path = ctx.target.script
    try:
        return analyse(path.read_text(encoding="utf-8", errors="replace"), str(path))
    except SyntaxError as err:
        raise LoadertuneError(f"{path}:{err.lineno}: cannot parse the script: {err.msg}; "
                              "fix the syntax error first") from None


def effective_method(default: str, facts: ScriptFacts | None) -> tuple[str, str]:
    """The start method the script's workers get and where that comes from."""
    if facts is not None:
        contexts = {c.context for c in facts.loaders if c.context}
        if len(contexts) == 1:
            return contexts.pop(), "multiprocessing_context= in the script"
        if facts.start_method:
            return facts.start_method, f"set_start_method() at line {facts.start_method_line}"
    return default, "this platform's default"


def probe(ctx: DoctorContext) -> list[Finding]:
    default = ctx.machine.start_method
    facts = script_facts(ctx)
    method, source = effective_method(default, facts)
    findings = [ok(PROBE, "startmethod.in_effect", f"start method: {method}",
                   f"{method} ({source}); {IMPLICATIONS.get(method, 'unknown start method')}",
                   start_method=method, source=source, platform=sys.platform)]
    if facts is None:
        return findings
    if not facts.loaders and ctx.target.spec is None:
        findings.append(ok(PROBE, "startmethod.no_loader", "no DataLoader call in the script",
                           f"{facts.path} has no DataLoader(...) call; checks of the script "
                           "found nothing to inspect"))
    for line, what in facts.import_time_loads:
        where = f"{facts.path}:{line}"
        evidence = (f"line {line} {what}, at import time outside "
                    "`if __name__ == \"__main__\":`")
        fix = ("move the training loop into a function and call it under "
               "`if __name__ == \"__main__\":`; spawn/forkserver workers re-import the script "
               "and would run this line again")
        if method in ("spawn", "forkserver"):
            findings.append(error(PROBE, "startmethod.no_main_guard",
                                  f"workers started at import time under {method}",
                                  evidence + f"; under {method} this raises 'An attempt has been "
                                  "made to start a new process before the current process has "
                                  "finished its bootstrapping phase'", fix, where, line=line))
        else:
            findings.append(warn(PROBE, "startmethod.no_main_guard",
                                 "workers started at import time (breaks under spawn)",
                                 evidence + "; it works here with fork but fails with spawn "
                                 "(macOS, Windows) and forkserver (Linux default from Python "
                                 "3.14)", fix, where, line=line))
    if facts.loaders and not facts.import_time_loads:
        findings.append(ok(PROBE, "startmethod.main_guard", "no workers start at import time",
                           f"{len(facts.loaders)} DataLoader call(s); none iterated at import "
                           "time" + (" (main guard present)" if facts.has_main_guard else "")))
    for loader in facts.loaders:
        if loader.lambdas and loader.workers:
            names = ", ".join(f"{n}=lambda" for n in loader.lambdas)
            where = f"{facts.path}:{loader.line}"
            sev = error if (loader.context or method) in ("spawn", "forkserver") else warn
            findings.append(sev(PROBE, "startmethod.lambda_arg",
                                f"DataLoader gets a lambda ({names})",
                                f"line {loader.line} passes {names}; under spawn/forkserver it "
                                "is pickled for each worker and fails with \"Can't pickle "
                                "<function <lambda>>\"",
                                "define the function with `def` at module level (or use "
                                "functools.partial of a module-level function)", where,
                                line=loader.line))
    return findings
