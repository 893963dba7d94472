"""The passages one entry holds, as a sync compares them with a new reading of the same bytes (decision 0152):
when a newer reader gives the very same passages, the entry keeps them (and their places in the vector index)
and only its row learns the reader's version. Plain SQL over `store.conn`, so both engines answer it."""

from __future__ import annotations

from typing import Optional, Sequence

from .db import Store
from .rows import NewChunk

__all__ = ["Layout", "stored_layout", "layout_of"]

# (ordinal, start, end, page, model input's hash, the (start, end, page) of its repeats), one a stored passage
Layout = list[tuple[int, int, int, Optional[int], str, tuple[tuple[int, int, Optional[int]], ...]]]


def stored_layout(store: Store, file_id: int) -> Layout:
    """The entry's passages in order, each with the other places its text occurs in the file."""
    rows = list(store.conn.execute('SELECT id, ordinal, start, "end", page, text_hash FROM chunks WHERE file_id = ? '
                                   "ORDER BY ordinal", (file_id,)))
    repeats = store.chunk_repeats([r[0] for r in rows]) if rows else {}
    return [(int(o), int(a), int(b), None if p is None else int(p), str(h),
             tuple((int(x), int(y), None if z is None else int(z)) for x, y, z in repeats.get(cid, ())))
            for cid, o, a, b, p, h in rows]


def layout_of(chunks: Sequence[NewChunk]) -> Layout:
    """The same for passages about to be written (batches.distinct_chunks)."""
    return [(c.ordinal, c.start, c.end, c.page, c.text_hash, tuple(c.repeats)) for c in chunks]
