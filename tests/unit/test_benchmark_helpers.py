"""Benchmarks say the machine and print their results one way (tests/benchmarks/_common.py): none defines its own
cpu note, and an `emit` of its own only adds its fixed fields to the common one."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def test_no_benchmark_writes_its_own_machine_note_or_printer():
    own = []
    for path in sorted(BENCH.glob("*.py")):
        if path.name == "_common.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name in ("cpu_note", "machine"):
                own.append(f"{path.name}: {node.name}")
            elif isinstance(node, ast.FunctionDef) and node.name == "emit":
                calls = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
                if "_emit" not in calls:
                    own.append(f"{path.name}: emit")
    assert own == []


def test_the_common_note_names_the_cpu_and_the_load(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop("_common", None)
    from _common import emit

    emit({"bench": "x"}, ms=1.5, add_cpu_note=True)
    row = json.loads(capsys.readouterr().out)
    assert row["bench"] == "x" and row["ms"] == 1.5
    assert set(row) >= {"cpu", "cpu_flags", "cores", "load_avg"} and len(row["load_avg"]) == 3
