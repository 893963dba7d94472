"""What a sync counts as moved: a deleted entry whose very bytes the same sync added under another name (a file
renamed, or moved within its folder). Said as one change, never as an addition and a removal (SyncReport.said)."""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Optional

import numpy as np

from ...store import FileRow

__all__ = ["Moves"]


class Moves:
    """The bytes of the entries a sync adds, to count the deleted entries found again under another name (moved).
    Kept as the first 8 bytes of each sha256 (8 bytes an entry: a first sync of a million files resumed holds 8 MB,
    not the hex strings), looked at only where something was deleted."""

    def __init__(self) -> None:
        self._added = array("Q")
        self._dropped: Counter[int] = Counter()

    @staticmethod
    def _key(sha: Optional[str]) -> Optional[int]:
        try:
            return int(sha[:16], 16) if sha and len(sha) >= 16 else None
        except ValueError:  # not a hex digest: never a twin
            return None

    def add(self, sha: Optional[str]) -> None:
        key = self._key(sha)
        if key is not None:
            self._added.append(key)

    def drop(self, sha: Optional[str]) -> None:
        """An addition that failed after all: its bytes are not in the library."""
        key = self._key(sha)
        if key is not None:
            self._dropped[key] += 1

    def twins(self, gone: list[FileRow]) -> int:
        """How many of the deleted entries `gone` have their bytes among the additions, each addition used once."""
        keys = {row.id: key for row in gone if row.status == "indexed" and (key := self._key(row.sha256)) is not None}
        if not keys or not self._added:
            return 0
        added = np.frombuffer(self._added, dtype=np.uint64)
        found = Counter(added[np.isin(added, np.fromiter(keys.values(), dtype=np.uint64))].tolist())
        found.subtract(self._dropped)
        moved = 0
        for key in keys.values():
            if found[key] > 0:
                found[key] -= 1
                moved += 1
        return moved
