"""The words' postings of a batch as the shared library writes them (decision 0136): FTS5's counts, in the primary
key's order (term byte for byte, then passage), as COPY binary rows with the passages' ids and lengths."""

from __future__ import annotations

import sqlite3
import struct

import numpy as np

from searchapp.store.postgres import tokens
from searchapp.store.postgres.pg_postings import SIGNATURE, TRAILER, write_postings
from searchapp.store.postgres.tokens import SPEC, Postings


def passage_postings(texts):
    """tokens.passage_postings as plain values: (lengths, (term, text, how often) rows)."""
    got = tokens.passage_postings(texts)
    return got.lengths.tolist(), got.rows()

TEXTS = ["The cat and the hat", "", "Zebras; éclair Éclair eclair", "zoo Ärger cat cats running",
         # pieces between ASCII separators that FTS5 splits again, or keeps whole: what passage_postings counts
         "foo_bar naïve—café x86_64 3.14 O'Neil e-mail", "天气很好，今天去公园 ｆｕｌｌ　width", "a\u00a0b c\u2003d e\u200bf",
         "cafe\u0301 \U0001F600smile \ue000pua ﬁnance Straße İstanbul", "«quoted» ‘single’ …and… ·dot· ¿qué?"]


def test_postings_are_fts5s_counts_in_the_primary_keys_order():
    lengths, rows = passage_postings(TEXTS)
    assert lengths[:4] == [5, 0, 4, 5]
    assert ("the", 0, 2) in rows and ("eclair", 2, 3) in rows  # diacritics removed, as the desktop's table does
    assert ("cat", 3, 2) in rows  # porter: cat and cats
    assert [(t.encode(), d) for t, d, _ in rows] == sorted((t.encode(), d) for t, d, _ in rows)
    assert len({(t, d) for t, d, _ in rows}) == len(rows)
    assert sum(n for _, _, n in rows) == sum(lengths)
    # the same terms and lengths as an FTS5 table of the desktop's tokenizer reads of each text alone
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{SPEC}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
    for i, text in enumerate(TEXTS):
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(x) VALUES (?)", (text,))
        assert dict(db.execute("SELECT term, cnt FROM v")) == {t: n for t, d, n in rows if d == i}, text
        assert sum(n for _, n in db.execute("SELECT term, cnt FROM v")) == lengths[i]


def test_pieces_forgotten_when_full_give_the_same_postings(monkeypatch):
    """The pieces remembered across batches are forgotten all at once when full: the next batch's postings are
    the same as with every piece remembered."""
    want = passage_postings(TEXTS)
    monkeypatch.setattr(tokens, "_PIECES", tokens._Pieces())
    monkeypatch.setattr(tokens._Pieces, "KEPT", 6)
    assert passage_postings(["other words entirely"]) == ([3], [("entir", 0, 1), ("other", 0, 1), ("word", 0, 1)])
    assert passage_postings(TEXTS) == want
    pieces = {p for t in TEXTS for p in t.translate(tokens._ASCII_SEPARATORS).split()}
    assert set(tokens._PIECES.id_of) == pieces  # the first batch's were forgotten
    assert passage_postings(["", "  ", "—"]) == ([0, 0, 0], [])  # no term at all


def test_pieces_forgotten_by_their_characters_too(monkeypatch):
    """A CJK sentence between full-width stops is one piece: the memory counts characters as well as pieces."""
    want = passage_postings(TEXTS)
    monkeypatch.setattr(tokens, "_PIECES", tokens._Pieces())
    monkeypatch.setattr(tokens._Pieces, "KEPT_CHARS", 40)
    assert passage_postings(["天气很好今天我们去公园天气很好今天我们去公园天气很好今天我们去公园天气很好今天我们去公园"])[0] == [1]
    assert passage_postings(TEXTS) == want
    assert "天气很好今天我们去公园天气很好今天我们去公园天气很好今天我们去公园天气很好今天我们去公园" not in tokens._PIECES.id_of


def test_the_pieces_rule_holds_for_the_tokenizer_in_use():
    """passage_postings cuts texts at ASCII characters that are not letters or digits: right only while the
    desktop's tokenizer keeps unicode61's default token characters (no tokenchars or separators option)."""
    assert "unicode61" in SPEC and "tokenchars" not in SPEC and "separators" not in SPEC


def _read_binary(data: bytes) -> list[tuple[int, int, int, str]]:
    """COPY binary rows (chunk_id bigint, tf integer, dl integer, term text) read back as PostgreSQL reads them."""
    out, at = [], 0
    while True:
        (fields,) = struct.unpack_from(">h", data, at)
        at += 2
        if fields == -1:
            assert at == len(data)
            return out
        assert fields == 4
        row = []
        for kind in (">q", ">i", ">i", None):
            (size,) = struct.unpack_from(">i", data, at)
            at += 4
            row.append(struct.unpack_from(kind, data, at)[0] if kind else data[at:at + size].decode())
            assert kind is None or struct.calcsize(kind) == size
            at += size
        out.append(tuple(row))


class _Copy:
    def __init__(self, sent: list[bytes]) -> None:
        self.sent = sent

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self, data: bytes) -> None:
        self.sent.append(data)


class _Cursor:
    """Takes what write_postings sends (the real COPY is the conformance suites' on a real server)."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.sent: list[bytes] = []

    def copy(self, statement: str) -> _Copy:
        self.statements.append(statement)
        return _Copy(self.sent)


def test_binary_rows_carry_ids_lengths_and_any_term_as_it_is(monkeypatch):
    p = Postings(np.array([4, 3]), ["a\tb", "back\\slash", "x", "été😀"],
                 np.array([0, 0, 1, 2, 3]), np.array([0, 1, 1, 0, 1]), np.array([1, 2, 1, 3, 7]))
    ids = [10, 2**40 + 42]
    want = [(10, 1, 4, "a\tb"), (2**40 + 42, 2, 3, "a\tb"), (2**40 + 42, 1, 3, "back\\slash"), (10, 3, 4, "x"),
            (2**40 + 42, 7, 3, "été😀")]
    cur = _Cursor()
    monkeypatch.setattr("searchapp.store.postgres.pg_postings.SLICE", 2)  # three COPY messages
    write_postings(cur, ids, p)
    assert cur.statements == ["COPY postings (chunk_id, tf, dl, term) FROM STDIN (FORMAT BINARY)"]
    assert cur.sent[0] == SIGNATURE and cur.sent[-1] == TRAILER and len(cur.sent) == 5
    assert SIGNATURE == b"PGCOPY\n\xff\r\n\x00" + bytes(8)
    assert _read_binary(b"".join(cur.sent[1:])) == want
    empty = _Cursor()
    write_postings(empty, [], Postings(np.array([0]), [], *(np.empty(0, np.int64) for _ in range(3))))
    assert empty.statements == []  # nothing to copy: no COPY at all


def test_binary_rows_of_real_postings_match_their_tuples():
    got = tokens.passage_postings(TEXTS)
    cur = _Cursor()
    write_postings(cur, list(range(100, 100 + len(TEXTS))), got)
    assert cur.sent[0] == SIGNATURE and cur.sent[-1] == TRAILER
    rows = _read_binary(b"".join(cur.sent[1:]))
    assert rows == [(100 + d, n, got.lengths[d], t) for t, d, n in got.rows()]
