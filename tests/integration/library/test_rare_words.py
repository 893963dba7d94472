"""A rare word speaks for itself (search/rare_words.py, decision 0162): "BAFA reference" found its only word match, a
German house-log note, 3rd, under a BaFin letter and a Bafta list that sit nearer the query in meaning (MiniLM
does not know "BAFA": its tokenizer reads "ba ##fa") and share no word with it. On both engines, with the real
packaged model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import library_on
from corpus import write_texts

from searchapp.library.search.rare_words import RARE_DF, rare_terms

NOTES = {
    "bafa.txt": ("Haus Tagebuch 2024. Der Gartenzaun wurde im April repariert und die Dachrinnen im Mai gereinigt. "
                 "Der Schornsteinfeger kam am 3. Juni; naechster Termin im Herbst. Wasserzaehler 4312. "
                 "Vorgang 2024-117 BAFA Waermepumpe Zuschuss. Neue Vorhaenge fuer das Wohnzimmer gekauft und den "
                 "Flur gestrichen. Das Auto hatte TUEV, neue Reifen im Oktober."),
    "bafin.txt": "BaFin supervision letter from the federal financial authority.",
    "bafta.txt": "Baf and Bafta awards: the list of nominees.",
    "cite.txt": "A citation index: works cited, sources and quotations.",
    "bib.txt": "Bibliography and citations for chapter two.",
    "thesis.txt": "How to cite sources: citation styles, the bibliography and footnotes for the thesis.",
    "recommend.txt": "Letter of recommendation from my former employer, to attach to job applications.",
    "caseno.txt": "Case number and file number to quote in all correspondence with the authority.",
    "funding.txt": "Federal office for economic affairs and export control (the German funding agency) grant letter.",
    "kfw.txt": "KfW loan confirmation for the renovation of the house, loan id 88421.",
}
QUERY = "BAFA reference"


def _notes(root: Path) -> Path:
    """The notes, bafa.txt the newest (so the meaning pass embeds it first)."""
    docs = write_texts(root / "notes", NOTES)
    for i, name in enumerate(sorted(NOTES, key=lambda n: n == "bafa.txt")):
        os.utime(docs / name, ns=(1_700_000_000_000_000_000 + i * 60 * 10**9,) * 2)
    return docs




def _shown(lib) -> list[tuple[str, str, float, float]]:
    """(file, label, shown score, cosine) of the default top 10."""
    return [(Path(h["path"]).name, h["score_label"], h["score"], h["scores"]["dense"] or 0.0)
            for h in lib.search(QUERY, mode="hybrid", rerank=False).to_json()["hits"]]


def test_the_only_note_holding_a_rare_word_comes_first(engine_address, tmp_path, packaged_encoder):
    with library_on(engine_address, tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(_notes(tmp_path))
        # "reference" no note holds; "bafa" one
        assert rare_terms(lib.store, QUERY, packaged_encoder.reads_whole) == {"bafa"}
        rows = _shown(lib)
        cosine = {name: cos for name, _, _, cos in rows}
        # The case as it is: MiniLM puts two notes that share no word nearer the query than the one that holds it
        assert cosine["bafa.txt"] < min(cosine["bafin.txt"], cosine["bafta.txt"]), rows
        assert rows[0][:2] == ("bafa.txt", "match"), rows
        hits = lib.search(QUERY, mode="hybrid", rerank=False).to_json()["hits"]  # the row says why it is first
        assert [h["rare_word"] for h in hits] == [True] + [False] * (len(hits) - 1), hits


def test_a_word_the_model_knows_or_many_notes_hold_is_not_rare(engine_address, tmp_path, packaged_encoder):
    notes = {f"n{i}.txt": f"Letter {i} about the heat pump Zuschuss." for i in range(RARE_DF + 2)}
    notes["one.txt"] = "A grant for the Waermepumpe, Vorgang 2024-117."
    with library_on(engine_address, tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", notes))
        # counted exactly, or only as far as asked (a shared library reads a term's postings no further)
        assert lib.store.word_counts(["zuschuss", "grant"])[1] == {"zuschuss": RARE_DF + 2, "grant": 1}
        assert lib.store.word_counts(["zuschuss", "grant"], at_most=RARE_DF + 1)[1] == {"zuschuss": RARE_DF + 1,
                                                                                        "grant": 1}
        read = packaged_encoder.reads_whole
        assert read("grant") and not read("waermepumpe") and not read("zuschuss")
        # "grant": one note, but a word MiniLM reads whole; "zuschuss": unknown to it, but four notes hold it;
        # "117": a number (MiniLM holds "117" whole: a digit makes it unknown all the same)
        assert rare_terms(lib.store, "grant zuschuss waermepumpe 2024-117", read) == {"waermepump", "2024", "117"}  # terms, stemmed


@pytest.mark.engines("sqlite")
def test_its_score_only_rises_and_it_stays_first_as_meaning_fills(engine_address, tmp_path, packaged_encoder):
    """Decision 0109's rule for a lifted row, embedded step by step: the BAFA note first, then more notes."""
    from searchapp.library.sync.meaning_pass import embed_pending

    with library_on(engine_address, tmp_path / "library", packaged_encoder, embed_on_search=0) as lib:
        lib.add_folder(_notes(tmp_path), embed=False)
        steps = [_shown(lib)]
        for limit in (1, 1, 2, len(NOTES)):
            with lib._writing("indexing", check_model=False):
                embed_pending(lib.store, packaged_encoder, lib.vectors, batch=1, limit=limit)
            steps.append(_shown(lib))
        assert lib.store.pending_count() == 0
    bafa = [next(r for r in rows if r[0] == "bafa.txt") for rows in steps]
    assert all(rows[0][0] == "bafa.txt" for rows in steps), steps
    assert bafa[0][1] == "words" and all(label == "match" for _, label, _, _ in bafa[1:]), bafa
    shown = [score for _, _, score, _ in bafa[1:]]
    assert shown == sorted(shown) and shown[-1] > shown[0], bafa  # rises as the best cosine among the notes does


def test_a_search_does_not_wait_for_a_syncs_chunking(tmp_path, packaged_encoder):
    """A sync in the window chunks a file with the bi-encoder's tokenizer under its offsets lock (a 100,000-character
    segment a call); asking whether the model knows a query word must not queue a search behind it, as the query's
    own encoding does not (test_index_pipeline.py's bulk lane)."""
    import threading

    with library_on("", tmp_path / "library", packaged_encoder) as lib:
        lib.add_folder(_notes(tmp_path))
        done, rows = threading.Event(), []

        def search():
            rows.extend(_shown(lib))
            done.set()

        with packaged_encoder._offsets_lock:  # held as ChunkingTokenizer.token_bounds holds it for a segment
            t = threading.Thread(target=search, daemon=True)
            t.start()
            finished = done.wait(timeout=120)
        t.join(timeout=120)
    assert finished and rows[0][0] == "bafa.txt", rows
