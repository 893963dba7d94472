"""flock is imported in one place (base/flock.py): every lock of a library reads its fallback from there."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

import searchapp
from searchapp.base.flock import held_text

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


# -- held_text: the one way a lock file's holder is looked at (writer.lock and the raised hands alike) ---------
fcntl = pytest.importorskip("fcntl") if os.name == "posix" else None
needs_flock = pytest.mark.skipif(fcntl is None, reason="no flock on this platform")


def _hold(path: Path, how: int, text: str = "") -> int:
    """Another process's flock (a descriptor of its own: flocks of two descriptors exclude each other)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, how | fcntl.LOCK_NB)
    os.write(fd, text.encode())
    return fd


@needs_flock
def test_a_writer_holding_its_lock_is_seen_with_what_it_wrote_and_a_second_looker_is_not(tmp_path):
    lock = tmp_path / "writer.lock"
    assert held_text(lock, held_shared=False) is None and not lock.exists()  # never written: no writer, none made
    looker = _hold(lock, fcntl.LOCK_SH)  # another process looking at this instant
    try:
        assert held_text(lock, held_shared=False) is None
    finally:
        os.close(looker)
    writer = _hold(lock, fcntl.LOCK_EX, "4242\nsearchapp index /docs\n")
    try:
        assert held_text(lock, held_shared=False) == "4242\nsearchapp index /docs\n"
    finally:
        os.close(writer)
    assert held_text(lock, held_shared=False) is None


@needs_flock
def test_a_raised_hand_is_seen_while_held(tmp_path):
    hand = tmp_path / "writer.wants"
    assert held_text(hand, held_shared=True, create=True) is None and hand.exists()
    raised = _hold(hand, fcntl.LOCK_SH, "7\n")
    try:
        assert held_text(hand, held_shared=True, create=True) == "7\n"
    finally:
        os.close(raised)
    assert held_text(hand, held_shared=True, create=True) is None
