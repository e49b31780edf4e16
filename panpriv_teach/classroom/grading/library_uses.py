"""Static detection of answers that use the library's own solution of an exercise.

Each checker declares, in `@exercise(..., solved_by=(...))`, the library functions that
already solve its exercise. `library_uses` reads every code cell of a student's notebook
(IPython syntax: `%magics` are first turned into Python by IPython's own transformer, and
the code that `%time`, `%timeit`, `%prun` and `%%capture` run is read too) and
finds where a declared dotted name is reached: imports (`from panpriv_teach.density import
roth_sample_size as z`, `import panpriv_teach.density as d`), attribute chains on imported
names and on objects made from them (`SimpleCounter(1.0).run`, `c = SimpleCounter(1.0);
c.run`), `importlib.import_module("...")`, `__import__("...")`, `getattr(x, "...")` and
`sys.modules["..."]` with literal strings. The worker also catches such calls at run time
(`worker._watch`); this static pass catches what a run might not reach.
"""
from __future__ import annotations

import ast


MAX_SOURCE = 2**20   # characters of a cell read: a larger one is not read (its run is bounded)


def _python(source: str) -> ast.AST | None:
    if len(source) > MAX_SOURCE:
        return None
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        source = TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or a cell it cannot transform: read it as Python
        pass
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


_CODE_MAGICS = {"time", "timeit", "prun", "capture"}


def _magic_code(node) -> str | None:
    """The Python code run by a `%time ...` / `%%timeit` magic (as IPython transformed it:
    get_ipython().run_line_magic("time", code) or run_cell_magic("time", line, code))."""
    func = node.func
    if (isinstance(func, ast.Attribute) and func.attr in ("run_line_magic", "run_cell_magic")
            and node.args and _literal(node.args[0]) in _CODE_MAGICS):
        return _literal(node.args[-1])
    return None


class _Reader(ast.NodeVisitor):
    """Resolves expressions to dotted names through the aliases seen so far."""

    def __init__(self, declared: set[str], aliases: dict):
        self.declared, self.aliases, self.found = declared, aliases, set()

    def resolve(self, node) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Subscript):
            key = _literal(node.slice)
            return key if key and self.resolve(node.value) == "sys.modules" else None
        if isinstance(node, ast.Call):
            function = self.resolve(node.func)
            first = _literal(node.args[0]) if node.args else None
            if function == "importlib.import_module" or (
                    isinstance(node.func, ast.Name) and node.func.id == "__import__"):
                if first and isinstance(node.func, ast.Name) and node.func.id == "__import__":
                    fromlist = next((k.value for k in node.keywords if k.arg == "fromlist"),
                                    node.args[3] if len(node.args) > 3 else None)
                    return first if fromlist is not None else first.split(".")[0]
                return first
            if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
                base, name = self.resolve(node.args[0]), _literal(node.args[1])
                return f"{base}.{name}" if base and name else None
            return function   # an object made by a class (or a function's result)
        return None

    def note(self, dotted: str | None) -> None:
        if dotted:
            self.found |= {d for d in self.declared if dotted == d}

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases[top] = top
            self.note(alias.name)

    def visit_ImportFrom(self, node):
        if node.level or not node.module:
            return
        for alias in node.names:
            if alias.name == "*":
                for dotted in self.declared:
                    head, _, last = dotted.rpartition(".")
                    if head == node.module:
                        self.aliases[last] = dotted
                continue
            dotted = f"{node.module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = dotted
            self.note(dotted)

    def visit_Assign(self, node):
        self.generic_visit(node)
        for target in node.targets:
            self._bind(target, node.value)

    def _bind(self, target, value) -> None:
        """`target = value`, element by element for `a, b = x, y` (lists alike)."""
        packed = (ast.Tuple, ast.List)
        if isinstance(target, packed):
            values = value.elts if isinstance(value, packed) and len(value.elts) == len(
                target.elts) else [None] * len(target.elts)
            for t, v in zip(target.elts, values):
                self._bind(t, v)
        elif isinstance(target, ast.Name):
            dotted = self.resolve(value) if value is not None else None
            if dotted:
                self.aliases[target.id] = dotted
            else:
                self.aliases.pop(target.id, None)

    def visit_Attribute(self, node):
        self.note(self.resolve(node))
        self.generic_visit(node)

    def visit_Call(self, node):
        self.note(self.resolve(node))
        self.generic_visit(node)
        code = _magic_code(node)
        if code is not None:
            tree = _python(code)
            if tree is not None:
                self.visit(tree)

    def visit_Name(self, node):
        self.note(self.resolve(node))


def library_uses(sources: list[str], declared) -> dict[str, list[int]]:
    """{declared dotted name: indices (into `sources`) of the cells that use it}. Names bound
    in one cell (imports, assignments) are followed into the later cells."""
    declared, aliases, found = set(declared), {"sys": "sys", "importlib": "importlib"}, {}
    if not declared:
        return {}
    for index, source in enumerate(sources):
        tree = _python(source)
        if tree is None:
            continue
        reader = _Reader(declared, aliases)
        try:
            reader.visit(tree)
        except RecursionError:   # absurdly nested code: what was found so far stands
            pass
        for dotted in reader.found:
            found.setdefault(dotted, []).append(index)
    return found
