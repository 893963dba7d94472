"""A member's private copy on disk: its bytes, read again from its container, alone in a 0600 file inside a
private 0700 temporary folder (temp_copies.py names and cleans those folders).

Extractors and the OCR step read paths, so a member is written to a copy for the time they read it
(`readable`, `write_private_copy`); Open hands the system's viewer a copy named like the member (`open_copy`),
kept until the process exits, or removed by the next process when this one was killed. Every name on disk is
ours or cleaned by `safe_name`: no member name can point a copy elsewhere, and nothing else is extracted.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

from ...base.errors import ExtractionError
from ...base.member_paths import MEMBER_SEP, split_member
from ...base.private import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE
from ...base.stored_names import disk_path
from ...base.progress import CancelToken
from ...ingest.extractors import DEFAULT_MAX_BYTES
from ...ingest.extractors.members import read_member
from .temp_copies import new_private_dir, private_temp_dir

__all__ = ["safe_name", "write_private_copy", "readable", "open_copy", "private_open_dir", "remove_open_dir"]

_SAFE_SUFFIX = re.compile(r"^\.[A-Za-z0-9]{1,10}$")
_UNSAFE_CHARS = re.compile(r"[^\w .,()-]")
_lock = threading.Lock()
_open_dir: Optional[Path] = None


def safe_name(member: str) -> str:
    """The last part of a member's name as a plain file name (no separator, no leading dot, at most 100
    characters), or "member" when nothing of it is left."""
    last = member.split(MEMBER_SEP)[-1].split("/")[-1]
    return _UNSAFE_CHARS.sub("_", last).strip(" .")[:100] or "member"


def write_private_copy(folder: str, data: bytes, suffix: str) -> Path:
    """`data` as a new 0600 file in `folder` (a private temporary folder); the name is ours, never the
    archive's. Only a plain suffix is kept (extractors go by it)."""
    suffix = suffix if _SAFE_SUFFIX.match(suffix or "") else ""
    fd, name = tempfile.mkstemp(prefix="member-", suffix=suffix, dir=folder)
    with os.fdopen(fd, "wb") as fh:
        os.fchmod(fh.fileno(), PRIVATE_FILE_MODE) if hasattr(os, "fchmod") else None
        fh.write(data)
    return Path(name)


@contextmanager
def readable(key: str, max_bytes: int, cancel: Optional[CancelToken] = None,
             sha256: Optional[str] = None) -> Iterator[Path]:
    """A path to an entry's bytes: a file's own path, or for a member a private copy of it, removed on
    leaving. `sha256`: the bytes the library indexed; other bytes are refused."""
    if split_member(key)[1] is None:
        yield Path(disk_path(key))  # a name that is not UTF-8 is stored otherwise (base/stored_names.py)
        return
    m = read_member(key, max_bytes, cancel)
    assert m.data is not None  # read_member raises for a member it skipped
    if sha256 and hashlib.sha256(m.data).hexdigest() != sha256:
        raise ExtractionError("changed inside its container since it was indexed (the next sync reads it again)")
    with private_temp_dir("member") as tmp:
        yield write_private_copy(tmp, m.data, m.suffix)


def private_open_dir() -> Path:
    """This process's folder for opened members (created on first use, removed at exit)."""
    global _open_dir
    with _lock:
        if _open_dir is None or not _open_dir.is_dir():
            _open_dir = new_private_dir("open")  # mkdtemp: 0700, ours alone
            os.chmod(_open_dir, PRIVATE_DIR_MODE)
            atexit.register(remove_open_dir)
        return _open_dir


def remove_open_dir() -> None:
    """Remove this process's folder of opened members (at exit; cli/abort.leave_unwaited calls it too: an
    os._exit runs no atexit function, and the members' copies stayed in the temp folder)."""
    if _open_dir is not None:
        shutil.rmtree(_open_dir, ignore_errors=True)


def open_copy(key: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Path:
    """A private copy of the member `key` (container//member), named like it, to hand to the system's viewer;
    ExtractionError when it can no longer be read (the container changed or went)."""
    member = split_member(key)[1]
    if member is None:
        raise ValueError(f"not a member: {key}")
    m = read_member(key, max_bytes)
    folder = Path(tempfile.mkdtemp(dir=private_open_dir()))  # one per open: two members may share a name
    name = safe_name(member)
    if m.suffix == ".eml" and not name.lower().endswith(".eml"):  # a message attachment has no name of its own
        name += ".eml"
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), PRIVATE_FILE_MODE)
    with os.fdopen(fd, "wb") as fh:
        fh.write(m.data or b"")
    os.chmod(path, PRIVATE_FILE_MODE)
    return path
