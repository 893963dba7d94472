"""The passages entries hold, as a sync compares them with a new reading of the same bytes (decision 0152): when a
newer reader gives the very same passages, the entry keeps them (and their places in the vector index) and only
its row learns the reader's version. Plain SQL over `store.conn`, so both engines answer it, a group of entries a
statement (a shared library's server may be a network's round trip away)."""

from __future__ import annotations

from typing import Optional, Sequence

from .db import Store
from .rows import NewChunk

__all__ = ["Layout", "stored_layouts", "layout_of", "GROUP"]

# (ordinal, start, end, page, model input's hash, the (start, end, page) of its repeats), one a stored passage
Layout = list[tuple[int, int, int, Optional[int], str, tuple[tuple[int, int, Optional[int]], ...]]]
GROUP = 200  # entries a statement


def stored_layouts(store: Store, file_ids: Sequence[int]) -> dict[int, Layout]:
    """Each entry's passages in order, each with the other places its text occurs in the file (an entry without
    passages: an empty list); at most GROUP entries."""
    ids = list(dict.fromkeys(int(i) for i in file_ids))[:GROUP]
    out: dict[int, Layout] = {i: [] for i in ids}
    if not ids:
        return out
    rows = list(store.conn.execute(
        'SELECT id, file_id, ordinal, start, "end", page, text_hash FROM chunks WHERE file_id IN ('  # noqa: S608 (placeholders only)
        + ", ".join("?" * len(ids)) + ") ORDER BY file_id, ordinal", ids))
    repeats = store.chunk_repeats([r[0] for r in rows]) if rows else {}
    for cid, fid, o, a, b, p, h in rows:
        out[int(fid)].append((int(o), int(a), int(b), None if p is None else int(p), str(h),
                              tuple((int(x), int(y), None if z is None else int(z)) for x, y, z in repeats.get(cid, ()))))
    return out


def layout_of(chunks: Sequence[NewChunk]) -> Layout:
    """The same for passages about to be written (batches.distinct_chunks)."""
    return [(c.ordinal, c.start, c.end, c.page, c.text_hash, tuple(c.repeats)) for c in chunks]
