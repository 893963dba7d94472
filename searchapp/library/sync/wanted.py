"""Files the person is looking at: what the meaning pass embeds first while meaning is unfinished.

A search's returned files, a file opened and the file Similar was asked for are recorded here (newest wish
first, at most MAX_FILES); the meaning pass (meaning_pass._Queue) takes their waiting passages before the
newest-modified files and the rest. Decision record 0109 says why a small file and not a table:

- a search only reads the library (a read-only connection, maybe another process than the one syncing), so it
  never writes library.sqlite; `<data dir>/wanted.json` is written whole and renamed over (a few hundred bytes,
  well under a millisecond), so `searchapp search` beside a window's sync is heard by that sync;
- it is a hint, not state: lost, damaged or raced (two processes adding at once, one's keys lost) it costs
  only order, never a passage; a library opened read-only keeps its wishes in memory only.

Files are named by their key (Store's `files.path`, a container member as `a.zip//m.txt`), which outlives a
reindex; keys that are no longer indexed, or have nothing waiting, simply match no passage.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Optional, Sequence

import numpy as np

from ...base.safe_open import open_regular_fd
from ...store import Store

__all__ = ["Wanted", "MeaningQueue", "FILE_NAME", "MAX_FILES", "PER_FILE"]

FILE_NAME = "wanted.json"
MAX_FILES = 256  # files remembered; a search adds at most its k
_MAX_KEY = 4096  # characters of one key (a path); longer ones are not recorded
_MAX_BYTES = MAX_FILES * (_MAX_KEY + 8) + 64  # what a read takes of the file at most
# Passages of one wanted file taken ahead of the queue: a 2,000-page PDF a search returned must not hold back
# the other nine files for an hour (its other passages keep their place in the queue).
PER_FILE = 64


class Wanted:
    """The wished-for files of one library, shared through its data dir (see the module's docstring)."""

    def __init__(self, data_dir: Path, *, writable: bool = True) -> None:
        self._path = Path(data_dir) / FILE_NAME
        self._writable = writable
        self._lock = threading.Lock()
        self._keys: list[str] = []  # newest wish first
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file when last read
        self._changes = 0  # bumped by every change made here

    def add(self, keys: Iterable[str]) -> None:
        """Put `keys` first (the first of them first), keeping MAX_FILES."""
        new = [k for k in dict.fromkeys(keys) if isinstance(k, str) and 0 < len(k) <= _MAX_KEY]
        if not new:
            return
        with self._lock:
            self._refresh()
            if self._keys[:len(new)] == new:
                return  # the same search again: nothing changes, nothing is written
            rest = [k for k in self._keys if k not in set(new)]
            self._keys = (new + rest)[:MAX_FILES]
            self._changes += 1
            self._write()

    def current(self) -> tuple[tuple[int, tuple[int, int] | None], list[str]]:
        """(a token that changes whenever the list does, in this process or through the file; the keys, newest
        wish first)."""
        with self._lock:
            self._refresh()
            return (self._changes, self._seen), list(self._keys)

    def clear(self) -> None:
        with self._lock:
            self._keys = []
            self._changes += 1
            self._write()

    def _refresh(self) -> None:
        """Read the file again if another process (or this one) changed it since it was last read."""
        try:
            st = os.stat(self._path, follow_symlinks=False)
        except OSError:
            return
        state = (st.st_mtime_ns, st.st_size)
        if state == self._seen:
            return
        self._seen = state
        keys = self._read()
        if keys is not None:
            self._keys = keys

    def _read(self) -> list[str] | None:
        try:
            fd = open_regular_fd(self._path)  # never a link followed, nor a FIFO waited on
        except Exception:  # none, a link or a folder put there: no hint from it
            return None
        try:
            with os.fdopen(fd, "rb") as fh:
                data = json.loads(fh.read(_MAX_BYTES))
        except Exception:  # damaged, cut short or not JSON: only the order is lost
            return None
        if not isinstance(data, list):
            return None
        return [k for k in data if isinstance(k, str) and 0 < len(k) <= _MAX_KEY][:MAX_FILES]

    def _write(self) -> None:
        if not self._writable:
            return
        try:  # mkstemp's file is 0600; renamed over the old one, so a reader never sees half a list
            fd, tmp = tempfile.mkstemp(dir=self._path.parent, prefix=f".{FILE_NAME}.", suffix=".tmp")
        except OSError:  # e.g. a full disk: this process still takes its own wishes first
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self._keys, fh, ensure_ascii=False)
            os.replace(tmp, self._path)
            st = os.stat(self._path, follow_symlinks=False)
            self._seen = (st.st_mtime_ns, st.st_size)
        except OSError:
            Path(tmp).unlink(missing_ok=True)


class MeaningQueue:
    """The waiting passages in embedding order, read once and then taken batch by batch (Store.pending_order:
    newest-modified file first); read again when used up, so passages another sync committed meanwhile are
    embedded too. Before each batch, files newly wanted (Wanted) go first: at most PER_FILE passages of each,
    the newest wish first."""

    def __init__(self, store: Store, wanted: Optional[Wanted] = None, later: Sequence[int] = ()) -> None:
        self.store = store
        self.wanted = wanted
        self.later = list(later)  # files.id whose passages this pass leaves waiting (meaning_pass.embed_pending)
        self.ids = self._order()
        self.at = 0
        self._token: object = None  # the wanted list's token when last put in front

    def take(self, n: int) -> list[tuple[int, str, str, str]]:
        """Up to `n` rows of passages still waiting (twins filled by an earlier batch are passed over)."""
        self._put_wanted_first()
        while True:
            if self.at >= len(self.ids):
                self.ids, self.at = self._order(), 0
                self._token = None  # read again: the wanted files go first again
                self._put_wanted_first()
                if not len(self.ids):
                    return []
            part = self.ids[self.at:self.at + n]
            self.at += len(part)
            rows = self.store.pending_rows(part)
            if rows:
                return rows

    def _order(self) -> np.ndarray:
        ids = self.store.pending_order()
        if not self.later or not len(ids):
            return ids
        return ids[~np.isin(ids, self.store.pending_of_file_ids(self.later))]

    def _put_wanted_first(self) -> None:
        if self.wanted is None:
            return
        token, keys = self.wanted.current()
        if token == self._token:
            return
        self._token = token
        first = self.store.pending_of_files(keys, PER_FILE) if keys else np.empty(0, np.int64)
        if not len(first):
            return
        if self.later:
            first = first[~np.isin(first, self.store.pending_of_file_ids(self.later))]
        rest = self.ids[self.at:]
        self.ids, self.at = np.concatenate([first, rest[~np.isin(rest, first)]]), 0
