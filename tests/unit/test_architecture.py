"""The layer contract: imports only point downwards; the core never imports Qt; no pickle-based loading; no
function over 80 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "searchapp"
# A layer may import itself and anything listed for it.
ALLOWED = {
    "base": {"base"},
    "ingest": {"base", "ingest"},
    "models": {"base", "models"},
    "store": {"base", "store"},
    "ann": {"base", "ann"},
    "datasets": {"base", "datasets"},  # BEIR and pair-file readers, below both evaluation and training
    "evaluation": {"base", "datasets", "evaluation", "library"},  # eval ir drives the real library
    "training": {"base", "models", "datasets", "training", "ingest"},
    "library": {"base", "ingest", "models", "store", "ann", "library"},
    "cli": {"base", "library", "evaluation", "datasets", "cli", "models", "training", "gui"},  # gui: only to launch the window, lazily
    "gui": {"base", "library", "gui"},
}
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6")
# Single modules a layer may import from a layer it may not otherwise import. The window's Download is the product's own hub client,
# the same one `searchapp models pull` uses: it imports neither torch nor transformers (the load check does, on
# the download's worker), so the GUI calls it directly rather than through a library module that only passed
# its names on. The rest of models/ (encoders, resolve) stays behind the Library.
ALSO_ALLOWED = {"gui": ("searchapp.models.hub",)}


@functools.lru_cache(maxsize=None)
def tree_of(source: str) -> ast.Module:
    """The parsed module, once per source: every check here walks all ~290 modules (read only, never changed)."""
    return ast.parse(source)


def imports_of(path: Path) -> set[str]:
    tree = tree_of(path.read_text(encoding="utf-8"))
    rel = path.relative_to(PKG).parts
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = list(rel[:-1])[: len(rel) - node.level]
                mod = ".".join(["searchapp", *base, *(node.module.split(".") if node.module else [])])
            else:
                mod = node.module or ""
            out.add(mod)
    return out


def modules():
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).parts
        yield (rel[0] if len(rel) > 1 else None), path


def test_imports_point_downwards():
    bad = []
    for layer, path in modules():
        if layer is None:
            continue
        for mod in imports_of(path):
            if mod.startswith("searchapp."):
                target = mod.split(".")[1]
                if mod.startswith(ALSO_ALLOWED.get(layer, ())):
                    continue
                if target in ALLOWED and target not in ALLOWED.get(layer, set()):
                    bad.append(f"{path.relative_to(PKG)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_core_never_imports_qt_and_gui_never_touches_storage_or_torch():
    bad = []
    for layer, path in modules():
        mods = imports_of(path)
        if layer != "gui" and any(m.startswith(FORBIDDEN_IN_CORE) for m in mods):
            bad.append(f"{path.relative_to(PKG)} imports Qt")
        if layer == "gui" and any(m.split(".")[0] in ("sqlite3", "sqlite_utils", "torch", "transformers", "hnswlib") for m in mods):
            bad.append(f"{path.relative_to(PKG)} touches storage or models directly")
    assert not bad, "\n".join(bad)


def test_no_unpickling_anywhere():
    bad = []
    for _, path in modules():
        src = path.read_text(encoding="utf-8")
        for needle in ("torch.load(", "pickle.load", "allow_pickle=True"):
            if needle in src:
                bad.append(f"{path.relative_to(PKG)}: {needle}")
    assert not bad, "\n".join(bad)


def module_graph() -> dict[str, set[str]]:
    """searchapp's modules → the searchapp modules each imports (function-level imports too: a lazy import
    still ties two modules together). `from pkg import name` counts as importing pkg.name when that is a module."""
    names = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for mod, path in names.items():
        package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        out: set[str] = set()
        for node in ast.walk(tree_of(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                out |= {f"{target}.{a.name}" if f"{target}.{a.name}" in names else target for a in node.names}
        graph[mod] = {t for t in out if t in names and t != mod}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


def test_no_import_cycle_between_modules():
    assert not import_cycles(module_graph()), import_cycles(module_graph())


def test_the_cycle_finder_finds_a_cycle():
    # the checker itself could pass vacuously: a made-up circle a → b → c → a must be reported
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Inside library/, its sub-packages in order, lowest first: each may import itself and those before it, never one
# after it (docs/decisions/0122-an-order-for-library-sub-packages.md). The package's own modules (library.py,
# shared.py, reconfigure.py, watch_and_serve.py, __init__.py: the façade) come after all of them, and no
# sub-package imports the façade. Function-level imports count: a lazy import is no way around the order.
LIBRARY_ORDER = (
    "members",    # copies of container members on disk (private and temporary)
    "resources",  # what an open library holds: data dir, writer lock, connections, vector index, models, ...
    "query",      # the query language, what its filters say, history and saved searches
    "search",     # where a search is ranked: retrieve, filter, fuse, group, rerank; similar files, duplicates
    "sync",       # keeping the index in step: words pass, meaning pass, roots, live watch
    "ocr",        # the OCR step a sync is handed (sync/contract.OcrStep), the "(OCR)" marks on hits
    "report",     # what the library says about itself: status, not indexed, explain, settings drift, recall
    "warm",       # the warm index: a long-lived process answers the command line's searches
)
FACADE = len(LIBRARY_ORDER)


def library_rank(module: str) -> int | None:
    """Where a searchapp.library module stands in LIBRARY_ORDER (FACADE for the package's own modules), or
    None outside library/."""
    parts = module.split(".")
    if parts[:2] != ["searchapp", "library"]:
        return None
    if len(parts) > 3 or (len(parts) == 3 and (PKG / "library" / parts[2]).is_dir()):
        return LIBRARY_ORDER.index(parts[2]) if parts[2] in LIBRARY_ORDER else -1
    return FACADE


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import in `graph` from a library sub-package to one after it in LIBRARY_ORDER, or to the façade."""
    bad = []
    for mod, targets in sorted(graph.items()):
        here = library_rank(mod)
        if here is None or here == FACADE:
            continue
        bad += [f"{mod} imports {t}" for t in sorted(targets)
                if (there := library_rank(t)) is not None and there > here]
    return bad


def test_library_sub_packages_are_all_in_the_order():
    found = {p.name for p in (PKG / "library").iterdir() if (p / "__init__.py").exists()}
    assert found == set(LIBRARY_ORDER), f"place each library/ sub-package in LIBRARY_ORDER: {found ^ set(LIBRARY_ORDER)}"


def test_library_sub_packages_import_only_downwards():
    bad = upward_imports(module_graph())
    assert not bad, "an import against library/'s order (LIBRARY_ORDER):\n" + "\n".join(bad)


def test_the_order_check_finds_an_upward_import():
    # the check could pass vacuously: query importing search, sync importing ocr (even lazily: the graph holds
    # function-level imports) and a sub-package importing the façade must each be reported; the façade importing
    # a sub-package, and search importing query, must not
    graph = {"searchapp.library.query.syntax": {"searchapp.library.search.filter_scope"},
             "searchapp.library.sync.updates": {"searchapp.library.ocr.step", "searchapp.library.resources.lock"},
             "searchapp.library.search.pipeline": {"searchapp.library.query.syntax", "searchapp.library"},
             "searchapp.library.library": {"searchapp.library.warm.server", "searchapp.library.members.private_copy"}}
    assert upward_imports(graph) == [
        "searchapp.library.query.syntax imports searchapp.library.search.filter_scope",
        "searchapp.library.search.pipeline imports searchapp.library",
        "searchapp.library.sync.updates imports searchapp.library.ocr.step"]


# SQL has one owner: searchapp/store/. Everywhere else a store is asked through its named methods.
_SQL_ATTRS = frozenset({"conn", "execute", "executemany", "executescript"})
_SQL_TEXT = __import__("re").compile(r"\b(SELECT\b[\s\S]*\bFROM|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|"
                                     r"CREATE\s+(TABLE|INDEX|TRIGGER)|PRAGMA\s+\w+)\b")


def sql_outside_store(source: str) -> list[str]:
    """What in `source` runs or writes SQL itself: `.conn` of a store, `.execute(` and its kin, sqlite3.connect,
    SQL statement text in a string."""
    out = []
    for node in ast.walk(tree_of(source)):
        if isinstance(node, ast.Attribute) and node.attr in _SQL_ATTRS:
            out.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr == "connect" and getattr(node.value, "id", "") == "sqlite3":
            out.append(f"line {node.lineno}: sqlite3.connect")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL_TEXT.search(node.value):
            out.append(f"line {node.lineno}: SQL text {node.value[:40]!r}")
    return out


def test_only_the_store_runs_sql():
    bad = []
    for layer, path in modules():
        if layer != "store":
            bad += [f"{path.relative_to(PKG)} {what}" for what in sql_outside_store(path.read_text(encoding="utf-8"))]
    assert not bad, "\n".join(bad)


def test_the_sql_finder_finds_sql():
    # the check could pass vacuously: each way library code used to reach SQLite must be reported
    found = sql_outside_store(
        'rows = store.conn.execute(f"SELECT c.id FROM files f WHERE {where}", params)\n'
        "self.store.conn.executemany(sql, rows)\n"
        "c = sqlite3.connect(path)\n"
        'sql = "DELETE FROM chunks WHERE id = ?"\n'
        "ok = store.search_lexical(query, 10)\n")
    assert [f.split(":")[0] for f in found].count("line 1") == 3 and len(found) == 7, found


# Style: functions under ~80 lines (issue 42 item 5); a longer one is split into named steps (see run_search).
MAX_FUNCTION_LINES = 80


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Each function or method in `source` longer than `limit` lines (def line to last line, decorators not
    counted), by qualified name: 'Class.method (N lines, line L)'."""
    out: list[str] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    lines = (child.end_lineno or child.lineno) - child.lineno + 1
                    if lines > limit:
                        out.append(f"{name} ({lines} lines, line {child.lineno})")
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree_of(source), "")
    return out


def test_no_function_over_80_lines():
    bad = []
    for _layer, path in modules():
        bad += [f"searchapp/{path.relative_to(PKG).as_posix()}: {what}"
                for what in long_functions(path.read_text(encoding="utf-8"))]
    assert not bad, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n" + "\n".join(bad)


def test_the_length_finder_finds_a_long_function():
    # the check could pass vacuously: an 81-line method, function nested in another, and function under an `if`
    # are reported by qualified name; an 80-line function is not
    source = ("def fits():\n" + "    x = 1\n" * 79 + "\n"
              "class C:\n    def long(self):\n" + "        x = 1\n" * 80 + "\n"
              "async def outer():\n    def inner():\n" + "        x = 1\n" * 80 + "\n"
              "if True:\n    def guarded():\n" + "        x = 1\n" * 80)
    assert long_functions(source) == ["C.long (81 lines, line 83)", "outer (82 lines, line 165)",
                                      "outer.inner (81 lines, line 166)", "guarded (81 lines, line 249)"]
