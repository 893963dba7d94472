"""The same library on both engines: one corpus indexed into SQLite (Library) and into PostgreSQL with pgvector
(SharedLibrary), the same searches asked of both, the same answers asserted (issue 44's conformance layer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.library import Library
from searchapp.library.shared import SharedLibrary
from shared_engines import both_engines, lexical_rows

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

QUERIES = ["quinces poached in honey", "sourdough starter yeast", "volcano lava eruption", "cluster nodes scheduling", "the bread of the oven",
           "magma", "flour water salt", "kubernetes"]


@pytest.fixture(scope="module")
def engines(tmp_path_factory, tiny_encoder, pg_server):
    """(SQLite library, shared library) over the same folder, each synced once for the module, no reranker."""
    import corpus

    base = tmp_path_factory.mktemp("engines")
    docs = corpus.make_mixed_corpus(base / "docs")
    for name in ("twin-a.txt", "twin-b.txt"):  # the same words in two files: a BM25 tie, broken by passage id
        (docs / name).write_text(f"Quinces poached in honey ({name[:-4]}).", encoding="utf-8")
    (docs / "bread-copy.txt").write_bytes((docs / "bread.txt").read_bytes())  # an exact copy (duplicates)
    (docs / "office-notes").mkdir()  # a sibling whose name sorts between office/ and office0 in no byte order
    (docs / "office-notes" / "memo.txt").write_text("Castles and jazz: a memo about the office outing.",
                                                     encoding="utf-8")
    with both_engines(base, docs, tiny_encoder, pg_server) as (lite, shared):
        assert shared.store.pending_count() == 0
        yield lite, shared


@pytest.mark.parametrize("group", ["file", "passage"])
def test_lexical_is_the_same_bm25(engines, group):
    """Same files, same order, the very same BM25 doubles (postings read with FTS5's tokenizer and formula)."""
    lite, shared = engines
    for q in QUERIES:
        a = lite.search(q, mode="lexical", group=group, k=10)
        b = shared.search(q, mode="lexical", group=group, k=10)
        assert lexical_rows(a) == lexical_rows(b), q
        assert a.hits, q
    twins = [Path(h.path).name for h in shared.search(QUERIES[0], mode="lexical", group="passage", k=2).hits]
    assert twins == ["twin-a.txt", "twin-b.txt"]


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_dense_and_hybrid_same_top(engines, mode):
    """pgvector's HNSW (cosine) finds what hnswlib finds on a small library: the same files in the same order,
    scores equal to float32 rounding."""
    lite, shared = engines
    for q in QUERIES:
        a = lite.search(q, mode=mode, group="file", k=5)
        b = shared.search(q, mode=mode, group="file", k=5)
        assert [Path(h.path).name for h in a.hits] == [Path(h.path).name for h in b.hits], (q, mode)
        assert [h.score for h in b.hits] == pytest.approx([h.score for h in a.hits], abs=1e-5)


def test_duplicates_the_same(engines):
    """The same exact copies and near duplicates (find_duplicates over pgvector's index, every machine's files)."""
    lite, shared = engines
    a, b = lite.duplicates(), shared.duplicates()

    def names(report):
        return ([[Path(p).name for p in g] for g in report.exact],
                [(Path(p.a).name, Path(p.b).name) for p in report.near])

    assert names(a) == names(b)
    assert names(b)[0] == [["bread-copy.txt", "bread.txt"]] and names(b)[1]
    assert [p.similarity for p in b.near] == pytest.approx([p.similarity for p in a.near], abs=1e-5)


def test_neighbours_by_id_as_search(engines, monkeypatch):
    """`duplicates`' neighbour pass asks pgvector by passage id, a few statements for many passages: each
    passage's row is what a search with its stored vector finds (same ids, same order, ties by id: the twins),
    whatever order the ids come in; an id without a vector gets the padding."""
    import numpy as np

    from searchapp.store.postgres import pg_index

    _, shared = engines
    dim = shared.store.dim()
    index = pg_index.PgVectorIndex(shared.store, dim)
    ids = index.ids()
    got, vecs = shared.store.vectors(ids.tolist(), dim)
    assert got.tolist() == ids.tolist() and len(ids) > 6
    monkeypatch.setattr(pg_index, "NEIGHBOURS_PER_STATEMENT", 4)  # several statements even on a tiny library
    labels, sims = index.neighbours(np.r_[ids[::-1], -5], 5, ef=24)
    want, want_sims = index.search(vecs[::-1], 5, ef=24)
    assert labels[:-1].tolist() == want.tolist()
    assert sims[:-1] == pytest.approx(want_sims, abs=1e-6)
    assert all(c in row for c, row in zip(ids[::-1].tolist(), labels[:-1].tolist(), strict=True))  # itself
    assert labels[-1].tolist() == [-1] * 5 and sims[-1].tolist() == [-2.0] * 5
    assert shared.store._sibling is not None  # the statements were shared with a second connection


def test_a_lane_reads_the_snapshot_of_the_connection_that_shares_it(engines):
    """`neighbours`' second connection reads what the first one reads, not what another desktop committed since
    (PgStore.share_snapshot / use_snapshot: REPEATABLE READ and an exported snapshot)."""
    from searchapp.store.postgres.pg_store import PgStore

    _, shared = engines
    store, other = shared.store, PgStore(shared.store.address)
    try:
        with store.atomic():
            snapshot = store.share_snapshot()
            other.set_meta("lane-probe", "written after the snapshot")
            lane = store.sibling()
            with lane.atomic():
                lane.use_snapshot(snapshot)
                assert lane.one("SELECT value FROM meta WHERE key = 'lane-probe'") is None
                assert store.one("SELECT value FROM meta WHERE key = 'lane-probe'") is None
        assert store.one("SELECT value FROM meta WHERE key = 'lane-probe'") == ("written after the snapshot",)
    finally:
        other.rows("DELETE FROM meta WHERE key = 'lane-probe'")
        other.close()


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_filters_the_same(engines, mode):
    """--type, --in (a folder beside a folder of a similar name), --after and --before: the same files in the
    same order on both engines (store/scope.py's fragments run on PostgreSQL as they are)."""
    from searchapp.library.query.filters import SearchFilters

    lite, shared = engines
    office = str(Path(lite.roots()[0]) / "office")
    cases = [SearchFilters.build(types=["txt"]), SearchFilters.build([office]), SearchFilters.build(types=["md", "html"]),
             SearchFilters.build(after="2000-01-01"), SearchFilters.build(before="2000-01-01")]
    for filters in cases:
        for q in ("castles jazz office", "sourdough bread", "magma"):
            a = lite.search(q, mode=mode, group="file", k=10, filters=filters)
            b = shared.search(q, mode=mode, group="file", k=10, filters=filters)
            assert [Path(h.path).name for h in a.hits] == [Path(h.path).name for h in b.hits], (q, filters)
            assert [h.score for h in b.hits] == pytest.approx([h.score for h in a.hits], abs=1e-5)
    inside = {Path(h.path).name for h in shared.search("castles jazz office", mode=mode, k=10,
                                                       filters=cases[1]).hits}
    assert inside and inside <= {"castles.docx", "jazz.odt"}  # not office-notes/memo.txt
    assert not shared.search("magma", mode=mode, filters=cases[4]).hits


def test_status_counts_match(engines):
    lite, shared = engines
    st, lst = shared.summary(), lite.status()
    assert st.passages == lst.chunks == st.embedded
    assert [Path(p).name for _, p, *_ in st.roots] == [Path(r.path).name for r in lst.roots]
    assert st.roots[0][2] == lst.roots[0].files


def test_the_windows_status_is_the_same_on_both_engines(tmp_path, tiny_encoder, pg_server):
    """What the window shows of a library (LibraryStatus: folders, counts, the files not indexed and why, the
    notes) is one report on both engines (decision 0141), broken and empty files included."""
    import corpus

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF")  # no pages to read
    (docs / "empty.txt").write_bytes(b"")
    (docs / "binary.txt").write_bytes(bytes(range(256)) * 8)  # not text, whatever its name says
    with both_engines(tmp_path, docs, tiny_encoder, pg_server) as (lite, shared):
        a, b = lite.status(), shared.status()

        def shown(st):
            return ([(Path(r.path).name, r.files, r.chunks, r.missing) for r in st.roots], st.files, st.chunks,
                    st.embedded, st.vectors, st.consistent, st.ledger, st.notes, st.reindex_needed,
                    [(Path(p).name, s, r) for p, s, r in st.failed],
                    [(Path(p).name, s, r) for p, s, r in st.not_indexed], st.bi_encoder, st.reranker)

        assert shown(b) == shown(a)
        assert a.failed or a.not_indexed  # the comparison covers files not indexed, not only the good ones
        assert (a.address, a.elsewhere) == (None, []) and b.address is not None and b.address.startswith("postgresql://")


def test_edit_delete_rename_then_the_same(make_config, tiny_encoder, tmp_path, pg_address):
    """A second sync after an edit, a deletion and a rename: the same counts and the same answers on both engines
    (the rename's passages reuse their vectors on both: nothing is embedded for them)."""
    import os

    import corpus

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    config = make_config(models={"reranker": ""})
    with Library(config, encoder=tiny_encoder) as lite, \
            SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as shared:
        lite.add_folder(docs), shared.add_folder(docs)
        bread = docs / "bread.txt"
        bread.write_text(bread.read_text(encoding="utf-8") + "\n\nRye flour gives a tangy, dense crumb.",
                         encoding="utf-8")
        st = bread.stat()
        os.utime(bread, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
        (docs / "volcano.html").unlink()
        (docs / "cluster.md").rename(docs / "kubernetes.md")
        a, b = lite.sync(), shared.sync()
        assert (a.updated, a.removed, a.added) == (1, 2, 1) and a.chunks_embedded >= 1  # a rename: one gone, one new
        assert (b.added, b.updated, b.removed, b.unchanged) == (a.added, a.updated, a.removed, a.unchanged)
        assert a.moved == b.moved == 1  # the rename, said as one change on both
        assert (b.chunks_added, b.chunks_removed, b.chunks_embedded) == (a.chunks_added, a.chunks_removed,
                                                                         a.chunks_embedded)
        assert shared.summary().passages == lite.status().chunks
        for q in ("rye flour tangy crumb", "magma lava", "kubernetes pods scheduling"):
            assert lexical_rows(lite.search(q, mode="lexical", k=10)) == lexical_rows(shared.search(q, mode="lexical", k=10))
            assert [Path(h.path).name for h in lite.search(q, mode="hybrid", k=5).hits] == \
                   [Path(h.path).name for h in shared.search(q, mode="hybrid", k=5).hits]


def test_the_vector_count_follows_every_write_and_is_counted_once_a_generation(make_config, tiny_encoder, tmp_path,
                                                                               pg_address, monkeypatch):
    """len() of the shared vector index (asked twice by every search by meaning) is the count of passages with a
    vector after words, meaning and a remove, and a count(*) runs only when a write moved the generation."""
    from corpus import write_texts

    from searchapp.library.shared import SharedLibrary
    from searchapp.store.postgres import pg_index
    from searchapp.store.postgres.pg_store import PgStore

    docs = write_texts(tmp_path / "docs", {f"n{i}.txt": f"note {i} about lanterns" for i in range(4)})
    counted: list[str] = []
    rows = PgStore.rows

    def spy(self, sql, params=(), **kw):
        if sql.startswith("SELECT count(*) FROM chunks WHERE vector IS NOT NULL"):
            counted.append(sql)
        return rows(self, sql, params, **kw)

    monkeypatch.setattr(PgStore, "rows", spy)
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, create=True, encoder=tiny_encoder) as lib:
        index = pg_index.PgVectorIndex(lib.store, lib.store.dim() or 1)
        lib.add_folder(docs, embed=False)
        assert len(index) == 0
        lib.sync()  # the meaning pass
        truth = lib.store.one("SELECT count(*) FROM chunks WHERE vector IS NOT NULL")[0]
        counted.clear()
        assert len(index) == len(pg_index.PgVectorIndex(lib.store, 1)) == truth == 4
        assert len(counted) == 1  # the second asked the same generation: no count(*)
        lib.remove_folder(docs)
        assert len(index) == 0


def test_files_holding_a_phrase_are_counted_alike(make_config, tiny_encoder, tmp_path, pg_address):
    """Boilerplate's question (search/boilerplate.py: how many files hold this sentence, up to a cap) has one
    answer on both engines: a phrase of rare words, one of common words only whose holders span several pages of
    candidates, words present but not in a row, and the cap."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(300):  # every file holds "of the" and "the man"; only the multiples of 7 hold the sentence
        said = "The ferryman carried the lantern across the river." if i % 7 == 0 else "The man of the river slept."
        (docs / f"n{i:03d}.txt").write_text(f"Note {i} of the day. {said} The lantern of the man.", encoding="utf-8")
    (docs / "apart.txt").write_text("The lantern stood by the ferryman and the river carried it.", encoding="utf-8")
    config = make_config(models={"reranker": ""})
    with Library(config, encoder=tiny_encoder) as lite, \
            SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as shared:
        lite.add_folder(docs, embed=False), shared.add_folder(docs, embed=False)
        for phrase, cap in (("the ferryman carried the lantern across the river", 1000),
                            ("the ferryman carried the lantern across the river", 5),
                            ("the lantern of the man", 1000), ("of the", 1000), ("of the", 3),
                            ("river carried", 1000), ("lantern ferryman", 1000), ("no such words here", 10),
                            ("lantern", 1000), ("lantern", 7), ("the the", 1000)):
            want = lite.reader().files_with_phrase(phrase, cap)
            assert shared.store.files_with_phrase(phrase, cap) == want, (phrase, cap)
        assert lite.reader().files_with_phrase("the ferryman carried the lantern across the river", 1000) == 43
        assert lite.reader().files_with_phrase("of the", 1000) == 300  # not apart.txt


def test_a_library_from_before_the_passage_context_was_recorded_gets_no_false_note(make_config, tiny_encoder,
                                                                                  tmp_path, pg_address):
    """A shared library written before its sync recorded meta chunk_context was embedded under the same rule as
    now: its next sync records the current context instead of calling its passages "mixed"."""
    import corpus

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    config = make_config(models={"reranker": ""})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder) as shared:
        shared.add_folder(docs)
        assert shared.store.get_meta("chunk_context") == "title" and shared.status().notes == []
        with shared.store.atomic():
            shared.store.rows("DELETE FROM meta WHERE key = 'chunk_context'")  # as an older version left it
        (docs / "new.txt").write_text("A new note about quinces.", encoding="utf-8")
        shared.sync()
        assert shared.store.get_meta("chunk_context") == "title" and shared.status().notes == []


def test_a_shared_librarys_totals_count_no_secret_nor_empty_file_as_a_problem(tmp_path, tiny_encoder, pg_address):
    """`searchapp --library … status` said "3 skipped or failed" for a key, a key pasted in a note and an empty file,
    which the desktop's says are left out on purpose (a reviewer): only the broken PDF is a problem."""
    from conftest import library_on

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The heron waded through the reeds at dawn.", encoding="utf-8")
    (docs / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                                 "-----END OPENSSH PRIVATE KEY-----\n", encoding="utf-8")
    (docs / "empty.txt").write_bytes(b"")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
    with library_on(pg_address, tmp_path / "data", tiny_encoder) as shared:
        shared.add_folder(docs, embed=False)
        st = shared.summary()
    assert (st.files, st.problems) == (4, 1)
