"""The shelf (decision 0187): the vectors of passages a sync deleted from a file of a git working tree, kept by
their model input's hash for a while (`shelved_vectors`), so the same passages back (a branch switched back, an
edit undone) take their meaning from here and are not embedded again. A vector found here by `vectors_by_hash`
goes back among the passages' own (store/passage_records.py takes it off the shelf as it writes it).

Only a sync's deletions of a file changed or gone on disk put vectors here, and only in a git tree (the caller,
library/sync/git_trees.py, says which); `remove` of a folder takes its vectors off the shelf with it
(root_records.py), forgetting every file (a reindex) empties it (file_records.py). The shelf is pruned after each
sync: at most SHELF_MAX vectors, none older than SHELF_DAYS, the oldest first, none of a folder no longer in the
library (one an older version removed: it knows no shelf), and none at all once the library's model or chunking
changed (its vectors are another model's: `library_identity`, as a kept removal's Undo checks). A mixin of Store."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ContextManager, Iterable, Optional

import numpy as np

from .identity import library_identity
from .statements import Statements
from .vector_queue import EMBEDDED

__all__ = ["Shelf", "SHELF_MAX", "SHELF_DAYS", "SHELF_META"]

# 50,000 vectors of 384 float32 are 77 MB (with their hashes ~80 MB) and ~1.7 hours of embedding on a 2-core laptop
# at ~8 passages/s: a branch or two of a large checkout (a diff of 500 files of 20 passages is 10,000), a small
# part of the 1.5 GB a million passages' vectors take.
SHELF_MAX = 50_000
# A month: a branch set aside for a sprint comes back in time; a file's meaning the tree's history alone still
# holds does not stay in the library for ever.
SHELF_DAYS = 30
SHELF_META = "shelf_identity"  # the library_identity the shelved vectors were made under


class Shelf(Statements):
    if TYPE_CHECKING:  # Store's (db.py)
        def get_meta(self, key: str) -> Optional[str]: ...

        def set_meta(self, key: str, value: str) -> None: ...

        def atomic(self) -> ContextManager[None]: ...

    def shelve_vectors(self, file_id: int, root_id: int) -> int:
        """Inside the transaction that deletes the passages of entry `file_id` (of root `root_id`), before it:
        their vectors onto the shelf; not those whose model input another entry's passage holds (a file moved or
        copied: its vector is stored there still). Returns how many were shelved."""
        if not self._shelf_current():
            self.execute("DELETE FROM shelved_vectors")
            self.set_meta(SHELF_META, library_identity(self))
        return int(self.execute(
            "INSERT OR REPLACE INTO shelved_vectors(text_hash, vector, root_id, shelved_at, path) "  # noqa: S608 (a constant)
            f"SELECT c.text_hash, c.vector, ?, ?, (SELECT path FROM files WHERE id = c.file_id) FROM chunks c "
            f"WHERE c.file_id = ? AND {EMBEDDED} "
            "AND NOT EXISTS (SELECT 1 FROM chunks o WHERE o.text_hash = c.text_hash AND o.file_id != c.file_id)",
            (root_id, time.time(), file_id)).rowcount)

    def shelved_vectors(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """text_hash -> its shelved vector, for those of `hashes` on the shelf (none when the library's model or
        chunking changed since they were shelved)."""
        wanted = list(dict.fromkeys(hashes))
        if not wanted or not self._has_shelved() or not self._shelf_current():
            return {}
        out: dict[str, np.ndarray] = {}
        for h, v in self.select_in("SELECT text_hash, vector FROM shelved_vectors WHERE text_hash IN ({})", wanted):
            vec = np.frombuffer(v, dtype=np.float32)
            if np.isfinite(vec).all():
                out[h] = vec
        return out

    def unshelve(self, hashes: Iterable[str]) -> None:
        """Take the vectors of `hashes` off the shelf: passages hold them again."""
        wanted = list(dict.fromkeys(hashes))
        if wanted and self._has_shelved():
            for i in range(0, len(wanted), 500):
                part = wanted[i:i + 500]
                self.execute(f"DELETE FROM shelved_vectors WHERE text_hash IN ({','.join('?' * len(part))})", part)  # noqa: S608 (? only)

    def unshelve_entry(self, file_id: int) -> None:
        """Take off the shelf what entry `file_id` left there before (its earlier versions' vectors), as its
        passages go without being shelved: a file excluded, or found to hold a secret, keeps no meaning here."""
        if self._has_shelved():
            self.execute("DELETE FROM shelved_vectors WHERE path = (SELECT path FROM files WHERE id = ?)", (file_id,))

    def prune_shelf(self, max_vectors: int = SHELF_MAX, max_days: float = SHELF_DAYS,
                    now: Optional[float] = None) -> int:
        """The shelf back within its caps (the oldest go first), without a folder no longer in the library, and
        emptied when its vectors are another model's. Returns how many went."""
        if not self._has_shelved():
            return 0
        now = time.time() if now is None else now
        with self.atomic():
            if not self._shelf_current():
                return int(self.execute("DELETE FROM shelved_vectors").rowcount)
            gone = self.execute("DELETE FROM shelved_vectors WHERE shelved_at < ? OR root_id NOT IN "
                                "(SELECT id FROM roots)", (now - max_days * 86400.0,)).rowcount
            gone += self.execute("DELETE FROM shelved_vectors WHERE rowid IN (SELECT rowid FROM shelved_vectors "
                                 "ORDER BY shelved_at DESC, rowid DESC LIMIT -1 OFFSET ?)", (max_vectors,)).rowcount
        return int(gone)

    def shelved_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM shelved_vectors").fetchone()[0])

    def _has_shelved(self) -> bool:
        return bool(self.conn.execute("SELECT EXISTS (SELECT 1 FROM shelved_vectors)").fetchone()[0])

    def _shelf_current(self) -> bool:
        return self.get_meta(SHELF_META) == library_identity(self)
