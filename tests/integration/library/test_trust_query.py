"""Hostile and odd queries, and the files beside the library that a search touches: a prefix finds what it
should in every mode; a damaged searches.sqlite is named as such and never puts the library at risk; a page
number past SQLite's integers, a superscript digit, or a query of thousands of operators is a note, not an
error; a tampered OCR cache entry is dropped and the file OCR'd again; name: folds case beyond ASCII."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import build_tiny_library
from scan_files import OCR_ENGINE, needs_rapidocr, text_image
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main

TEXTS = {
    "budget.txt": "The budget for next year was approved by the board.",
    "plan.txt": "Budgeting and planning notes for the spring season.",
    "plants.txt": "Ferns and mosses like the shade; plants need water.",
    "Ärger.txt": "Viel Ärger mit dem Vermieter wegen der Heizung.",
    "draft.txt": "This draft of the volcano report is unfinished.",
    "天气.txt": "今天天气预报说会下雨。",
}


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("trust-query"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


def cli(capsys, data: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, "--data-dir", str(data)])
    out = capsys.readouterr()
    return code, out.out, out.err


def found(capsys, data: Path, query: str, mode: str, *extra: str) -> tuple[list[str], str]:
    code, out, err = cli(capsys, data, "search", query, "--mode", mode, "--json", "--k", "20", *extra)
    assert code == 0, err
    return sorted(Path(h["path"]).name for h in json.loads(out)["hits"]), err


# -- hostile query parts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["page:99999999999999999999999", "page:²", "page:١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩٠١",
                                   "budget page:99999999999999999999999"])
def test_an_impossible_page_number_is_a_note(capsys, lib_dir, query):
    code, out, err = cli(capsys, lib_dir, "search", query, "--mode", "lexical")
    assert code == 0, err
    assert "not a page number" in err and "Traceback" not in err


def test_a_reasonable_page_number_still_works():
    from searchapp.library.query.syntax import parse_query

    assert parse_query("page:12").page == 12 and parse_query("page:٣").page == 3


@pytest.mark.parametrize("query", [
    " OR ".join(f"w{i}" for i in range(601)) + " OR budget",
    " ".join(f'"p{i} q{i}"' for i in range(1100)),
    "budget " + " ".join(f"-x{i}" for i in range(10_000)),
    "budget " + " ".join(f"name:x{i}" for i in range(3000)),
    "budget " + " ".join(f"in:/nowhere/x{i}" for i in range(3000)),
    "budget " + " ".join(f"x{i}*" for i in range(3000)),
])
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_huge_query_is_capped_with_a_note_and_the_rest_searched(capsys, lib_dir, query, mode):
    code, out, err = cli(capsys, lib_dir, "search", query, "--mode", mode, "--json")
    assert code == 0, err[-500:]
    assert "only the first" in err and err.count("only the first") == 1
    res = json.loads(out)
    assert isinstance(res["hits"], list)


def test_the_parts_kept_are_still_enforced(capsys, lib_dir):
    # 5000 exclusions, the first of which excludes plan.txt: it holds; the rest are ignored with a note.
    query = "budget* -planning " + " ".join(f"-x{i}" for i in range(5000))
    names, err = found(capsys, lib_dir, query, "lexical")
    assert names == ["budget.txt"] and "only the first" in err
# -- searches.sqlite damaged ---------------------------------------------------------------------------------
def _scribble_after_first_page(path: Path) -> None:
    """A valid header, garbage behind it: damage SQLite finds only when it reads a table."""
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for i in range(page, len(data)):
        data[i] = 0x5A ^ (i * 7 & 0xFF)
    path.write_bytes(bytes(data))


@pytest.fixture
def damaged_searches(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    assert cli(capsys, data, "search", "budget", "--mode", "lexical")[0] == 0
    assert cli(capsys, data, "saved", "add", "money", "budget", "--mode", "lexical")[0] == 0
    return data


@pytest.mark.parametrize("damage", ["pages", "garbage"])
def test_a_damaged_searches_file_is_named_and_the_library_is_left_alone(capsys, damaged_searches, damage):
    data = damaged_searches
    searches, library = data / "searches.sqlite", data / "library.sqlite"
    if damage == "pages":
        _scribble_after_first_page(searches)
    else:
        searches.write_bytes(b"not a database at all " * 200)
    library_bytes = library.read_bytes()
    # A search still works: history is not recorded, and one line says which file and what to do.
    code, out, err = cli(capsys, data, "search", "budget", "--mode", "lexical")
    assert code == 0 and "budget.txt" in out
    assert err.count("\n") == 1 and str(searches) in err and "move it aside" in err
    assert "library.sqlite" not in err
    for args in (("history", "list"), ("history", "clear"), ("saved", "list"), ("saved", "run", "money"),
                 ("saved", "add", "other", "plants", "--mode", "lexical"), ("saved", "remove", "money")):
        code, out, err = cli(capsys, data, *args)
        assert code != 0 and out == "", args
        assert err.count("\n") == 1 and str(searches) in err and "move it aside" in err, (args, err)
        assert "library.sqlite" not in err, (args, err)
    assert library.read_bytes() == library_bytes  # nothing told the user to set the healthy library aside
    # Moved aside as told: history and saved searches start afresh.
    searches.rename(searches.with_name("searches.sqlite.damaged"))
    assert cli(capsys, data, "search", "budget", "--mode", "lexical")[0] == 0
    assert cli(capsys, data, "history", "list")[1].splitlines() == ["budget"]


# -- the OCR cache ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pages", ["[[1e30, 0, 5]]", "[[1, 0, 1e30]]", "[[1, -5, 3]]", "[[1, 9, 3]]", '[["x", 0, 3]]',
                                   "[[true, 0, 3]]", "[[1, 0]]", '{"a": 1}', "[[99999999999999999999999, 0, 1]]",
                                   "[[1, 0, 3], [1, 2, 4]]", "[[1, 0, 1.5]]"])
def test_a_tampered_ocr_cache_entry_is_dropped(tmp_path, pages):
    from searchapp.base.types import Document, PageSpan
    from searchapp.store.ocr_cache import OcrCache

    cache = OcrCache(tmp_path)
    cache.put("abc", "test", Document("hello world", (PageSpan(1, 0, 5), PageSpan(2, 6, 11)), kind="ocr"))
    assert cache.get("abc").pages == (PageSpan(1, 0, 5), PageSpan(2, 6, 11))
    cache.conn.execute("UPDATE ocr SET pages = ? WHERE sha256 = 'abc'", (pages,))
    cache.conn.commit()
    assert cache.get("abc") is None  # OCR'd again
    assert cache.conn.execute("SELECT count(*) FROM ocr").fetchone()[0] == 0  # and the bad entry is gone


@pytest.mark.parametrize("column, value", [("notes", '"not a list"'), ("notes", "[1, 2]"), ("text", None)])
def test_a_tampered_ocr_cache_text_or_notes_is_dropped(tmp_path, column, value):
    from searchapp.base.types import Document, PageSpan
    from searchapp.store.ocr_cache import OcrCache

    cache = OcrCache(tmp_path)
    cache.put("abc", "test", Document("hello", (PageSpan(1, 0, 5),), kind="ocr", notes=("n",)))
    if value is None:
        cache.conn.execute("UPDATE ocr SET text = zeroblob(4) WHERE sha256 = 'abc'")
    else:
        cache.conn.execute(f"UPDATE ocr SET {column} = ? WHERE sha256 = 'abc'", (value,))  # noqa: S608 (a column named by the test)
    cache.conn.commit()
    assert cache.get("abc") is None


@needs_rapidocr
def test_a_sync_with_a_tampered_ocr_cache_entry_ocrs_the_file_again(tmp_path, tiny_library, monkeypatch):
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.library.ocr import step
    from searchapp.store.ocr_cache import OCR_CACHE_NAME

    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    real, calls = step.available_engine(), []
    assert real is not None

    class Counting:
        name = real.name

        def recognize(self, image, cancel=None) -> str:
            calls.append(1)
            return real.recognize(image, cancel)

    monkeypatch.setattr(step, "available_engine", lambda: Counting())
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(["Lighthouse keeper log", "November storm warning"]).save(docs / "scan.png")
    tiny_library.add_folder(docs)
    assert len(calls) == 1
    cache = sqlite3.connect(tiny_library.config.data_dir / OCR_CACHE_NAME)
    with cache:
        assert cache.execute("UPDATE ocr SET pages = '[[1e30, 0, 5]]'").rowcount == 1
    cache.close()
    shutil.copy(docs / "scan.png", docs / "copy.png")  # the same bytes: read from the cache
    rep = tiny_library.sync()
    assert len(calls) == 2  # the entry was dropped and the file OCR'd again
    hits = tiny_library.search("lighthouse", mode="lexical").hits  # exact copies share a row (`copies`)
    assert {Path(p).name for h in hits for p in (h.path, *h.copies)} == {"scan.png", "copy.png"}
    assert rep.failed == 0 and rep.problems == []
    tiny_library.sync()  # and the next sync is fine too


@pytest.mark.parametrize("damage", ["garbage", "pages"])
def test_a_damaged_ocr_cache_is_named_never_taken_for_the_library(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys,
                                                                   monkeypatch, damage):
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.store.ocr_cache import OCR_CACHE_NAME, OcrCache

    data = build_tiny_library(tmp_path, {"notes.txt": "a note"}, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    monkeypatch.setenv(ENGINE_ENV, "none")  # the cache is read first; no engine is needed to reach it
    cache_path = data / OCR_CACHE_NAME
    if damage == "garbage":
        cache_path.write_bytes(b"not a database at all " * 200)
    else:
        cache = OcrCache(data)
        for i in range(200):
            cache.conn.execute("INSERT INTO ocr VALUES (?, 'x', ?, '[]', '[]')", (f"{i:064d}", "text " * 100))
        cache.conn.commit()
        cache.close()
        _scribble_after_first_page(cache_path)
    text_image(["Lighthouse keeper log"]).save(tmp_path / "docs" / "scan.png")
    library_bytes_before = (data / "library.sqlite").stat().st_size
    code, out, err = cli(capsys, data, "index", str(tmp_path / "docs"))
    assert code == 3 and str(cache_path) in err and "library.sqlite" not in err, err
    assert err.strip().splitlines()[-1].startswith("searchapp: error: the OCR cache")
    assert (data / "library.sqlite").stat().st_size >= library_bytes_before
    # Deleted as told: the next sync goes through.
    cache_path.unlink()
    assert cli(capsys, data, "index", str(tmp_path / "docs"))[0] == 0
# -- prefixes ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query, want", [
    ("budg*", ["budget.txt", "plan.txt"]),  # "budg" is no word of its own
    ("budgeting*", ["budget.txt", "plan.txt"]),  # stemmed as the index stems it
    ("budge* OR mosse*", ["budget.txt", "plan.txt", "plants.txt"]),  # "mosses" is "moss" in the index
    ("verm*", ["Ärger.txt"]),
    ("天*", ["天气.txt"]),
    ("天气*", ["天气.txt"]),
])
def test_a_prefix_finds_every_file_with_a_word_starting_with_it_in_every_mode(capsys, lib_dir, mode, query, want):
    names, _ = found(capsys, lib_dir, query, mode)
    assert names == want


def test_a_prefix_ranks_by_bm25_in_lexical_mode(capsys, lib_dir):
    code, out, _ = cli(capsys, lib_dir, "search", "budg*", "--mode", "lexical", "--json", "--group", "passage")
    assert code == 0
    hits = json.loads(out)["hits"]
    assert len(hits) == 2 and all(h["scores"]["lexical"] > 0 for h in hits)


def test_a_literal_star_is_no_prefix(capsys, lib_dir):
    assert found(capsys, lib_dir, "budg*", "lexical", "--literal")[0] == []


def test_name_folds_case_beyond_ascii(capsys, lib_dir):
    for query in ("name:ärger", "name:ÄRGER", "name:ärger.TXT", "name:*ÄR*"):
        assert found(capsys, lib_dir, query, "lexical")[0] == ["Ärger.txt"], query
    assert found(capsys, lib_dir, "name:budget", "lexical")[0] == ["budget.txt"]




def test_name_matches_a_decomposed_name_and_sharp_s(tiny_library, tmp_path):
    import unicodedata

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / unicodedata.normalize("NFD", "Überweisung.txt")).write_text("Eine Überweisung ans Amt.\n", encoding="utf-8")
    (docs / "STRASSE.txt").write_text("Die Straße ist gesperrt.\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    names = lambda q: sorted(unicodedata.normalize("NFC", Path(h.path).name)  # noqa: E731
                             for h in tiny_library.search(q, k=10, mode="lexical").hits)
    assert names("name:überweisung") == ["Überweisung.txt"]  # typed NFC, stored NFD (as macOS names it)
    assert names("name:ÜBER*") == ["Überweisung.txt"]
    assert names("name:straße") == ["STRASSE.txt"]
    # with or without accents, as a search by words (a newcomer's `name:creme` found nothing, `name:Crème` did)
    (docs / "Crème brûlée.txt").write_text("Recette de la crème brûlée.\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    assert names("name:creme*") == names("name:CRÈME*") == ["Crème brûlée.txt"]
    assert names("name:uberweisung") == ["Überweisung.txt"]
