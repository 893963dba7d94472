"""Phase 1's reading in this process, a group of files at a time, where no read-ahead worker runs (read_ahead.py:
too few files, one core, or a second core another program keeps busy).

Chunking a small file costs far more in per-call steps than in the tokenizer's own work: measured on SciFact's
10,000 abstracts (2-core AVX2 EPYC), the word pieces of each file put together alone cost more than the passages
cut from them. A group's files are read and extracted one by one (the very code the worker runs,
read_ahead_worker.read_files), their word pieces are then put together in one pass for the whole group, and
each file is chunked from its part: the same passages, for a fraction of the steps. The sync still writes every
file in order, and a file this cannot read (gone, unreadable, a cancel) is handed back as None: the sync reads it
itself with its own error handling, as it does without groups.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from .read_ahead_worker import Read, read_files

if TYPE_CHECKING:
    from ...base.config import Config
    from ...base.progress import CancelToken
    from ...ingest.passages import PassageTokenizer

__all__ = ["ReadInGroups", "GROUP_FILES", "GROUP_BYTES", "MIN_GROUPED"]

GROUP_FILES = 64  # files per group: a words batch's worth (words_pass.BATCH_FILES)
GROUP_BYTES = 8 * 2**20  # at most this much on disk per group (one larger file forms a group of its own)
MIN_GROUPED = 8  # files to read below which a sync reads them one by one, as before


class ReadInGroups:
    """`get(i)`: the i-th file's Read, made with the group it falls in; None where the sync must read it itself.
    The same interface as read_ahead.ReadAhead, in this process. `began(i)`: told as the i-th file's extraction
    begins, so the sync's progress names the file being read (a group of 55 PDFs stood 14 s on "1/55", naming
    the first)."""

    alive = True

    def __init__(self, paths: Sequence[str], old_shas: Sequence[Optional[str]], sizes: Sequence[int], config: Config,
                 encoder: PassageTokenizer, cancel: Optional[CancelToken] = None,
                 began: Optional[Callable[[int], None]] = None) -> None:
        self.paths, self.old_shas, self.sizes = list(paths), list(old_shas), list(sizes)
        self.config, self.encoder, self.cancel, self.began = config, encoder, cancel, began
        self._got: dict[int, Optional[Read]] = {}
        self._next = 0  # the first file not read yet
        self.groups = 0

    def _group_end(self, lo: int) -> int:
        hi, total = lo, 0
        while hi < len(self.paths) and hi - lo < GROUP_FILES and (hi == lo or total + self.sizes[hi] <= GROUP_BYTES):
            total += self.sizes[hi]
            hi += 1
        return hi

    def get(self, i: int) -> Optional[Read]:
        if i not in self._got and i >= self._next:
            lo = max(i, self._next)
            hi = self._group_end(lo)
            clocks = None if self.began is None else [partial(self._began, k) for k in range(lo, hi)]
            self._got = dict(zip(range(lo, hi), read_files(self.paths[lo:hi], self.old_shas[lo:hi], self.config,
                                                             self.encoder, self.cancel, clocks), strict=True))
            self._next = hi
            self.groups += 1
        return self._got.pop(i, None)

    def _began(self, i: int, running: bool) -> None:
        if running and self.began is not None:
            self.began(i)

    def ready(self, i: int) -> bool:
        """Whether the i-th file's Read is in hand (read with its group): a stop keeps it (words_pass.py)."""
        return self._got.get(i) is not None

    def close(self) -> None:
        self._got.clear()
