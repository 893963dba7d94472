"""The private temporary folders that hold members' copies (for an extractor, the OCR step, Open), and the
clean-up of those a killed process left behind.

A folder is removed when its work is done, and Open's at exit; SIGTERM, SIGHUP or kill -9 skip both, and the
member copies (a mail attachment, a document out of an archive) would stay in the temp folder for good. So each
folder's name carries its process id (`searchapp-open-1234-…`), and at start a process removes the folders of
this user whose process is gone. A live process's folders, another user's and anything not a plain folder of
that name are left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path

__all__ = ["new_private_dir", "private_temp_dir", "remove_stale_copies"]

_NAME = re.compile(r"^searchapp-(?:open|members?)-(\d+)-")
_lock = threading.Lock()
_cleaned = False


def _prefix(kind: str) -> str:
    return f"searchapp-{kind}-{os.getpid()}-"


def new_private_dir(kind: str) -> Path:
    """A new 0700 folder (mkdtemp) named for `kind` ("open", "member", "members") and this process."""
    remove_stale_copies()
    return Path(tempfile.mkdtemp(prefix=_prefix(kind)))


def private_temp_dir(kind: str) -> tempfile.TemporaryDirectory[str]:
    """As new_private_dir, removed on leaving the `with`."""
    remove_stale_copies()
    return tempfile.TemporaryDirectory(prefix=_prefix(kind))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or not ours to judge: keep
    return True


def remove_stale_copies(force: bool = False) -> list[Path]:
    """Once per process (every time with `force`): remove this user's member folders whose process is gone;
    returns them."""
    global _cleaned
    with _lock:
        if _cleaned and not force:
            return []
        _cleaned = True
    removed: list[Path] = []
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return removed
    for entry in entries:
        m = _NAME.match(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or (os.name == "posix" and st.st_uid != os.geteuid()):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)  # fd-based on Linux: a link inside is removed, not followed
        removed.append(Path(entry.path))
    return removed
