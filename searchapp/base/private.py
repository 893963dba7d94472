"""Private files: the library holds the text of every indexed passage, so its folder is 0700 and every file
in it 0600 whatever the umask (as ssh and gpg keep theirs). POSIX only; elsewhere these do nothing.

Like ssh, a file another user owns is never used: that user could read what is written to it or plant what
is read from it. It is refused (DataDirError), never taken over; a file of ours others could read or write
is tightened instead (tighten, create_private_file), and a link is never followed to create or open one."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from .errors import DataDirError

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "make_private_dir", "create_private_file",
           "write_private_text", "tighten", "foreign_owner", "owner_refusal", "refuse_untrusted_file"]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_POSIX = os.name == "posix"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

log = logging.getLogger(__name__)


def foreign_owner(st: os.stat_result) -> bool:
    """Whether another user owns what `st` describes."""
    return _POSIX and st.st_uid != os.geteuid()


def owner_refusal(path: Path, st: os.stat_result) -> DataDirError:
    return DataDirError(f"{path} belongs to another user (uid {st.st_uid}), who could read or replace what "
                        f"searchapp keeps there; refusing to use it. Remove it if you did not put it there, or "
                        f"pass --data-dir a folder of your own")


def make_private_dir(path: Path) -> None:
    """Create `path` (and missing parents, with the usual modes) and make `path` itself 0700."""
    path = Path(path)
    existed = path.is_dir()
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    if _POSIX and not existed:
        os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode goes through the umask; chmod does not


def create_private_file(path: Path) -> None:
    """Create an empty 0600 file unless `path` exists (so SQLite, which gives -wal/-shm the database
    file's mode, and every later writer keep it private). One that exists must be a regular file of this
    user's (DataDirError otherwise: a link is never followed, another user's file never used); if others
    may read or write it, it is made 0600 with a warning."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, PRIVATE_FILE_MODE)
    except FileExistsError:
        _check_existing(Path(path))
        return
    try:
        if _POSIX:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)


def refuse_untrusted_file(path: Path) -> os.stat_result:
    """The lstat of `path`, an existing file of the data dir about to be opened; DataDirError when it is a link,
    not a regular file, or another user's. The one check every opener of such a file makes, reading or writing."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise DataDirError(f"{path} is a symbolic link; searchapp never follows one to its files "
                           f"(remove the link, or pass --data-dir the folder it points into)")
    if not stat.S_ISREG(st.st_mode):
        raise DataDirError(f"{path} is not a regular file")
    if foreign_owner(st):
        raise owner_refusal(path, st)
    return st


def _check_existing(path: Path) -> None:
    st = refuse_untrusted_file(path)
    if _POSIX and st.st_mode & 0o077:
        os.chmod(path, PRIVATE_FILE_MODE)
        log.warning("%s could be read or written by other users: made it 0600", path)


def write_private_text(path: Path, text: str) -> None:
    """Write `text` to a new 0600 file at `path` (truncating one that exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        if _POSIX:
            os.fchmod(fh.fileno(), PRIVATE_FILE_MODE)
        fh.write(text)


def tighten(folder: Path) -> list[str]:
    """Take group/other permissions off `folder` and the regular files directly in it that this user owns;
    returns the names changed ("." for the folder). Symlinks and other users' files are left alone."""
    if not _POSIX:
        return []
    folder = Path(folder)
    changed: list[str] = []
    me = os.geteuid()

    def fix(path: Path, name: str, want: int) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            return
        if st.st_uid != me or stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o077:
            return
        try:
            os.chmod(path, stat.S_IMODE(st.st_mode) & want)
            changed.append(name)
        except OSError:
            pass

    fix(folder, ".", PRIVATE_DIR_MODE)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return changed
    for entry in entries:
        if entry.is_file(follow_symlinks=False):
            fix(Path(entry.path), entry.name, PRIVATE_FILE_MODE)
    return changed
