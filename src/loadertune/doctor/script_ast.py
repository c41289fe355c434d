"""Read a training script's AST: what runs at import time, and how its DataLoaders are built.

Pure functions of the source text, so they can be tested on any script without running it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

ITERATING_CALLS = {"iter", "next", "enumerate", "list", "tuple", "zip", "sorted", "tqdm"}
PROCESS_CALLS = {"Pool", "Process", "ProcessPoolExecutor", "spawn", "start_processes"}
ITEM_METHODS = {"__getitem__", "__getitems__", "__iter__"}


@dataclass
class LoaderCall:
    """One ``DataLoader(...)`` call and the settings readable from its literals."""

    line: int
    workers: bool
    pin_memory: bool
    context: str | None
    lambdas: list[str] = field(default_factory=list)


@dataclass
class ScriptFacts:
    """What the script does, with line numbers."""

    path: str
    has_main_guard: bool = False
    import_time_loads: list[tuple[int, str]] = field(default_factory=list)
    loaders: list[LoaderCall] = field(default_factory=list)
    start_method: str | None = None
    start_method_line: int | None = None
    module_cuda: list[tuple[int, str]] = field(default_factory=list)
    item_cuda: list[tuple[int, str]] = field(default_factory=list)


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every parsed node
        return "?"


def is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":`` in either operand order."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and consts)


def _loader_call(call: ast.Call) -> LoaderCall:
    kw = {k.arg: k.value for k in call.keywords if k.arg is not None}
    splat = any(k.arg is None for k in call.keywords)
    workers_node = kw.get("num_workers")
    if workers_node is None:
        workers = splat or len(call.args) >= 6
    else:
        workers = not (isinstance(workers_node, ast.Constant) and workers_node.value == 0)
    pin = kw.get("pin_memory")
    ctx = kw.get("multiprocessing_context")
    context = ctx.value if isinstance(ctx, ast.Constant) and isinstance(ctx.value, str) else None
    lambdas = [k for k, v in kw.items() if isinstance(v, ast.Lambda)]
    return LoaderCall(call.lineno, workers,
                      isinstance(pin, ast.Constant) and pin.value is True, context, lambdas)


def _walk_no_defs(node: ast.AST):
    """``ast.walk`` that does not enter nested function, lambda or class bodies."""
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        for child in ast.iter_child_nodes(item):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                      ast.ClassDef)):
                stack.append(child)


class _Analyser:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.worker_loaders: set[str] = set()
        self.functions: dict[str, ast.AST] = {}
        self.loading_functions: dict[str, str] = {}

    def collect_loaders(self, facts: ScriptFacts) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and _name(node.func) == "DataLoader":
                facts.loaders.append(_loader_call(node))
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                    and _name(node.value.func) == "DataLoader" \
                    and _loader_call(node.value).workers:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    name = _name(target)
                    if name:
                        self.worker_loaders.add(name)
            if isinstance(node, ast.Call) and _name(node.func) == "set_start_method" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                facts.start_method = str(node.args[0].value)
                facts.start_method_line = node.lineno
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.functions.setdefault(item.name, item)

    def _is_loader(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and _name(node.func) == "DataLoader":
            return _loader_call(node).workers
        return _name(node) in self.worker_loaders if isinstance(
            node, (ast.Name, ast.Attribute)) else False

    def _iterates(self, expr: ast.AST) -> bool:
        if self._is_loader(expr):
            return True
        if isinstance(expr, ast.Call) and _name(expr.func) in ITERATING_CALLS:
            return any(self._iterates(a) for a in expr.args)
        return False

    def direct_loads(self, node: ast.AST) -> list[tuple[int, str]]:
        """Loader iterations and process starts inside ``node``, not entering nested defs."""
        hits: list[tuple[int, str]] = []
        for sub in _walk_no_defs(node):
            if isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)) and \
                    self._iterates(sub.iter):
                line = getattr(sub, "lineno", getattr(sub.iter, "lineno", 0))
                hits.append((line, f"iterates a DataLoader with workers: {_dotted(sub.iter)}"))
            elif isinstance(sub, ast.Call):
                name = _name(sub.func)
                if name in ITERATING_CALLS and any(self._iterates(a) for a in sub.args):
                    hits.append((sub.lineno, f"starts DataLoader workers: {_dotted(sub)}"))
                elif name in PROCESS_CALLS:
                    hits.append((sub.lineno, f"creates worker processes: {_dotted(sub.func)}"))
                elif name in self.loading_functions and isinstance(sub.func, ast.Name):
                    hits.append((sub.lineno, f"calls {name}(), which "
                                 f"{self.loading_functions[name]}"))
        return _one_per_line(hits)

    def find_loading_functions(self) -> None:
        changed = True
        while changed:
            changed = False
            for name, fn in self.functions.items():
                if name in self.loading_functions:
                    continue
                hits = self.direct_loads(fn)
                if hits:
                    line, what = hits[0]
                    self.loading_functions[name] = f"{what.split(':')[0]} (line {line})"
                    changed = True

    def module_statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """Statements that run at import: module level, into blocks, except the main guard."""
        out: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if is_main_guard(stmt):
                out.extend(self.module_statements(stmt.orelse))  # type: ignore[attr-defined]
                continue
            if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                header = ast.copy_location(ast.Expr(value=_header(stmt)), stmt)
                out.append(header)
                for block in ("body", "orelse", "finalbody"):
                    out.extend(self.module_statements(getattr(stmt, block, []) or []))
                for handler in getattr(stmt, "handlers", []) or []:
                    out.extend(self.module_statements(handler.body))
                if isinstance(stmt, ast.For):
                    out.append(stmt)  # keep the loop itself for its iterable
                continue
            out.append(stmt)
        return out


def _header(stmt: ast.stmt) -> ast.expr:
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test
    if isinstance(stmt, ast.With) and stmt.items:
        return stmt.items[0].context_expr
    return ast.Constant(value=None)


def _cuda_uses(node: ast.AST) -> list[tuple[int, str]]:
    hits = []
    for sub in _walk_no_defs(node):
        if not isinstance(sub, ast.Call):
            continue
        text = _dotted(sub.func)
        args = " ".join(_dotted(a) for a in [*sub.args, *(k.value for k in sub.keywords)])
        if text.endswith(".cuda") or text.startswith(("torch.cuda.", "cuda.")) or \
                (text.endswith((".to", "torch.device")) and "cuda" in args):
            hits.append((sub.lineno, _dotted(sub)[:80]))
    return hits


def _one_per_line(hits: list[tuple[int, str]]) -> list[tuple[int, str]]:
    first: dict[int, str] = {}
    for line, what in sorted(hits):
        first.setdefault(line, what)
    return sorted(first.items())


def analyse(source: str, path: str = "<script>") -> ScriptFacts:
    """Facts about ``source``; a syntax error is reported as a LoadertuneError-free ValueError."""
    tree = ast.parse(source, filename=path)
    facts = ScriptFacts(path=path)
    facts.has_main_guard = any(is_main_guard(s) for s in tree.body)
    analyser = _Analyser(tree)
    analyser.collect_loaders(facts)
    analyser.find_loading_functions()
    hits: list[tuple[int, str]] = []
    for stmt in analyser.module_statements(tree.body):
        if isinstance(stmt, ast.For):
            if analyser._iterates(stmt.iter):
                hits.append((stmt.lineno, f"iterates a DataLoader with workers: "
                             f"{_dotted(stmt.iter)}"))
            continue
        hits.extend(analyser.direct_loads(stmt))
        facts.module_cuda.extend(_cuda_uses(stmt))
    facts.import_time_loads = _one_per_line(hits)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in ITEM_METHODS:
                    facts.item_cuda.extend(_cuda_uses(item))
    return facts
