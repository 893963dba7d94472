"""The query language and CJK text on both engines: one corpus indexed into SQLite (Library) and PostgreSQL
(SharedLibrary), every syntax form asked of both, the same hits and the same BM25 asserted (decision 0133)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pg_server import made_at_schema
from searchapp.library import Library
from searchapp.library.shared import SharedLibrary
from shared_engines import both_engines, lexical_rows

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

CJK = {
    "beijing.txt": "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "weather_zh.txt": "今天的天气很好，我们去公园散步吧。天气预报说明天也是好天气。",
    "ml_zh.md": "机器学习是人工智能的一个分支，研究计算机如何从数据中学习。",
    "tokyo.txt": "東京は日本の首都であり、世界有数の大都市です。Tokyo hosts the orthodontist congress.",
    "weather_ja.txt": "明日の天気は雨の予報なので、傘を持って出かけてください。",
    "sushi.txt": "寿司は日本の伝統的な料理の一つで、酢飯と魚を使います。",
    "seoul.txt": "서울은 대한민국의 수도입니다. 날씨가 좋습니다.",
}
LATIN = {
    "starter-notes.txt": "Notes on the starter: keep the sourdough warm. The starter, not the sourdough, needs flour.",
    "mail.txt": "Send an e-mail to the baker about rye flour; the email bounced twice.",
    "scheduler-notes.md": "The scheduling of bakers at dawn is a puzzle; schedules change weekly.",
    # Names that fold beyond ASCII case (name: reads them in Python) and one in capitals
    "Straße-Quern.TXT": "A quern stone found on the old street.",
    "\ufb01eld-Quern.txt": "A field quern of basalt.",
    "QUERN-log.txt": "The quern log of the mill.",
    # Mail for from:, to:, cc: and subject: (the shared library reads the messages' heads in Python, pg_scope)
    "letters.mbox": "From alice@example.org Tue Jan  2 10:00:00 2018\nFrom: Alice Nguyen <alice@example.org>\n"
                    "To: bob@example.org\nSubject: Gazebo paint\n\nThe gazebo needs green paint.\n\n"
                    "From bob@example.org Tue Jan  2 11:00:00 2018\nFrom: Bob Martinez <bob@example.org>\n"
                    "To: alice@example.org\nCc: Carol Müller <carol@example.org>\nSubject: Re: Gazebo paint\n\n"
                    "> From: Carol\nGreen it is.\n",
}

# Every syntax form: phrases, -exclusions, OR, word*, fields, CJK runs and pairs, and mixtures of them.
SYNTAX = [
    '"sourdough starter"', '"starter sourdough"', "sourdough -oven", 'sourdough -"dutch oven"', "flour -e-mail",
    "castle OR volcano", '"deep moat" OR lava', "photosynth*", "sched* bakers", "kubern* OR erupt*", "e-mail",
    '"e-ma*"', "rye_flo*", "flour_ry*", "rye -sched*", "type:pdf energy", "in:office castles", "name:bread sourdough", "name:*.md",
    "after:2000 magma", "before:2000 magma", "page:2 energy", "type:txt", "starter -sourdough",
    "天气", '"天气很好"', "人工智能", "中华人民共和国", "首都 -東京", "寿司 OR 東京", "魚", "明日の天気", "都也", '"都也"',
    "首都 orthodontist", "天* 首都", "날씨", '"대한민국의 수도"', "-天气 首都", "type:md 学习",
    "name:strasse* quern", "name:FIELD* quern", "name:*quern.txt quern", "name:quern* quern", "name:*-?uern* quern",
    "from:alice", "from:carol", "to:carol", "cc:carol", "cc:bob", "to:bob gazebo", 'subject:"gazebo paint" -green',
]
# User input through every form, run as parameters: the same (empty or not) answer on both engines, no harm.
HOSTILE = ["\"'; DROP TABLE files; --\"", "-\"x' OR 1=1 --\" sourdough", "name:'%_?*[ sourdough", 'in:"/x\'; DROP"',
           "%s* OR $1 sourdough", "drop* -\"%(x)s\" flour", "\"$$; SELECT 1; $$\" OR 北京", "-\\x00 天气",
           "page:1 \"?\" OR ? bread", "name:[^a]* magma", "x'* OR \"--\" lava"]


@pytest.fixture(scope="module")
def engines(tmp_path_factory, tiny_encoder, pg_server):
    """(SQLite library, shared library) over the same folder, each synced once for the module, no reranker."""
    import corpus

    base = tmp_path_factory.mktemp("syntax")
    docs = corpus.make_mixed_corpus(base / "docs")
    for name, text in {**CJK, **LATIN}.items():
        (docs / name).write_text(text, encoding="utf-8")
    for i, path in enumerate(sorted(p for p in docs.rglob("*") if p.is_file())):  # distinct dates: one newest order
        os.utime(path, ns=(1_600_000_000_000_000_000 + i * 10**9,) * 2)
    with both_engines(base, docs, tiny_encoder, pg_server) as engines:
        yield engines


def names(lib, query: str, **kw) -> list[str]:
    return [Path(h.path).name for h in lib.search(query, k=20, **kw).hits]


@pytest.mark.parametrize("group", ["file", "passage"])
def test_every_syntax_form_the_same_bm25(engines, group):
    """Lexical: the same passages in the same order with the very same BM25 doubles, notes and reading."""
    lite, shared = engines
    for q in SYNTAX:
        a = lite.search(q, mode="lexical", group=group, k=20)
        b = shared.search(q, mode="lexical", group=group, k=20)
        assert lexical_rows(a) == lexical_rows(b), q
        assert (a.warnings, a.reading, [n.kind for n in a.notices]) == (b.warnings, b.reading,
                                                                          [n.kind for n in b.notices]), q


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_every_syntax_form_the_same_files_by_meaning(engines, mode):
    """Dense and hybrid inside the constraints' scope: the same files in the same order, scores to float32."""
    lite, shared = engines
    for q in SYNTAX:
        a, b = lite.search(q, mode=mode, k=10), shared.search(q, mode=mode, k=10)
        assert [Path(h.path).name for h in a.hits] == [Path(h.path).name for h in b.hits], (q, mode)
        assert [h.score for h in b.hits] == pytest.approx([h.score for h in a.hits], abs=1e-5)


def test_what_each_form_finds(engines):
    """The forms mean what they say on the shared library (so the equality above is not two empty lists)."""
    lite, shared = engines
    lex = {"mode": "lexical"}
    assert names(shared, '"sourdough starter"', **lex) == ["bread.txt"]  # the notes hold both words, not in a row
    assert names(shared, '"starter sourdough"', **lex) == []
    assert "bread.txt" not in names(shared, "sourdough -oven", **lex) and names(shared, "sourdough -oven", **lex)
    assert set(names(shared, "castle OR volcano", **lex)) == {"castles.docx", "volcano.html"}
    assert names(shared, "photosynth*", **lex) == ["biology.pdf"]  # stemmed "photosynthesi", found by its prefix
    assert names(shared, "sched* bakers", **lex)[0] == "scheduler-notes.md"
    assert "scheduler-notes.md" not in names(shared, "rye -sched*", **lex) and "mail.txt" in names(shared, "rye", **lex)
    assert names(shared, "rye_flo*", **lex) == ["mail.txt"] and names(shared, "flour_ry*", **lex) == []
    assert names(shared, "flour -e-mail", **lex)  # a word of two index words, excluded as a phrase
    assert "mail.txt" not in names(shared, "flour -e-mail", **lex)
    assert set(names(shared, "name:*.md", **lex)) == {"scheduler-notes.md", "ml_zh.md", "cluster.md"}
    assert names(shared, "page:2 energy", **lex) == ["biology.pdf"]
    assert len(names(shared, "type:txt", **lex)) >= 8  # only a field: the matching files, newest first
    office = str(Path(shared.roots()[0]) / "office")
    for q in (f'in:"{office}" castles', f'in:"{office}"', f'in:"{office}" -moat'):
        assert lexical_rows(lite.search(q, mode="lexical")) == lexical_rows(shared.search(q, mode="lexical")), q
    assert names(shared, f'in:"{office}" castles', **lex) == ["castles.docx"]
    assert names(shared, "to:carol", **lex) == names(shared, "cc:carol", **lex) == ["2: Re: Gazebo paint"]
    assert names(shared, "from:carol", **lex) == [] and names(shared, "cc:bob", **lex) == []  # a quote is no header


def test_cjk_by_character_pairs(engines):
    """Chinese, Japanese and Korean text is found by its character pairs on the shared library as on the desktop,
    a run as a phrase only where its characters stand in a row."""
    _, shared = engines
    lex = {"mode": "lexical"}
    assert names(shared, "天气", **lex)[0] == "weather_zh.txt"
    assert names(shared, "人工智能", **lex) == ["ml_zh.md"]
    assert names(shared, "中华人民共和国", **lex)[0] == "beijing.txt"
    assert set(names(shared, "首都", **lex)[:2]) == {"beijing.txt", "tokyo.txt"}
    assert names(shared, "首都 -東京", **lex) == ["beijing.txt"]
    assert "sushi.txt" in names(shared, "魚", **lex)
    assert names(shared, '"都也"', **lex) == []  # 首都，也是: the comma stands between them
    assert names(shared, '"天气很好"', **lex) == ["weather_zh.txt"]
    assert names(shared, "날씨", **lex) == ["seoul.txt"]
    hybrid = {Path(h.path).name: h for h in shared.search("天气", mode="hybrid").hits}
    assert hybrid["weather_zh.txt"].scores.lexical > 0


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_hostile_queries_are_values(engines, mode):
    """SQL through phrases, exclusions, prefixes, OR and fields reaches PostgreSQL as parameters only: the same
    answers as SQLite, and every table still there."""
    lite, shared = engines
    for q in HOSTILE:
        a, b = lite.search(q, mode=mode, k=10), shared.search(q, mode=mode, k=10)
        assert [Path(h.path).name for h in a.hits] == [Path(h.path).name for h in b.hits], q
    totals = shared.summary()
    assert shared.store.rows("SELECT count(*) FROM files")[0][0] == totals.files + totals.members > 0
    assert names(shared, '"sourdough starter"', mode="lexical") == ["bread.txt"]


def test_literal_searches_the_words(engines):
    """--literal is unchanged: quotes and minus signs are words (and the same BM25 on both engines)."""
    lite, shared = engines
    for q in ('"starter sourdough"', "sourdough -oven", "photosynth*"):
        a = lite.search(q, mode="lexical", k=10, literal=True)
        b = shared.search(q, mode="lexical", k=10, literal=True)
        assert lexical_rows(a) == lexical_rows(b) and b.reading == "literal", q
    assert "bread.txt" in names(shared, "sourdough -oven", mode="lexical", literal=True)


def test_a_library_before_the_character_postings_gets_them_from_its_first_writer(make_config, tiny_encoder,
                                                                                 tmp_path, pg_address, caplog):
    """Schema 5 (no character postings): a reader finds no CJK pair and fails on nothing; the first writer makes
    the postings and totals of the passages already there, and the scores are the desktop's."""
    from searchapp.store.postgres.pg_store import MIGRATING_TO_6
    from searchapp.store.postgres.schema import SCHEMA_VERSION

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("beijing.txt", "tokyo.txt", "weather_zh.txt"):
        (docs / name).write_text(CJK[name], encoding="utf-8")
    (docs / "plain.txt").write_text("No CJK text here at all.", encoding="utf-8")
    config = make_config(models={"reranker": ""})
    caplog.set_level("WARNING")
    with Library(config, encoder=tiny_encoder) as lite, \
            SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        assert MIGRATING_TO_6 not in caplog.messages  # a new library is made at once: no other desktop waits
        lite.add_folder(docs), lib.add_folder(docs)
        desktop = lexical_rows(lite.search("首都 天气", mode="lexical"))
        assert lexical_rows(lib.search("首都 天气", mode="lexical")) == desktop and len(desktop) == 3
        totals = lib.store.cjk_totals()
        lib.store.rows("DROP TABLE cjk_postings")
        lib.store.rows("ALTER TABLE chunks DROP COLUMN n_cjk")
        lib.store.rows("ALTER TABLE chunk_totals DROP COLUMN n_cjk_rows, DROP COLUMN n_cjk_tokens")
        made_at_schema(lib.store, 5)
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as reader:
        assert reader.store.schema_version == 5
        assert names(reader, "首都 天气", mode="lexical") == []  # whole-run words only: no pair matches yet
        assert names(reader, '"首都" -天气', mode="lexical") == []
    caplog.clear()
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as writer:
        # the migrating writer says first that it holds the other desktops' searches (decision 0133)
        assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [MIGRATING_TO_6]
        assert writer.store.schema_version == SCHEMA_VERSION
        assert writer.store.cjk_totals() == totals and totals[0] == 3
        assert lexical_rows(writer.search("首都 天气", mode="lexical")) == desktop
        writer.remove_folder(docs, undoable=True)  # Remove keeps the character postings for Undo (decision 0135)
        assert writer.store.cjk_totals() == (0, 0) and names(writer, "首都", mode="lexical") == []
        writer.undo_remove()
        assert writer.store.cjk_totals() == totals
        assert lexical_rows(writer.search("首都 天气", mode="lexical")) == desktop


def test_a_prefix_reads_the_primary_key_as_a_range(engines, monkeypatch):
    """`word*` is a range of the postings' btree (terms in the "C" collation), in the ranking and in the
    constraint: every statement a prefix search sends that tests a term range is planned as an index condition
    on the primary key (a prefix test the btree cannot serve is planned as a filter over every row)."""
    _, shared = engines
    store = shared.store
    assert store.rows("SELECT table_name, collation_name FROM information_schema.columns WHERE column_name = 'term' "
                      "AND table_name IN ('postings', 'cjk_postings') ORDER BY 1") == [("cjk_postings", "C"),
                                                                                        ("postings", "C")]
    sent: list[tuple[str, tuple]] = []
    rows = store.rows

    def recording(sql, params=(), **kw):
        sent.append((sql, tuple(params)))
        return rows(sql, params, **kw)

    monkeypatch.setattr(store, "rows", recording)
    assert names(shared, "sched* bakers", mode="lexical")[0] == "scheduler-notes.md"
    monkeypatch.setattr(store, "rows", rows)
    ranged = [(sql, params) for sql, params in sent if "term >= %s" in sql]
    assert len(ranged) == 2  # the constraint's fragment and the ranking's postings
    for sql, params in ranged:
        with store.atomic():
            store.rows("SET LOCAL enable_seqscan = off")
            plan = "\n".join(r[0] for r in store.rows("EXPLAIN " + sql, params))
        assert "postings_pkey" in plan and "Index Cond: ((term >= " in plan, plan


def test_a_phrases_candidates_are_read_by_pages(engines, monkeypatch):
    """A phrase's candidate passages are read and checked a page at a time: with a page of one passage the same
    hits, never more than a page held, and more than one page read."""
    from searchapp.store.postgres import pg_scope

    _, shared = engines
    phrases = ['"sourdough starter"', '"starter sourdough"', '"deep moat" OR lava', '"e-ma*"', '"天气很好"',
               "中华人民共和国", "明日の天気", 'sourdough -"dutch oven"']
    want = {q: lexical_rows(shared.search(q, mode="lexical", k=20)) for q in phrases}
    assert any(want.values())
    pages: list[int] = []
    rows = shared.store.rows

    def spy(sql, params=(), **kw):
        out = rows(sql, params, **kw)
        if "ORDER BY c.id LIMIT" in sql:
            pages.append(len(out))
        return out

    monkeypatch.setattr(pg_scope, "PHRASE_PAGE", 1)
    monkeypatch.setattr(shared.store, "rows", spy)
    read = {}
    for q in phrases:
        pages.clear()
        assert lexical_rows(shared.search(q, mode="lexical", k=20)) == want[q], q
        read[q] = list(pages)
    assert max(n for p in read.values() for n in p) == 1
    assert read['"sourdough starter"'].count(1) >= 2  # the notes and the bread: two pages of one


def test_a_prefixs_scores_read_the_terms_by_the_scopes_own_test(engines, monkeypatch):
    """word* is one range test (pg_scope.term_test) for both the constraints and BM25's postings, so the two can
    not read different terms: the scores' read asks it, and finds what the prefix finds."""
    from searchapp.store.postgres import pg_scope

    _, shared = engines
    asked = []
    real = pg_scope.term_test

    def spy(term, prefix, ranged=True):
        asked.append((term, prefix, ranged))
        return real(term, prefix, ranged)

    monkeypatch.setattr(pg_scope, "term_test", spy)
    ids, _, _ = shared.store._postings(("photosynth",), True)
    assert asked == [("photosynth", True, True)]
    want = shared.store.rows("SELECT DISTINCT chunk_id FROM postings WHERE starts_with(term, %s) ORDER BY 1",
                             ("photosynth",))
    assert ids.tolist() == [r[0] for r in want] and want


def test_name_reads_only_the_paths_that_can_match(engines, monkeypatch):
    """`name:` asks the server only for the paths that can match (scope.name_prefilter: a glob's ASCII literal
    in any case, or a path with any other character, which Python folds) and finds what the desktop finds."""
    lite, shared = engines
    store = shared.store
    every = [p for (p,) in store.rows("SELECT path FROM files WHERE status = 'indexed'")]
    read: list[str] = []
    rows = type(store).rows

    def spy(self, sql, params=(), **kw):
        got = rows(self, sql, params, **kw)
        if sql.startswith("SELECT id, path FROM files"):
            read.extend(p for _, p in got)
        return got

    monkeypatch.setattr(type(store), "rows", spy)
    lex = {"mode": "lexical"}
    for q, want in (("name:quern* quern", {"QUERN-log.txt"}), ("name:strasse* quern", {"Straße-Quern.TXT"}),
                    ("name:FIELD* quern", {"\ufb01eld-Quern.txt"})):
        read.clear()
        assert set(names(shared, q, **lex)) == want == set(names(lite, q, **lex)), q
        literal = q.split()[0][len("name:"):].strip("*").lower()
        assert sorted(read) == sorted(p for p in every if not p.isascii() or literal in p.lower()), q
        assert len(read) < len(every)


def test_a_removal_kept_before_the_character_postings_comes_back_with_them(make_config, tiny_encoder, tmp_path,
                                                                          pg_address):
    """A folder removed at schema 5 (kept for Undo, without character postings: there were none), then the
    library migrated by its first writer: Undo puts the folder back with its character postings, and a CJK
    search scores as the desktop's (the migration fills the kept copy too)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("beijing.txt", "tokyo.txt", "weather_zh.txt"):
        (docs / name).write_text(CJK[name], encoding="utf-8")
    config = make_config(models={"reranker": ""})
    with Library(config, encoder=tiny_encoder) as lite, \
            SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as lib:
        lite.add_folder(docs), lib.add_folder(docs)
        desktop = lexical_rows(lite.search("首都 天气", mode="lexical"))
        assert len(desktop) == 3
        lib.remove_folder(docs, undoable=True)
        for statement in ("DROP TABLE cjk_postings", "DELETE FROM removed_cjk_postings",
                          "ALTER TABLE chunks DROP COLUMN n_cjk", "ALTER TABLE removed_chunks DROP COLUMN n_cjk",
                          "ALTER TABLE chunk_totals DROP COLUMN n_cjk_rows, DROP COLUMN n_cjk_tokens",
                          ):
            lib.store.rows(statement)
        made_at_schema(lib.store, 5)
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as writer:
        writer.undo_remove()
        assert lexical_rows(writer.search("首都 天气", mode="lexical")) == desktop
