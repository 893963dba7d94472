"""SQLite's quick_check for `status`, at most once a minute per library, across processes.

Why: it reads every page of the database (1.28-1.35 s at a million passages). The window asks for the status
every 2 s while another process writes (gui/other_writers.py), and a person checking a big library types
`searchapp status` more than once: a passing verdict at most a minute old serves both. It is kept in memory
and in `integrity.json` in the data dir (0600), with the size and modification time of the database and its
write-ahead log taken before the check: any commit or checkpoint since changes them, and the check runs again.
A failing verdict is never reused from the file, and `status --check` always runs the check (`fresh`).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from ...base.safe_open import open_regular
from ...store import Store

__all__ = ["IntegrityCheck", "INTERVAL_S", "RECORD"]

INTERVAL_S = 60.0
RECORD = "integrity.json"
_RECORD_MAX_BYTES = 4096
_POSIX = os.name == "posix"


# [size, mtime_ns] of the database and of its write-ahead log, each None when absent or empty (_files_state)
_FilesState = list[Optional[list[int]]]


def _files_state(db: Path) -> Optional[_FilesState]:
    """[size, mtime_ns] of the database and of its write-ahead log ("-wal"), None for a log absent or empty (each
    connection's open creates an empty one anew: no content, only a new time)."""
    out: _FilesState = []
    for path in (db, db.with_name(db.name + "-wal")):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            if path == db:
                return None
            out.append(None)
            continue
        except OSError:
            return None
        out.append([st.st_size, st.st_mtime_ns] if st.st_size else None)
    return out


class IntegrityCheck:
    def __init__(self, data_dir: Optional[Path] = None, *, record: bool = True, interval: float = INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self._record = Path(data_dir) / RECORD if data_dir is not None else None
        self._writes = record
        self._interval, self._clock, self._wall = interval, clock, wall
        self._lock = threading.Lock()
        self._verdict: Optional[bool] = None
        self._when = 0.0

    def ok(self, store: Store, *, fresh: bool = False) -> bool:
        """Whether `store` passed its quick_check, run now unless it ran within the interval (here or, passing,
        in another process on the same unchanged files); `fresh`: run it now whatever ran before."""
        with self._lock:  # two status reads at once check once
            now = self._clock()
            if not fresh and self._verdict is not None and now - self._when < self._interval:
                return self._verdict
            db = Path(store.path)
            state = _files_state(db)
            age = None if fresh or state is None else self._recorded_pass_age(state)
            if age is not None:  # aged from when the other process checked, not from now
                self._verdict, self._when = True, now - age
                return True
            self._verdict, self._when = store.integrity_ok(), now
            if self._verdict and state is not None:
                self._write(state)
            return self._verdict

    def _recorded_pass_age(self, state: _FilesState) -> Optional[float]:
        """Seconds since a passing check recorded on files in `state`, if within the interval; else None."""
        if self._record is None:
            return None
        try:
            with open_regular(self._record) as fh:
                st = os.fstat(fh.fileno())
                if _POSIX and (st.st_uid != os.geteuid() or st.st_mode & 0o077):  # not ours alone: not trusted
                    return None
                data = json.loads(fh.read(_RECORD_MAX_BYTES))
            age = self._wall() - float(data["checked_at"])
            if data["ok"] is True and 0 <= age < self._interval and data["files"] == state:
                return age
        except Exception:  # none yet, or unreadable in any way (2 KB of `[` is a RecursionError, a
            pass  # 400-digit time an OverflowError): treated as absent, so the check simply runs again
        return None

    def _write(self, state: _FilesState) -> None:
        if self._record is None or not self._writes:
            return
        text = json.dumps({"ok": True, "checked_at": self._wall(), "files": state})
        try:  # mkstemp's file is 0600; renamed over the old one, so a reader never sees half a record
            fd, tmp = tempfile.mkstemp(dir=self._record.parent, prefix=f".{RECORD}.", suffix=".tmp")
        except OSError:  # a read-only data dir: the check simply runs again next time
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self._record)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
