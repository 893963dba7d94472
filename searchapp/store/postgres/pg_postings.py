"""The words' postings of a batch of passages, written to a shared library with one COPY (decision 0136).

A passage has ~80 postings rows (one per distinct term), so how they travel is most of the words pass's cost:
they are sent in the primary key's order (term, passage), which makes each btree insert land next to the one
before, and as COPY's text lines made here (one string per slice) rather than one `write_row` call a row.
No foreign key checks them (schema 7): the passages are written in the same transaction with ids taken from
the sequence, and a trigger deletes a passage's postings with it.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["write_postings", "copy_text", "SLICE"]

SLICE = 50_000  # rows a COPY message carries: the text of a batch is never held whole
_ESCAPE = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def write_postings(cur: Any, ids: Sequence[int], lengths: Sequence[int], rows: Sequence[tuple[str, int, int]]) -> None:
    """COPY the postings of passages `ids` (ascending) through the psycopg cursor `cur`, inside the batch's
    transaction: tokens.passage_postings' `lengths` and `rows` of their texts, in the same order."""
    if rows:
        with cur.copy("COPY postings (term, chunk_id, tf, dl) FROM STDIN") as copy:
            for at in range(0, len(rows), SLICE):
                copy.write(copy_text(rows[at:at + SLICE], ids, lengths))


def copy_text(rows: Sequence[tuple[str, int, int]], ids: Sequence[int], lengths: Sequence[int]) -> str:
    """COPY text lines (term, passage id, tf, length) of passage_postings' rows (term, index, tf). A term is
    escaped once, where it changes: FTS5's terms hold no tab, newline or backslash today, but a tokenizer
    that kept one would otherwise break the stream."""
    out: list[str] = []
    last, shown = None, ""
    for term, doc, tf in rows:
        if term != last:
            last, shown = term, term.translate(_ESCAPE)
        out.append(f"{shown}\t{ids[doc]}\t{tf}\t{lengths[doc]}\n")
    return "".join(out)
