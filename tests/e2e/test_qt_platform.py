"""The xcb pre-flight check: real ELF plugins built here, resolved by the real ldd and dynamic loader."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from searchapp.gui.platform_check import (EXIT_MISSING_LIBRARIES, PACKAGES, missing_libraries, qt_platforms_dir,
                                          xcb_problem, xcb_will_be_used)

REPO = Path(__file__).resolve().parents[2]
X11 = {"DISPLAY": ":0"}
needs_cc = pytest.mark.skipif(not shutil.which("cc") or not sys.platform.startswith("linux"),
                              reason="needs a C compiler to build test plugins")


def build_plugin(tmp: Path, needs: tuple[str, ...]) -> Path:
    """platforms/libqxcb.so: a real shared object that needs each library in `needs`, which are then deleted,
    so the loader cannot find them (as on a desktop missing the package)."""
    src = tmp / "src"
    src.mkdir(parents=True, exist_ok=True)
    for soname in needs:  # build a stub for each, to link against
        (src / "stub.c").write_text("int stub_symbol(void) { return 1; }\n")
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(src / soname), str(src / "stub.c")],
                       check=True)
    (src / "plugin.c").write_text("int plugin_entry(void) { return 0; }\n")
    out = tmp / "platforms"
    out.mkdir(exist_ok=True)
    plugin = out / "libqxcb.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", str(plugin), str(src / "plugin.c"),
                    *[str(src / s) for s in needs]], check=True)
    shutil.rmtree(src)
    return plugin


@needs_cc
def test_missing_xcb_helpers_are_named_with_their_packages(tmp_path, monkeypatch):
    # A soname no system has, listed like libxcb-cursor.so.0 is (which this machine may well have installed).
    monkeypatch.setitem(PACKAGES, "libsearchapp-xcbfake.so.0", ("libsearchapp-xcbfake0", "searchapp-xcbfake"))
    plugin = build_plugin(tmp_path, ("libsearchapp-xcbfake.so.0", "libsearchapp-nowhere.so.3"))
    assert missing_libraries(plugin) == ["libsearchapp-xcbfake.so.0", "libsearchapp-nowhere.so.3"]
    msg = xcb_problem(plugin.parent, env=X11, argv=["searchapp"])
    assert "libsearchapp-xcbfake.so.0" in msg and "libsearchapp-nowhere.so.3" in msg
    assert "sudo apt install libsearchapp-xcbfake0" in msg and "sudo dnf install searchapp-xcbfake" in msg
    assert PACKAGES["libxcb-cursor.so.0"] == ("libxcb-cursor0", "xcb-util-cursor")
    assert "apt-file search" in msg  # the unknown one gets a way to find its package


@needs_cc
def test_without_ldd_the_loader_names_the_first_missing_library(tmp_path, monkeypatch):
    plugin = build_plugin(tmp_path, ("libsearchapp-nowhere.so.3",))
    monkeypatch.setattr(shutil, "which", lambda name: None)  # a system without ldd: real dlopen instead
    assert missing_libraries(plugin) == ["libsearchapp-nowhere.so.3"]


@needs_cc
def test_a_plugin_that_resolves_passes_and_a_chosen_platform_skips_the_check(tmp_path):
    ok = build_plugin(tmp_path / "ok", ())
    assert missing_libraries(ok) == [] and xcb_problem(ok.parent, env=X11, argv=[]) is None
    bad = build_plugin(tmp_path / "bad", ("libsearchapp-nowhere.so.3",))
    assert xcb_problem(bad.parent, env=X11, argv=[]) is not None
    assert xcb_problem(bad.parent, env={**X11, "QT_QPA_PLATFORM": "offscreen"}, argv=[]) is None
    assert xcb_problem(bad.parent, env=X11, argv=["searchapp", "-platform", "wayland"]) is None
    assert not xcb_will_be_used({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, [])
    assert xcb_problem(tmp_path / "no-such-dir", env=X11, argv=[]) is None


def test_the_app_exits_with_the_documented_code_when_this_system_lacks_them(tmp_path):
    """End to end on this machine's own PySide6, when it does lack libraries (headless CI images do)."""
    plugins = qt_platforms_dir()
    if plugins is None or not missing_libraries(plugins / "libqxcb.so"):
        pytest.skip("this system has every library the xcb plugin needs")
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=":99", SEARCHAPP_DATA_DIR=str(tmp_path / "lib"),
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "searchapp", "gui"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == EXIT_MISSING_LIBRARIES, out.stderr
    assert "sudo apt install" in out.stderr and "could not load the Qt platform plugin" not in out.stderr
    assert f"{EXIT_MISSING_LIBRARIES} the window cannot open" in (REPO / "docs" / "cli.md").read_text()  # documented
