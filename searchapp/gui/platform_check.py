"""Can Qt's X11 platform plugin load? Checked before the QApplication exists, without importing Qt's modules.

On a fresh Debian/Ubuntu or Fedora desktop some X11 helper libraries Qt 6 needs are not installed, and Qt
then aborts with only "could not load the Qt platform plugin xcb". Here the plugin's shared-library
dependencies are resolved the way the loader will (ldd, which follows the whole tree; where ldd is
missing, a dlopen of the plugin names the first library it lacks), and the missing ones are named with
the packages that provide them.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Optional, Sequence

__all__ = ["EXIT_MISSING_LIBRARIES", "PACKAGES", "qt_platforms_dir", "missing_libraries", "xcb_will_be_used",
           "xcb_problem"]

EXIT_MISSING_LIBRARIES = 6  # docs/cli.md (Exit codes): "6 the window cannot open: system libraries Qt needs are missing"

# soname -> (Debian/Ubuntu package, Fedora package)
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
}

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)
_DLOPEN = re.compile(r"^(\S+?\.so[\w.]*): cannot open shared object file")


def qt_platforms_dir() -> Optional[Path]:
    """PySide6's platforms plugin folder (in a checkout or a PyInstaller bundle), found without importing Qt."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    roots = list(spec.submodule_search_locations or []) if spec else []
    roots.append(os.path.join(getattr(sys, "_MEIPASS", ""), "PySide6"))
    for root in roots:
        d = Path(root) / "Qt" / "plugins" / "platforms"
        if d.is_dir():
            return d
    return None


def missing_libraries(plugin: Path) -> list[str]:
    """The shared libraries `plugin` needs that the dynamic loader cannot find (empty: it loads)."""
    ldd = shutil.which("ldd")
    if ldd:
        try:
            out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            out = None
        if out is not None and (out.returncode == 0 or "not found" in out.stdout):
            return list(dict.fromkeys(_NOT_FOUND.findall(out.stdout)))
    try:  # no ldd (or it failed): the loader itself names the first missing library
        ctypes.CDLL(str(plugin), mode=getattr(os, "RTLD_LAZY", 1) | getattr(os, "RTLD_LOCAL", 0))
    except OSError as exc:
        m = _DLOPEN.match(str(exc))
        return [m.group(1)] if m else [str(exc)]
    return []


def xcb_will_be_used(env: Mapping[str, str], argv: Sequence[str]) -> bool:
    """Qt picks xcb itself only when nobody chose a platform and the session is not Wayland."""
    if env.get("QT_QPA_PLATFORM") or "-platform" in argv or any(a.startswith("-platform=") for a in argv):
        return False
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return False
    return sys.platform.startswith("linux")


def xcb_problem(platforms_dir: Optional[Path] = None, env: Optional[Mapping[str, str]] = None,
                argv: Optional[Sequence[str]] = None) -> Optional[str]:
    """The message to print when the xcb plugin would fail to load, else None."""
    env = os.environ if env is None else env
    argv = sys.argv if argv is None else argv
    if not xcb_will_be_used(env, argv):
        return None
    platforms_dir = platforms_dir or qt_platforms_dir()
    plugin = platforms_dir / "libqxcb.so" if platforms_dir else None
    if plugin is None or not plugin.is_file():
        return None  # a Qt without a separate xcb plugin: nothing to check, let Qt speak
    missing = missing_libraries(plugin)
    if not missing:
        return None
    deb = sorted({PACKAGES[m][0] for m in missing if m in PACKAGES})
    rpm = sorted({PACKAGES[m][1] for m in missing if m in PACKAGES})
    unknown = [m for m in missing if m not in PACKAGES]
    parts = [f"searchapp: the window cannot open: Qt's X11 plugin needs {', '.join(missing)}, "
             "which this system does not have."]
    if deb:
        parts.append(f"Install them with: sudo apt install {' '.join(deb)}   (Debian/Ubuntu)")
        parts.append(f"                or: sudo dnf install {' '.join(rpm)}   (Fedora)")
    if unknown:
        parts.append(f"Find the package for {', '.join(unknown)} with your package manager "
                     "(e.g. apt-file search NAME, dnf provides '*/NAME').")
    parts.append("The command line works without them (searchapp --help).")
    return "\n".join(parts)
