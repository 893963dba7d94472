"""Incremental sync through the library façade, checked through search results and status."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import corpus
from rankings import assert_same_ranking
from searchapp.base.errors import ModelMismatchError, StoreError
from searchapp.library import Library


@pytest.fixture
def library(make_config, packaged_encoder):
    """With the real MiniLM: for the tests that ask which file a passage's meaning finds."""
    lib = Library(make_config(), encoder=packaged_encoder)
    yield lib
    lib.close()


@pytest.fixture
def tiny_lib(make_config, tiny_encoder):
    """With the tiny bi-encoder: for the tests of what a sync does with files (counts, skips, failures, stages),
    never of what a passage means (a sync of the corpus: ~0.6 CPU s with MiniLM, ~0.07 with it)."""
    lib = Library(make_config(), encoder=tiny_encoder)
    yield lib
    lib.close()


def names(result) -> list[str]:
    return [Path(h.path).name for h in result.hits]


def consistent(lib: Library) -> bool:
    st = lib.status()
    return st.consistent and st.chunks == st.vectors


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_second_sync_touches_nothing(tiny_lib, tmp_corpus):
    first = tiny_lib.add_folder(tmp_corpus)
    assert first.added == 7 and first.chunks_embedded > 0
    again = tiny_lib.sync()
    assert again.unchanged == 7 and again.added == again.updated == again.removed == 0
    assert again.chunks_embedded == 0 and again.chunks_added == 0


def test_edit_delete_add_rename(library, tmp_corpus):
    library.add_folder(tmp_corpus)
    chunks_before = library.store.chunk_count()

    # Edit: only the new passage text is embedded.
    bread = tmp_corpus / "bread.txt"
    bread.write_text(corpus.TOPICS["bread.txt"] + "\n\nRye flour gives the crumb a tangy, dense texture.", encoding="utf-8")
    bump_mtime(bread)
    rep = library.sync()
    assert rep.updated == 1 and rep.unchanged == 6
    assert rep.chunks_embedded <= 2
    assert names(library.search("rye flour tangy crumb", mode="lexical"))[0] == "bread.txt"

    # Delete: purged from SQLite, FTS and the vector index.
    (tmp_corpus / "volcano.html").unlink()
    rep = library.sync()
    assert rep.removed == 1
    assert "volcano.html" not in names(library.search("magma lava eruption", mode="hybrid", k=10))
    assert library.search("magma", mode="lexical").hits == []

    # Add.
    (tmp_corpus / "tea.md").write_text("# Green tea\n\nSteep sencha leaves at 70 degrees for one minute.", encoding="utf-8")
    rep = library.sync()
    assert rep.added == 1
    assert names(library.search("brewing japanese green tea", mode="dense"))[0] == "tea.md"

    # Rename: the passages are found again without re-embedding.
    (tmp_corpus / "tea.md").rename(tmp_corpus / "sencha.md")
    rep = library.sync()
    assert rep.added == 1 and rep.removed == 1 and rep.chunks_embedded == 0
    assert rep.moved == 1  # and said as one change, not an addition and a removal
    assert rep.said("added", "updated", "removed") == "0 added, 1 renamed or moved, 0 updated, 0 removed"
    assert names(library.search("brewing japanese green tea", mode="dense"))[0] == "sencha.md"

    # A copy beside it, and another file's removal in the same sync: no move (different bytes went away).
    (tmp_corpus / "sencha-copy.md").write_bytes((tmp_corpus / "sencha.md").read_bytes())
    (tmp_corpus / "cluster.md").unlink()
    rep = library.sync()
    assert (rep.added, rep.removed, rep.moved) == (1, 1, 0)
    assert rep.said("added", "removed", "failed", zeros=False) == "1 added, 1 removed"
    (tmp_corpus / "sencha-copy.md").unlink()
    (tmp_corpus / "cluster.md").write_text(corpus.TOPICS["cluster.md"], encoding="utf-8")
    library.sync()

    assert consistent(library)
    st = library.status()
    assert st.files.get("indexed") == 7
    assert library.store.chunk_count() >= chunks_before - 2


def test_a_file_moved_between_two_indexed_folders_keeps_its_meaning_either_way(tiny_lib, tmp_corpus, tmp_path):
    """A newcomer's 5 KB note moved from one indexed folder to another was embedded again and said as "1 added …
    1 removed": the folder it left was synced first and let its passages go before the other found them. Every
    root is read before any deleted file goes, whichever order they are synced in."""
    other = corpus.write_texts(tmp_path / "other", {"kettle.txt": "Copper kettles whistle on the stove at dawn."})
    tiny_lib.add_folder(tmp_corpus)
    tiny_lib.add_folder(other)
    roots = [r.path for r in tiny_lib.store.roots()]
    assert roots.index(str(tmp_corpus)) < roots.index(str(other))  # the folder left is synced first
    (tmp_corpus / "bread.txt").rename(other / "bread.txt")
    rep = tiny_lib.sync()
    assert (rep.added, rep.removed, rep.moved, rep.chunks_embedded) == (1, 1, 1, 0)
    assert rep.said("added", "updated", "removed") == "0 added, 1 renamed or moved, 0 updated, 0 removed"
    (other / "bread.txt").rename(tmp_corpus / "bread.txt")  # and back: the folder left is synced second
    rep = tiny_lib.sync()
    assert (rep.added, rep.removed, rep.moved, rep.chunks_embedded) == (1, 1, 1, 0)
    assert consistent(tiny_lib)
    assert names(tiny_lib.search("sourdough", mode="lexical")) == ["bread.txt"]


def test_index_of_two_folders_is_one_sync_a_move_between_them_said_once(tiny_library, tmp_corpus, tmp_path):
    """`index A B`: one sync of both (before, one each: the folder left was synced first and let the moved file's
    passages go). Both libraries: the shared one adds its folders the same way."""
    other = corpus.write_texts(tmp_path / "other", {"kettle.txt": "Copper kettles whistle on the stove at dawn."})
    rep = tiny_library.add_folders([tmp_corpus, other])
    assert [r.path for r in tiny_library.store.roots()] == [str(tmp_corpus), str(other)] and rep.added == 8
    (tmp_corpus / "bread.txt").rename(other / "bread.txt")
    rep = tiny_library.add_folders([tmp_corpus, other])
    assert (rep.added, rep.removed, rep.moved, rep.chunks_embedded) == (1, 1, 1, 0)
    assert rep.said("added", "removed") == "0 added, 1 renamed or moved, 0 removed"
    assert names(tiny_library.search("sourdough", mode="lexical")) == ["bread.txt"]


def test_one_sync_of_several_folders_names_each_on_its_scanning_and_reading_reports(tiny_library, tmp_corpus,
                                                                                     tmp_path):
    """`index A B C D` drew four scanning bars and four reading bars that read alike: each report of a folder's
    scan and reading names it (the command line's bar says it); the meaning, one pass for all, names none."""
    other = corpus.write_texts(tmp_path / "other", {"kettle.txt": "Copper kettles whistle on the stove at dawn."})
    seen = []
    tiny_library.add_folders([tmp_corpus, other], progress=seen.append)
    named = {(p.stage, p.folder) for p in seen if p.stage in ("scanning", "extracting")}
    assert named == {(stage, f"{name}, {i} of 2") for stage in ("scanning", "extracting")
                     for i, name in enumerate([tmp_corpus.name, "other"], start=1)}, named
    assert {p.folder for p in seen if p.stage == "embedding"} <= {""}


def test_index_of_a_folder_and_a_folder_inside_it_makes_one_root(tiny_lib, tmp_corpus):
    inner = tmp_corpus / "inner"
    corpus.write_texts(inner, {"kettle.txt": "Copper kettles whistle on the stove at dawn."})
    rep = tiny_lib.add_folders([inner, tmp_corpus])  # the inner one named first: taken in by the outer
    assert [r.path for r in tiny_lib.store.roots()] == [str(tmp_corpus)]
    assert rep.added == 8 and rep.scanned == 8  # each file read once
    assert f"{inner} is inside the indexed folder {tmp_corpus}; synced as part of it" in rep.notes
    rep = tiny_lib.add_folders([inner, inner / "kettle.txt"])  # both inside it: synced as part of it, once
    assert (rep.scanned, rep.unchanged) == (1, 1) and len(rep.notes) == 2


def test_touched_but_unchanged_file_is_not_reindexed(tiny_lib, tmp_corpus):
    tiny_lib.add_folder(tmp_corpus)
    bump_mtime(tmp_corpus / "cluster.md")
    rep = tiny_lib.sync()
    assert rep.unchanged == 7 and rep.chunks_embedded == 0


def test_corrupt_and_binary_files_are_reported_and_skipped(tiny_lib, tmp_corpus, monkeypatch):
    monkeypatch.setenv("SEARCHAPP_OCR_ENGINE", "none")  # images wait for OCR, quietly
    (tmp_corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<\n garbage without end")
    (tmp_corpus / "image.txt").write_bytes(bytes(range(256)) * 64)
    (tmp_corpus / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 100)
    (tmp_corpus / "empty.md").write_text("")
    (tmp_corpus / "empty.pdf").write_bytes(b"")  # 0 bytes: empty, not a broken PDF
    (tmp_corpus / "blank.txt").write_text(" \n\t\n")
    rep = tiny_lib.add_folder(tmp_corpus)
    assert rep.added == 7  # the good files all made it
    problems = {Path(p).name: reason for p, reason in rep.problems}
    assert "broken.pdf" in problems and "image.txt" in problems
    assert "photo.jpg" not in problems  # an image waits for OCR quietly
    st = tiny_lib.status()
    recorded = {Path(p).name: (status, reason) for p, status, reason in st.failed}
    assert recorded["broken.pdf"][0] == "failed"
    assert recorded["image.txt"][0] == "skipped" and "binary" in recorded["image.txt"][1]
    # An empty file is neither a failure nor a problem to list: a quiet state of its own, counted apart
    empty = {"empty.md", "empty.pdf", "blank.txt"}
    assert not empty & (problems.keys() | recorded.keys()) and st.left_out == {"empty": 3}, (problems, recorded)
    assert {Path(r.path).name for _, r in tiny_lib.ledger("empty")} == empty
    # Fixing the broken file brings it in on the next sync.
    corpus.write_pdf(tmp_corpus / "broken.pdf", ["Quantum entanglement links two particles across a distance."])
    rep = tiny_lib.sync()
    assert names(tiny_lib.search("entanglement of particles", mode="lexical"))[0] == "broken.pdf"
    assert consistent(tiny_lib)


def test_size_cap_skips_large_files(make_config, tiny_encoder, tmp_corpus):
    big = tmp_corpus / "big.txt"
    big.write_text("word " * 300_000)  # ~1.5 MB
    lib = Library(make_config(scan={"max_file_mb": 1}), encoder=tiny_encoder)
    lib.add_folder(tmp_corpus)
    recorded = {Path(p).name: reason for p, _, reason in lib.status().failed}
    assert "big.txt" in recorded and "MB" in recorded["big.txt"]
    lib.close()


def test_interrupted_sync_is_repaired_on_open(make_config, packaged_encoder, tmp_corpus):
    """A crash after the SQLite commit but before the index save: the next open repairs from stored vectors."""
    cfg = make_config()
    lib = Library(cfg, encoder=packaged_encoder)
    lib.add_folder(tmp_corpus)
    index_file = cfg.data_dir / "vectors.hnsw"
    saved = index_file.read_bytes(), Path(str(index_file) + ".json").read_bytes()
    (tmp_corpus / "tea.md").write_text("# Green tea\n\nSteep sencha leaves at 70 degrees.", encoding="utf-8")
    (tmp_corpus / "bread.txt").unlink()
    lib.sync()
    lib.close()
    # Put back the index as it was before that sync, as if the process died before saving it.
    index_file.write_bytes(saved[0])
    Path(str(index_file) + ".json").write_bytes(saved[1])

    lib = Library(cfg, encoder=packaged_encoder)
    st = lib.status()
    assert st.consistent and st.vectors == st.chunks
    assert any("repaired" in n for n in st.notes)
    assert names(lib.search("green tea sencha", mode="dense"))[0] == "tea.md"
    assert "bread.txt" not in names(lib.search("sourdough starter", mode="dense"))
    lib.close()


def test_unreadable_index_is_rebuilt(make_config, packaged_encoder, tmp_corpus):
    cfg = make_config()
    lib = Library(cfg, encoder=packaged_encoder)
    lib.add_folder(tmp_corpus)
    lib.close()
    (cfg.data_dir / "vectors.hnsw").write_bytes(b"not an index")
    lib = Library(cfg, encoder=packaged_encoder)
    st = lib.status()
    assert st.consistent and st.vectors == st.chunks > 0
    assert any("rebuilt" in n for n in st.notes)
    assert names(lib.search("molten rock exploding out of a mountain", mode="dense"))[0] == "volcano.html"
    lib.close()


def test_exact_backend_gives_the_same_results(make_config, packaged_encoder, tmp_corpus):
    hnsw = Library(make_config(), encoder=packaged_encoder)
    hnsw.add_folder(tmp_corpus)
    exact = Library(make_config(index={"backend": "exact"}), encoder=packaged_encoder)  # same db, other index file
    q = "which part of a cell makes energy"
    a = [(h.chunk_id, h.scores.dense) for h in hnsw.search(q, mode="dense").hits]
    b = [(h.chunk_id, h.scores.dense) for h in exact.search(q, mode="dense").hits]
    assert a and len({c for c, _ in a}) == len(a)
    assert_same_ranking(a, b)  # hnswlib's SIMD distance and NumPy's matmul differ in the last bits
    hnsw.close()
    exact.close()


def test_changed_pooling_is_detected_not_mixed(make_config, packaged_encoder, tmp_corpus):
    from searchapp.models import BiEncoder

    lib = Library(make_config(), encoder=packaged_encoder)
    lib.add_folder(tmp_corpus)
    lib.close()
    cls_encoder = BiEncoder("all-MiniLM-L6-v2", pooling="cls", device="cpu")
    other = Library(make_config(models={"pooling": "cls"}), encoder=cls_encoder)
    with pytest.raises(ModelMismatchError, match="reindex"):
        other.sync()
    with pytest.raises(ModelMismatchError):
        other.search("magma", mode="dense")
    assert other.search("magma", mode="lexical").hits  # lexical search needs no model
    rep = other.reindex()
    assert rep.added == 7
    assert other.store.get_meta("pooling") == "cls"
    assert names(other.search("magma eruption", mode="dense"))[0] == "volcano.html"
    other.close()


def test_second_writer_gets_a_clear_message(make_config, packaged_encoder, tmp_corpus):
    from searchapp.library.resources.lock import writer_lock

    cfg = make_config()
    lib = Library(cfg, encoder=packaged_encoder)
    with writer_lock(cfg.data_dir):
        # Another process would hold this lock; a separate open file description conflicts the same way.
        with pytest.raises(StoreError, match="another searchapp process"):
            lib.add_folder(tmp_corpus)
    lib.close()


def test_hybrid_keeps_every_stage(tiny_lib, tmp_corpus, tiny_cross_encoder_dir):
    from searchapp.models import CrossEncoder

    tiny_lib.models.loaded_reranker = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu")
    tiny_lib.add_folder(tmp_corpus)
    res = tiny_lib.search("volcano magma", mode="hybrid", k=5)
    assert res.reranked
    for h in res.hits:
        s, r = h.scores, h.ranks
        assert s.dense is not None and s.lexical is not None and s.fused is not None
        assert s.rerank_logit is not None and abs(s.rerank - 1 / (1 + np.exp(-s.rerank_logit))) < 1e-6
        assert r.fused is not None and r.rerank == r.final
    # The logits are exactly what the cross-encoder gives for (query, passage).
    direct = tiny_lib.models.loaded_reranker.score("volcano magma", [h.text for h in res.hits])
    assert np.allclose(direct, [h.scores.rerank_logit for h in res.hits], atol=1e-5)


def test_a_renamed_folder_moves_its_files_not_indexed_too(tiny_library, tmp_path):
    """A newcomer renamed Documents/Slides to Documents/Presentations, whose files included some left out (no
    text, password-protected), and removed one note: the sync said them removed and "newly not indexed" (12 of
    them), where one note went. A file left out the same way with the same bytes is that one moved."""
    docs = corpus.write_texts(tmp_path / "Documents", {"note.txt": "The harbour tides turn at noon.",
                                                      "other.txt": "Copper kettles whistle at dawn."})
    slides = corpus.write_texts(docs / "Slides", {"talk.txt": "Quarterly figures for the kayak club."})
    (slides / "blank.html").write_text("<html><body> </body></html>")  # no text found: skipped
    (slides / "blank2.html").write_text("<html><body></body></html>")  # other bytes, left out the same way
    (slides / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage\n")  # failed: a failed file keeps its bytes' hash
    rep = tiny_library.add_folder(docs)
    assert rep.skipped == 2 and rep.failed == 1, rep.problems
    assert {Path(p).name for p, _ in rep.problems} == {"blank.html", "blank2.html", "broken.pdf"}, rep.problems
    slides.rename(docs / "Presentations")
    (docs / "other.txt").unlink()
    rep = tiny_library.sync()
    assert rep.said("added", "removed") == "0 added, 4 renamed or moved, 1 removed", rep.said("added", "removed")
    assert rep.problems == [] and rep.files_changed() == 5, rep.problems
    assert rep.skipped == 2 and rep.failed == 1  # still left out where they are now
    # said once, as moved, not also as skipped or failed: the files said add up to those scanned (4) and the one gone
    assert rep.said("added", "unchanged", "removed", "skipped", "failed") == \
        "0 added, 4 renamed or moved, 1 unchanged, 1 removed, 0 skipped, 0 failed"
