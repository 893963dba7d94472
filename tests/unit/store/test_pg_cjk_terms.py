"""The shared library's character postings and prefix ranges, without a server (decision 0133): the terms are the
desktop's character table read by FTS5 itself, a prefix's range holds exactly the terms that start with it, and
SQLite's GLOB is matched as SQLite matches it."""

from __future__ import annotations

import sqlite3
from collections import Counter

import pytest

from searchapp.store.bm25_postings import TOKENIZERS
from searchapp.store.cjk import cjk_chars
from searchapp.store.postgres.pg_scope import glob_pattern, prefix_range
from searchapp.store.postgres.tokens import cjk_key, cjk_passage_terms

TRICKY = ["今天的天气很好，我们去公园散步吧。天气预报说明天也是好天气。", "アー・イ ｶﾞｷﾞ゙か゚ 〜", "서울은 대한민국의 수도입니다",
          "東京 Tokyo 2026 の首都、 北京", "No CJK here", "・・・", "𠀀𠀁 丽 ﹅ ㇰ", ""]


def reference(text: str) -> tuple[Counter[str], int] | None:
    """The desktop's chunks_cjk row for `text`, tokenized by FTS5 as a whole: each token and each pair of tokens
    at adjacent positions (pairs with the run break excluded)."""
    chars = cjk_chars(text)
    if not chars:
        return None
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE k USING fts5(x, tokenize='{TOKENIZERS['chunks_cjk']}')")
    db.execute("CREATE VIRTUAL TABLE kv USING fts5vocab(k, instance)")
    db.execute("INSERT INTO k(rowid, x) VALUES (1, ?)", (chars,))
    seq = [t for t, in db.execute("SELECT term FROM kv ORDER BY offset")]
    counts = Counter(t for t in seq if t != "0")
    counts.update(f"{a} {b}" for a, b in zip(seq, seq[1:], strict=False) if "0" not in (a, b))
    return counts, len(seq)


@pytest.mark.parametrize("text", TRICKY)
def test_character_postings_are_the_desktop_tables_tokens(text):
    assert cjk_passage_terms([text]) == [reference(text)]


def test_a_query_pair_is_a_stored_term():
    counts, _ = cjk_passage_terms(["今天的天气很好"])[0]
    assert cjk_key("天气") in counts and cjk_key("天") in counts and cjk_key("好天") not in counts
    assert cjk_key("・") is None  # no token: matches nothing


@pytest.mark.parametrize("prefix", ["run", "ab\U0010ffff", "z\ud7ff", "\U0010ffff", "天"])
def test_a_prefix_range_holds_exactly_its_terms(prefix):
    low, high = prefix_range(prefix)
    terms = [prefix, prefix + "a", prefix + "\U0010ffff", prefix[:-1], prefix[:-1] + "\U0010ffff",
             prefix[:-1] + chr(min(ord(prefix[-1]) + 1, 0x10FFFF)), "", "zzz", "\U0010ffff" * 3]
    for term in (t for t in terms if not any(0xD800 <= ord(c) < 0xE000 for c in t)):  # UTF-8 text has no surrogate
        within = low <= term and (high is None or term < high)  # code point order: the "C" collation's
        assert within == term.startswith(prefix), (prefix, term)


@pytest.mark.parametrize("glob, name, hit", [("*.md", "notes.md", True), ("*.md", "notes.mdx", False),
                                             ("n?tes*", "notes.md", True), ("[^a]*", "bread.txt", True),
                                             ("[^a]*", "apple.txt", False), ("[a-c]*", "bread.txt", True),
                                             ("*[*", "a[b", False), ("*[b", "a[b", False), ("*%_*", "100%_done", True),
                                             ("*'*", "o'neil.txt", True), ("[]]*", "]x", True),
                                             # a reversed range is empty, its first end a member (review finding)
                                             ("[z-a]*", "zebra", True), ("[z-a]*", "apple", False),
                                             ("[z-a]*", "-x", False), ("[a-c-e]*", "-x", True),
                                             ("[a-c-e]*", "d", False), ("[a-c-e]*", "e", True),
                                             ("[-a]*", "-x", True), ("[a-]*", "-x", True), ("[]-a]*", "-", True),
                                             ("[]-a]*", "b", False), ("[^z-a]*", "zebra", False)])
def test_glob_as_sqlite_reads_it(glob, name, hit):
    got = bool(sqlite3.connect(":memory:").execute("SELECT ? GLOB ?", (name, glob)).fetchone()[0])
    assert got == hit and bool(glob_pattern(glob).fullmatch(name)) == hit
