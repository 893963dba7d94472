"""Open on a member of a container: the member is read again from its container and written, alone, to a
private temporary folder (0700, the copy 0600: never executable), removed when the process exits, or by the
next process when this one was killed (temp_copies.py). The window hands that copy to the system's viewer the
same way as any indexed file; nothing else is extracted.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Optional

from ...base.member_paths import MEMBER_SEP, split_member
from ...base.private import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE
from ...ingest.extractors import DEFAULT_MAX_BYTES
from ...ingest.extractors.members import read_member
from .temp_copies import new_private_dir

__all__ = ["open_copy", "private_open_dir"]

_lock = threading.Lock()
_dir: Optional[Path] = None


def private_open_dir() -> Path:
    """This process's folder for opened members (created on first use, removed at exit)."""
    global _dir
    with _lock:
        if _dir is None or not _dir.is_dir():
            _dir = new_private_dir("open")  # mkdtemp: 0700, ours alone
            os.chmod(_dir, PRIVATE_DIR_MODE)
            atexit.register(shutil.rmtree, _dir, True)
        return _dir


def _file_name(member: str, suffix: str) -> str:
    last = member.split(MEMBER_SEP)[-1].split("/")[-1]
    name = re.sub(r"[^\w .,()-]", "_", last).strip(" .")[:100] or "member"
    return name + suffix if suffix and not name.lower().endswith(suffix) else name


def open_copy(key: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Path:
    """A private copy of the member `key` (container//member) to hand to the system; ExtractionError when it
    can no longer be read (the container changed or went)."""
    container, member = split_member(key)
    if member is None:
        raise ValueError(f"not a member: {key}")
    m = read_member(key, max_bytes)
    folder = Path(tempfile.mkdtemp(dir=private_open_dir()))  # one per open: two members may share a name
    path = folder / _file_name(member, m.suffix if m.suffix == ".eml" else "")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), PRIVATE_FILE_MODE)
    with os.fdopen(fd, "wb") as fh:
        fh.write(m.data or b"")
    os.chmod(path, PRIVATE_FILE_MODE)
    return path
