"""flock is imported in one place (base/flock.py): every lock of a library reads its fallback from there."""

from __future__ import annotations

import ast
from pathlib import Path

import searchapp

ROOT = Path(searchapp.__file__).resolve().parent


def test_only_base_flock_imports_fcntl():
    importers = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if "fcntl" in names:
                importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["base/flock.py"]
