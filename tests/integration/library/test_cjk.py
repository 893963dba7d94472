"""Chinese and Japanese text is found by lexical search (FTS5's unicode61 does not split CJK words)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from searchapp.library import Library
from searchapp.store import NewChunk, Store
from searchapp.store.cjk import cjk_chars, cjk_query
from searchapp.store.migrations import MIGRATIONS

DOCS = {
    "beijing.txt": "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "weather_zh.txt": "今天的天气很好，我们去公园散步吧。",
    "ml_zh.md": "机器学习是人工智能的一个分支，研究计算机如何从数据中学习。",
    "tokyo.txt": "東京は日本の首都であり、世界有数の大都市です。",
    "weather_ja.txt": "明日の天気は雨の予報なので、傘を持って出かけてください。",
    "sushi.txt": "寿司は日本の伝統的な料理の一つで、酢飯と魚を使います。",
    "english.txt": "The orthodontist consultation is on Tuesday morning.",
}


@pytest.fixture
def library(make_config, tiny_encoder, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    lib = Library(make_config(models={"reranker": ""}), encoder=tiny_encoder)
    lib.add_folder(docs)
    yield lib
    lib.close()


def top(lib: Library, query: str) -> list[str]:
    return [Path(h.path).name for h in lib.search(query, mode="lexical").hits]


@pytest.mark.parametrize("query, expected", [
    ("天气", "weather_zh.txt"),  # a two-character Chinese word inside a clause
    ("人工智能", "ml_zh.md"),
    ("机器学习", "ml_zh.md"),
    ("中华人民共和国", "beijing.txt"),
    ("寿司", "sushi.txt"),  # Japanese
    ("天気 予報", "weather_ja.txt"),
    ("明日の天気", "weather_ja.txt"),
    ("伝統的な料理", "sushi.txt"),
])
def test_cjk_words_are_found(library, query, expected):
    assert top(library, query)[0] == expected


def test_single_character_and_no_match_across_punctuation(library):
    assert "sushi.txt" in top(library, "魚")
    assert "beijing.txt" not in top(library, "都也")  # 首都，也是: the comma separates them


def test_shared_word_finds_both_languages_and_latin_still_works(library):
    assert set(top(library, "首都")[:2]) == {"beijing.txt", "tokyo.txt"}
    assert top(library, "orthodontist consultation") == ["english.txt"]
    assert top(library, "東京 orthodontist")[:2] in (["tokyo.txt", "english.txt"], ["english.txt", "tokyo.txt"])


def test_hybrid_mode_gives_cjk_hits_a_lexical_score(library):
    hits = library.search("天气", mode="hybrid").hits
    by_name = {Path(h.path).name: h for h in hits}
    assert by_name["weather_zh.txt"].scores.lexical > 0


def test_removed_passages_leave_the_cjk_table(library, tmp_path):
    (tmp_path / "docs" / "sushi.txt").unlink()
    library.sync()
    assert "sushi.txt" not in top(library, "寿司")
    n = library.store.conn.execute("SELECT count(*) FROM chunks_cjk").fetchone()[0]
    assert n == len(DOCS) - 2  # six CJK files left, the English one has no CJK row


def test_chars_and_query():
    assert cjk_chars("abc 天气好 x 猫") == "天 气 好 0 猫"
    assert cjk_chars("plain English") == ""
    assert cjk_query("猫") == '"猫"'
    assert cjk_query("天气好") == '"天 气" OR "气 好"'
    assert cjk_query("no cjk here") is None


def test_migration_indexes_cjk_passages_written_before_it(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(f"BEGIN;\n{MIGRATIONS[0]}\nPRAGMA user_version = 1;\nCOMMIT;")
    conn.execute("INSERT INTO roots(path, added_at) VALUES ('/r', 0)")
    conn.execute("INSERT INTO files(root_id, path, size, mtime_ns, status) VALUES (1, '/r/a.txt', 1, 1, 'indexed')")
    conn.execute('INSERT INTO chunks(file_id, ordinal, start, "end", text, text_hash, vector) VALUES (1, 0, 0, 9, ?, ?, ?)',
                 ("今天的天气很好", "h", np.zeros(4, np.float32).tobytes()))
    conn.commit()
    conn.close()
    store = Store(path)
    try:
        assert store.search_lexical("天气", 5)[0][0] == 1
        store.insert_chunks(1, [NewChunk(1, 0, 4, None, "机器学习", "h2", np.zeros(4, np.float32))])
        assert [cid for cid, _ in store.search_lexical("学习", 5)] == [2]
    finally:
        store.close()
