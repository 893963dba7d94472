"""Meaning first where the person is looking (issue 41, item 4): while meaning is unfinished, the files a search
returned, opened or asked Similar for are embedded first; a hybrid search embeds its best word matches on the
spot within its budget (counted in passages), and Similar answers for a file that has no vectors yet.

The tiny bi-encoder: what is checked is which passages are embedded and when, never how well they rank."""

from __future__ import annotations

import dataclasses
import os

from searchapp.library import Library
from searchapp.library.search.similar_hit import NOT_READY_SOURCE
from searchapp.library.sync import words_pass as sync_module

WORDS = "amber basil cedar dune ember fjord garnet heron iris jasper kelp lotus".split()


class CountingEncoder:
    """The real tiny encoder, with every passage text it embeds recorded (queries are not passages)."""

    def __init__(self, inner) -> None:
        self._inner, self.calls = inner, []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def encode(self, texts, **kw):
        self.calls.append(list(texts))
        return self._inner.encode(texts, **kw)

    @property
    def texts(self) -> list[str]:
        return [t for c in self.calls for t in c]


def make_folder(root, name: str = "docs", n: int = 12, first: int = 0):
    """n one-passage files, each with its own word and 'weather', modified a minute apart (the first oldest)."""
    d = root / name
    d.mkdir()
    for i in range(first, first + n):
        p = d / f"f{i:02d}.txt"
        p.write_text(f"Notes on {WORDS[i % len(WORDS)]}{i} and the weather of day {i}.", encoding="utf-8")
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 60 * 10**9,) * 2)
    return d


def day(text: str) -> int:
    return int(text.split("day ")[1].rstrip("."))


def config(make_config, budget: int):
    # No title in front: a passage's model input is its text, so the test maps inputs back to files.
    return make_config(models={"reranker": ""}, chunking={"title_context": False},
                       search={"embed_on_search": budget, "rerank": False})


def test_searched_and_opened_files_are_embedded_before_the_newest(make_config, tiny_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 2)
    folder = make_folder(tmp_path)
    enc = CountingEncoder(tiny_encoder)
    with Library(config(make_config, 0), encoder=enc) as lib:
        lib.add_folder(folder, embed=False)
        hits = lib.search("amber0", mode="lexical").hits  # the oldest file: last in the newest-first order
        assert [os.path.basename(h.path) for h in hits] == ["f00.txt"]
        lib.want(str(folder / "f03.txt"))  # opened after the search: the newest wish goes first
        assert enc.calls == []
        lib.sync()
    order = [day(t) for t in enc.texts]
    assert order == [3, 0] + [d for d in range(11, -1, -1) if d not in (0, 3)]


def test_a_wish_made_by_another_process_is_heard_by_the_sync(make_config, tiny_encoder, tmp_path):
    folder = make_folder(tmp_path)
    enc = CountingEncoder(tiny_encoder)
    with Library(config(make_config, 0), encoder=enc) as lib:
        lib.add_folder(folder, embed=False)
        with Library(config(make_config, 0), encoder=tiny_encoder) as other:  # e.g. `searchapp search`
            other.search("basil1", mode="lexical")
        lib.sync()
    assert day(enc.texts[0]) == 1


def test_hybrid_embeds_its_best_word_matches_within_its_budget(make_config, tiny_encoder, tmp_path):
    folder = make_folder(tmp_path)
    for budget in (0, 3):
        enc = CountingEncoder(tiny_encoder)
        with Library(config(make_config, budget), encoder=enc) as lib:
            if budget == 0:
                lib.add_folder(folder, embed=False)
            res = lib.search("weather", mode="hybrid", k=12)
            assert len(res.hits) == 12 and lib.store.pending_count() == 12  # nothing written by a search
            labels = [h.order_label for h in res.hits]
            assert len(enc.texts) == budget  # counted in passages, whatever the time they took
            assert labels.count("match") == budget and labels.count("words") == 12 - budget
            embedded = {day(t) for t in enc.texts}
            assert {day(h.text) for h in res.hits if h.order_label == "match"} == embedded
            if budget:  # the best word matches: the first files of the lexical ranking
                lexical = lib.search("weather", mode="lexical", k=12).hits
                assert embedded == {day(h.text) for h in lexical[:budget]}


def test_what_a_search_embedded_is_written_by_the_sync_without_encoding_it_again(make_config, tiny_encoder,
                                                                                 tmp_path):
    folder = make_folder(tmp_path)
    enc = CountingEncoder(tiny_encoder)
    with Library(config(make_config, 2), encoder=enc) as lib:
        lib.add_folder(folder, embed=False)
        res = lib.search("amber0 basil1", mode="hybrid", k=2)
        searched = {day(t) for t in enc.texts}
        assert len(searched) == 2 and {day(h.text) for h in res.hits} == searched
        rep = lib.sync()
        assert rep.chunks_pending == 0 and lib.store.pending_count() == 0
        again = lib.search("amber0 basil1", mode="hybrid", k=2)
    assert sorted(day(t) for t in enc.texts) == list(range(12))  # each passage through the encoder once
    assert [day(t) for t in enc.texts[2:4]] != sorted(searched)  # not encoded again first by the sync
    shown = {day(h.text): h.scores.dense for h in res.hits}
    stored = {day(h.text): h.scores.dense for h in again.hits}
    assert all(abs(shown[d] - stored[d]) < 1e-4 for d in shown)  # the vector written is the one it showed


def test_similar_answers_for_a_file_without_vectors(make_config, tiny_encoder, tmp_path):
    embedded, waiting = make_folder(tmp_path, "done", 6), make_folder(tmp_path, "new", 3, first=6)
    for budget in (0, 4):
        enc = CountingEncoder(tiny_encoder)
        cfg = dataclasses.replace(config(make_config, budget), data_dir=tmp_path / f"lib{budget}")
        with Library(cfg, encoder=enc) as lib:
            lib.add_folder(embedded)
            lib.add_folder(waiting, embed=False)
            enc.calls.clear()
            res = lib.similar(str(waiting / "f07.txt"), k=3)
            assert res.meaning_percent == 66 and res.meaning_notice  # says that meaning is unfinished
            if budget == 0:  # not embedding it, meaning has nothing to compare: every row is found by words
                assert enc.texts == [] and len(res.hits) == 3, res.hits  # (decision 0159)
                assert all(h.by == "words" and h.scores.dense is None for h in res.hits)
                # the files with meaning too: meaning compared none of them, the source having none
                assert {h.why for h in res.hits if os.path.dirname(h.path) == str(embedded)} <= {NOT_READY_SOURCE}
                lib.sync()  # asked Similar for: embedded before the newer waiting file
                assert [day(t) for t in enc.texts] == [7, 8, 6]
            else:
                assert [day(t) for t in enc.texts] == [7]  # that file's passage, and only it
                assert len(res.hits) == 3 and all(os.path.dirname(h.path) == str(embedded) for h in res.hits)
                assert lib.store.pending_count() == 3  # written by the meaning pass, not by Similar


def test_a_cold_process_embeds_by_its_query_path_and_loads_no_torch_model(make_config, tiny_encoder,
                                                                          tiny_bi_encoder_dir, tmp_path, monkeypatch):
    from searchapp.models.query_encoder import NumpyQueryEncoder

    calls: list[int] = []  # texts per call of the NumPy path: the query, then the passages all in one
    packed = NumpyQueryEncoder.encode_many
    monkeypatch.setattr(NumpyQueryEncoder, "encode_many", lambda self, texts: calls.append(len(texts)) or packed(self, texts))
    folder = make_folder(tmp_path)
    cfg = make_config(models={"reranker": "", "bi_encoder": str(tiny_bi_encoder_dir)},
                      chunking={"title_context": False}, search={"embed_on_search": 2, "rerank": False})
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(folder, embed=False)
    with Library(cfg) as lib:  # a command-line search: no bi-encoder given or loaded
        res = lib.search("amber0 basil1", mode="hybrid", k=4)
        assert lib.models.loaded_encoder is None and len(lib.fresh) == 0  # nothing kept for a writer
        assert lib.store.pending_count() == 12
    assert calls[-2:] == [1, 2]
    matched = {day(h.text): h.scores.dense for h in res.hits if h.order_label == "match"}
    assert set(matched) == {0, 1}
    for d, cosine in matched.items():  # the vector the bi-encoder gives that passage
        vec = tiny_encoder.encode([f"Notes on {WORDS[d]}{d} and the weather of day {d}."])[0]
        query = tiny_encoder.encode_query("amber0 basil1")
        assert abs(cosine - float(vec @ query)) < 1e-3


def test_no_similar_files_yet_says_why_while_meaning_fills():
    from searchapp.gui.empty_results import empty_text
    from searchapp.library import SearchResult

    waiting = SearchResult("/docs/a.txt", "similar", [], False, meaning_percent=3)
    assert empty_text(waiting, False).startswith("No similar files yet. Wait while meaning is added (now 3%")
    assert empty_text(SearchResult("/docs/a.txt", "similar", [], False), False).startswith("No similar files. ")


def test_with_rank_fusion_a_passage_embedded_on_the_spot_is_ranked_by_its_meaning_too(make_config, tiny_encoder,
                                                                                       tmp_path):
    """search.fusion = "rrf": RRF reads ranks, so the passages embedded on the spot go into the dense ranking by
    their cosine. Left out of it, they got only their words' share (1 - w) and sank below every row still without
    a vector (fused on its words at full weight), while showing "match" though meaning had no part in it."""
    folder = make_folder(tmp_path)
    cfg = make_config(models={"reranker": ""}, chunking={"title_context": False},
                      search={"embed_on_search": 3, "rerank": False, "fusion": "rrf"})
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(folder, embed=False)  # no vectors at all: the dense list holds every one there is
        rrf_k, w = lib.config.search.rrf_k, lib.config.search.dense_weight
        for group in ("file", "passage"):
            lib.fresh.clear()  # the passage search embeds its own three, not the file search's again
            hits = lib.search("weather", mode="hybrid", k=12, group=group).hits
            matched = [h for h in hits if h.order_label == "match"]
            assert len(matched) == 3, group
            # dense ranks 1-3 by cosine, lexical ranks 1-3: above every word-only row (lexical rank 4 or later)
            assert hits[:3] == matched, [(h.order_label, h.ranks) for h in hits]
            by_cosine = sorted(matched, key=lambda h: -(h.scores.dense or 0.0))
            assert [h.ranks.dense for h in by_cosine] == [1, 2, 3], group
            for h in matched:  # meaning has its full part in the fused score
                assert h.ranks.dense is not None and h.ranks.lexical is not None
                want = w / (rrf_k + h.ranks.dense) + (1 - w) / (rrf_k + h.ranks.lexical)
                assert abs(h.scores.fused - want) < 1e-9, (group, h.scores, h.ranks)


def test_every_files_first_passages_come_before_the_rest_of_a_huge_one(tiny_library, tiny_encoder, tmp_path,
                                                                     monkeypatch):
    """A newcomer's 29 MB log (17,216 of 26,876 passages), saved last, was embedded whole before any of the notes
    beside it: the queue takes every file's first HEAD_PASSAGES passages first, newest file first, then the rest of
    the ordinary files, and the rest of a file of over BULK_PASSAGES passages last (a 48 MB log, 15,890 of 22,963
    passages, went before the rest of every real document: decision 0188). Both libraries: the shared one orders
    its queue the same way."""
    from searchapp.store import vector_queue
    from searchapp.store.vector_queue import HEAD_PASSAGES

    monkeypatch.setattr(vector_queue, "BULK_PASSAGES", 40)  # a "huge" file the test can afford

    docs = make_folder(tmp_path, n=3)  # three one-passage notes, a minute apart
    report = docs / "report.txt"  # an ordinary document of a few dozen passages, older than the log
    report.write_text("\n\n".join(f"Chapter {i}: the {WORDS[i % 12]} survey counted {i * 13} herons on the "
                                   f"{WORDS[(i + 5) % 12]} shore, and {i * 7} {WORDS[(i + 3) % 12]} nests were mapped by the "
                                   f"{WORDS[(i + 8) % 12]} team in week {i}." for i in range(90)), encoding="utf-8")
    os.utime(report, ns=(1_600_000_000_000_000_000,) * 2)
    log = docs / "server.log"
    log.write_text("\n\n".join(f"{i:05d} backup job {WORDS[i % 12]} ran on host{i % 7} and copied "
                                f"{i * 37 % 1000} files to the array without error" for i in range(600)),
                   encoding="utf-8")  # saved last: the newest file
    tiny_library.add_folder(docs, embed=False)
    order = tiny_library.store.pending_order().tolist()
    rows = tiny_library.store.chunks(order)
    files = [os.path.basename(rows[c].path) for c in order]
    big, rest = files.count("server.log"), files.count("report.txt") - HEAD_PASSAGES
    assert big > vector_queue.BULK_PASSAGES > rest > 3  # a huge file, and an ordinary one of several passages
    heads = HEAD_PASSAGES * 2 + 3
    assert files[:HEAD_PASSAGES] == ["server.log"] * HEAD_PASSAGES  # the newest file's head first
    assert sorted(files[HEAD_PASSAGES:heads]) == sorted(["report.txt"] * HEAD_PASSAGES + [
        f for f in files if f not in ("server.log", "report.txt")])
    assert files[heads:heads + rest] == ["report.txt"] * rest  # the rest of the ordinary document
    assert files[heads + rest:] == ["server.log"] * (big - HEAD_PASSAGES)  # then the rest of the huge one
    # A file with its head embedded is not yet judged whole by meaning: Similar still finds it by words too
    store = tiny_library.store
    head = [c for c, f in zip(order, files, strict=True) if f == "server.log"][:HEAD_PASSAGES]
    with store.atomic():
        store.set_vectors(head, tiny_encoder.encode([rows[c].text for c in head]))
    note = store.file_by_path(str(docs / sorted(f for f in files if f not in ("server.log", "report.txt"))[0]))
    note_ids = [c for c in order if rows[c].path == note.path]
    with store.atomic():
        store.set_vectors(note_ids, tiny_encoder.encode([rows[c].text for c in note_ids]))
    big_id = store.file_by_path(str(log)).id
    assert store.files_embedded([big_id, note.id]) == {note.id}
