"""PySide6-Essentials 6.12.0 on Python 3.11 dropped a reference to None per void Qt call and to True per emit
(64 calls -> -64), which ends in "deallocating None". That version is excluded in pyproject.toml and no
workaround is installed: this test fails on a broken PySide6, whatever version number it carries."""

from __future__ import annotations

import sys

import pytest

CALLS = 64
SLACK = 4  # unrelated code may drop a reference or two meanwhile; the bug drops CALLS


@pytest.fixture
def qobject(qapp):
    import searchapp.gui  # noqa: F401 - whatever the GUI package does at import must not mask the bug
    from PySide6.QtCore import QObject, Signal

    class Probe(QObject):
        fired = Signal()

    return Probe()


def test_void_qt_calls_leave_the_refcount_of_none_unchanged(qobject):
    qobject.setObjectName("warm-up")
    before = sys.getrefcount(None)
    for _ in range(CALLS):
        qobject.setObjectName("probe")
    assert sys.getrefcount(None) - before >= -SLACK


def test_emits_leave_the_refcount_of_true_unchanged(qobject):
    qobject.fired.emit()
    before = sys.getrefcount(True)
    for _ in range(CALLS):
        qobject.fired.emit()
    assert sys.getrefcount(True) - before >= -SLACK


def test_no_refcount_workaround_is_installed():
    import importlib.util

    assert importlib.util.find_spec("searchapp.gui.qtfix") is None
    if sys.version_info < (3, 12):  # a ctypes "immortal None" hack shows as an absurd count
        assert sys.getrefcount(None) < 1 << 32 and sys.getrefcount(True) < 1 << 32


def test_pyproject_excludes_the_broken_pyside_version():
    import tomllib
    from pathlib import Path

    deps = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())["project"]["dependencies"]
    pyside = next(d for d in deps if d.lower().startswith("pyside6-essentials"))
    assert "!=6.12.0" in pyside.replace(" ", "")
