"""The layer contract: imports only point downwards; the core never imports Qt; no pickle-based loading."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "searchapp"
# A layer may import itself and anything listed for it.
ALLOWED = {
    "base": {"base"},
    "ingest": {"base", "ingest"},
    "models": {"base", "models"},
    "store": {"base", "store"},
    "ann": {"base", "ann"},
    "evaluation": {"base", "evaluation", "library"},  # eval ir drives the real library
    "training": {"base", "models", "evaluation", "training", "ingest"},
    "library": {"base", "ingest", "models", "store", "ann", "library"},
    "cli": {"base", "library", "evaluation", "cli", "models", "training", "gui"},  # gui: only to launch the window, lazily
    "gui": {"base", "library", "gui"},
}
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
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
