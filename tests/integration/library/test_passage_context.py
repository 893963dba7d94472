"""Title context (chunking.title_context): what the bi-encoder reads per passage, with the stored text unchanged."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from searchapp.base.types import Document
from searchapp.ingest.passage_context import file_title, model_input
from searchapp.library import Library
from searchapp.library.resources.data_dir import DB_NAME
from searchapp.library.report.settings_check import passage_context_note, settings_mismatch

BODY = " ".join(f"Sentence {i} tells how the harbour crane lifts containers off the ship." for i in range(40))


def test_title_is_the_documents_own_never_its_file_name():
    assert file_title(Document("x", title="  Harbour logistics ")) == "Harbour logistics"
    assert file_title(Document("x")) == ""


def test_model_input_prefixes_the_title_once():
    assert model_input("Cranes", "They lift boxes.") == "Cranes\nThey lift boxes."
    assert model_input("Cranes", "# cranes\n\nThey lift boxes.") == "# cranes\n\nThey lift boxes."  # already opens with it
    assert model_input("", "They lift boxes.") == "They lift boxes."


def stored(data_dir) -> list[tuple[str, str, np.ndarray]]:
    """(file name, passage text, vector) of every stored passage."""
    with sqlite3.connect(data_dir / DB_NAME) as db:
        rows = db.execute("SELECT f.path, c.text, c.vector FROM chunks c JOIN files f ON f.id = c.file_id "
                          "ORDER BY f.path, c.ordinal").fetchall()
    return [(p.rsplit("/", 1)[-1], t, np.frombuffer(v, dtype=np.float32)) for p, t, v in rows]


@pytest.mark.parametrize("on", [True, False])
def test_passages_are_embedded_with_their_files_title(tmp_path, make_config, data_dir, tiny_encoder, on):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(f"# Harbour logistics\n\n{BODY}", encoding="utf-8")
    (docs / "crane_manual.txt").write_text(BODY, encoding="utf-8")
    cfg = make_config(chunking={"max_tokens": 48, "title_context": on})
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        hits = lib.search("harbour crane", mode="lexical").hits
    rows = stored(data_dir)
    assert len(rows) > 4
    texts = {t for _, t, _ in rows}
    assert all(t in f"# Harbour logistics\n\n{BODY}" or t in BODY for t in texts)  # stored text: the passage only
    assert hits and all("Harbour logistics" not in h.text or h.text.startswith("# Harbour") for h in hits)
    for name, text, vec in rows:
        prefixed = on and name == "notes.md" and not text.startswith("# Harbour")  # a .txt has no title of its own
        expected = f"Harbour logistics\n{text}" if prefixed else text
        assert np.allclose(vec, tiny_encoder.encode([expected])[0], atol=1e-5), (on, name, text[:40])


def test_same_text_under_two_titles_gets_two_vectors_and_copies_share_one(tmp_path, make_config, data_dir,
                                                                          tiny_encoder):
    docs = tmp_path / "docs"
    docs.mkdir()
    body = "Magma rises through the crust. " * 30
    (docs / "volcanoes.md").write_text(f"# Volcanoes\n\n{body}", encoding="utf-8")
    (docs / "exam.md").write_text(f"# Geology exam\n\n{body}", encoding="utf-8")
    (docs / "copy_of_exam.md").write_text(f"# Geology exam\n\n{body}", encoding="utf-8")
    with Library(make_config(chunking={"max_tokens": 32, "title_context": True}), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
    rows = stored(data_dir)
    by_file = {name: {t: v for n, t, v in rows if n == name} for name in ("volcanoes.md", "exam.md", "copy_of_exam.md")}
    shared = [t for t in by_file["exam.md"] if t in by_file["volcanoes.md"] and not t.startswith("#")]
    assert shared
    assert not np.allclose(by_file["exam.md"][shared[0]], by_file["volcanoes.md"][shared[0]])  # another title
    assert all(np.array_equal(v, by_file["copy_of_exam.md"][t]) for t, v in by_file["exam.md"].items())  # a copy
    assert rep.chunks_embedded < len(rows)  # the copy was embedded from stored vectors, not again


def test_the_title_costs_no_second_tokenization_of_a_passage(tmp_path, make_config, tiny_encoder, monkeypatch):
    from collections import Counter

    from searchapp.ingest.passage_context import model_input
    from test_index_pipeline import RecordingTokenizer

    seen: Counter = Counter()  # what was tokenized, text by text
    monkeypatch.setattr(tiny_encoder, "_tokenizer", RecordingTokenizer(tiny_encoder._tokenizer, seen))
    monkeypatch.setattr(tiny_encoder, "_offsets_tokenizer", RecordingTokenizer(tiny_encoder._offsets_tokenizer, seen))
    monkeypatch.setattr(tiny_encoder, "_bulk", RecordingTokenizer(tiny_encoder._bulk, seen))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(f"# Harbour logistics\n\n{BODY}", encoding="utf-8")
    with Library(make_config(chunking={"max_tokens": 48, "title_context": True}), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
    assert rep.chunks_embedded > 3  # passages with the title in front were embedded ...
    rows = [r for r in stored(tmp_path / "library") if not r[1].startswith("#")]
    for _, text, _ in rows:  # ... each tokenized at most once, bare or with the title in front, never both
        assert seen[text] + seen[model_input("Harbour logistics", text)] <= 1, text
    assert any(seen[model_input("Harbour logistics", t)] for _, t, _ in rows)  # the recorder does see the inputs
    (_, text, vec), *_ = rows
    assert np.allclose(vec, tiny_encoder.encode([f"Harbour logistics\n{text}"])[0], atol=1e-5)


def one_file_library(tmp_path, config, encoder) -> dict[str, str]:
    """Index one plain-text file with `config`; the library's meta."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(BODY, encoding="utf-8")
    with Library(config, encoder=encoder) as lib:
        lib.add_folder(docs)
        return lib.store.meta()


def test_switching_title_context_keeps_the_library_usable_and_suggests_a_reindex(tmp_path, make_config, data_dir,
                                                                                   tiny_encoder):
    meta = one_file_library(tmp_path, make_config(chunking={"title_context": False}), tiny_encoder)
    assert meta["chunk_context"] == "none"
    on = make_config(chunking={"title_context": True})
    assert settings_mismatch(on, meta) is None  # soft: both kinds of vector share one space
    assert "without their file's title" in passage_context_note(on, meta)
    with Library(on, encoder=tiny_encoder) as lib:
        assert lib.sync().chunks_embedded == 0  # nothing changed: nothing embedded, nothing marked
        assert lib.search("harbour crane", mode="dense").hits
        assert lib.store.get_meta("chunk_context") == "none"
        (tmp_path / "docs" / "b.txt").write_text("Tugboats push the ship to the quay.", encoding="utf-8")
        assert lib.sync().chunks_embedded == 1
        assert lib.store.get_meta("chunk_context") == "mixed"
        note = next(n for n in lib.status().notes if "title" in n)
        assert note.startswith("some passages were embedded without") and "searchapp reindex" in note
        lib.reindex()
        assert lib.store.get_meta("chunk_context") == "title"
        assert not [n for n in lib.status().notes if "title" in n]


def test_a_library_from_before_the_setting_reads_as_without_title(tmp_path, make_config, data_dir, tiny_encoder):
    one_file_library(tmp_path, make_config(chunking={"title_context": False}), tiny_encoder)
    with sqlite3.connect(data_dir / DB_NAME) as db:
        db.execute("DELETE FROM meta WHERE key = 'chunk_context'")
    with Library(make_config(chunking={"title_context": False}), encoder=tiny_encoder) as lib:
        assert lib.sync().chunks_embedded == 0
        assert not [n for n in lib.status().notes if "title" in n]
    with Library(make_config(), encoder=tiny_encoder) as lib:  # the default: title context on
        assert lib.search("harbour crane", mode="dense").hits
        assert any("without their file's title" in n for n in lib.status().notes)


def test_title_context_lets_a_later_passage_answer_for_its_subject(tmp_path, make_config, data_dir, packaged_encoder):
    """The real MiniLM: a passage that never names its subject gets closer to a query about that subject."""
    history = " ".join(f"In {1700 + 10 * i} the island's harbour records list a new trading ship." for i in range(30))
    later = "Pressure from dissolved gas builds in the chamber until the rock above gives way and ash rises for days."
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(f"# Volcanic eruptions\n\n{history}\n\n{later}", encoding="utf-8")
    query = packaged_encoder.encode(["why do volcanoes erupt"])[0]
    cosines = {}
    for on in (False, True):
        cfg = make_config(chunking={"title_context": on})
        with Library(cfg, encoder=packaged_encoder) as lib:
            lib.reindex() if on else lib.add_folder(docs)
        (vec,) = [v for _, t, v in stored(data_dir) if later in t]
        cosines[on] = float(vec @ query)
    assert cosines[True] > cosines[False] + 0.05, cosines
