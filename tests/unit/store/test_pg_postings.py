"""The words' postings of a batch as the shared library writes them (decision 0136): FTS5's counts, in the primary
key's order (term byte for byte, then passage), as COPY text lines with the passages' ids and lengths."""

from __future__ import annotations

import sqlite3

from searchapp.store.postgres.pg_postings import copy_text
from searchapp.store.postgres import tokens
from searchapp.store.postgres.tokens import SPEC, passage_postings

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


def test_copy_text_lines_carry_ids_and_lengths_and_escape_a_term():
    rows = [("a\tb", 0, 1), ("a\tb", 1, 2), ("back\\slash", 1, 1), ("x", 0, 3)]
    assert copy_text(rows, [10, 42], [4, 3]) == ("a\\tb\t10\t1\t4\n" "a\\tb\t42\t2\t3\n" "back\\\\slash\t42\t1\t3\n"
                                                 "x\t10\t3\t4\n")
    assert copy_text([], [], []) == ""
