"""The words' postings of a batch of passages, written to a shared library with one binary COPY (decisions 0136,
0143).

A passage has ~80 postings rows (one per distinct term), so how they travel is most of the words pass's cost:
they are sent in the primary key's order (term, passage), which makes each btree insert land next to the one
before, and in COPY's binary format assembled by NumPy from tokens.Postings' arrays: no Python object, no
formatted number and no escaping a row (COPY text lines made a row at a time cost as much as the postings
themselves), and the server reads the numbers without parsing them. No foreign key checks them (schema 7): the
passages are written in the same transaction with ids taken from the sequence, and a trigger deletes a
passage's postings with it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .tokens import Postings

__all__ = ["write_postings", "copy_binary", "SIGNATURE", "TRAILER", "SLICE"]

SLICE = 50_000  # rows a COPY message carries: the bytes of a batch are never held whole
SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # the format's signature, then its flags and header extension (none)
TRAILER = b"\xff\xff"  # a field count of -1
# A row's fixed part, packed, big-endian as the format is: its field count, then each field's length and value in
# the COPY's column order (chunk_id, tf, dl, term), the term's length last so its bytes follow.
_HEAD = np.dtype([("fields", ">i2"), ("id_size", ">i4"), ("id", ">i8"), ("tf_size", ">i4"), ("tf", ">i4"),
                  ("dl_size", ">i4"), ("dl", ">i4"), ("term_size", ">i4")])


def write_postings(cur: Any, ids: Sequence[int], postings: Postings) -> None:
    """COPY `postings` of passages `ids` (ascending; the batch's texts in order) through the psycopg cursor `cur`,
    inside the batch's transaction."""
    if not len(postings.doc):
        return
    encoded = [t.encode() for t in postings.terms]
    sizes = np.fromiter(map(len, encoded), np.int64, len(encoded))
    terms = (np.frombuffer(b"".join(encoded), np.uint8), np.cumsum(sizes) - sizes, sizes)
    ids_array = np.asarray(ids, dtype=np.int64)
    with cur.copy("COPY postings (chunk_id, tf, dl, term) FROM STDIN (FORMAT BINARY)") as copy:
        copy.write(SIGNATURE)  # written whole here: psycopg adds neither end to data given as blocks
        for at in range(0, len(postings.doc), SLICE):
            copy.write(copy_binary(postings, ids_array, terms, at, at + SLICE))
        copy.write(TRAILER)


def copy_binary(p: Postings, ids: np.ndarray, terms: tuple[np.ndarray, np.ndarray, np.ndarray], lo: int,
                hi: int) -> bytes:
    """Rows lo:hi of `p` as COPY binary tuples: `ids` are the passages' ids by text, `terms` the batch's terms
    encoded as UTF-8 (their bytes one after the other, each one's start, each one's size)."""
    term, doc = p.term[lo:hi], p.doc[lo:hi]
    blob, starts, sizes = terms
    head = np.empty(len(term), _HEAD)
    head["fields"], head["id_size"], head["tf_size"], head["dl_size"] = 4, 8, 4, 4
    head["id"], head["tf"], head["dl"] = ids[doc], p.tf[lo:hi], p.lengths[doc]
    size = sizes[term]
    head["term_size"] = size
    row_size = _HEAD.itemsize + size
    row_start = np.cumsum(row_size) - row_size
    out = np.empty(int(row_size.sum()), np.uint8)
    out[(row_start[:, None] + np.arange(_HEAD.itemsize)).ravel()] = head.view(np.uint8)
    within = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)  # a byte's place in its term
    out[np.repeat(row_start + _HEAD.itemsize, size) + within] = blob[np.repeat(starts[term], size) + within]
    return out.tobytes()
