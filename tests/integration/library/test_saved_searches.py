"""Issue 22: search history (private, clearable, off keeps nothing) and saved searches whose new-hit counts follow
the library ("smart folders"), through the library API and `searchapp saved|history`."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.main import main

TEXTS = {
    "volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
    "draft.txt": "A draft report on volcano safety for the island council.",
    "bread.md": "A recipe for sourdough bread with a long cold proof.",
}


@pytest.fixture
def lib_dir(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')


def cli(capsys, data: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, "--data-dir", str(data)])
    out = capsys.readouterr()
    return code, out.out, out.err


def rows(data: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(data / "searches.sqlite")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def saved_json(capsys, data: Path) -> dict:
    code, out, _ = cli(capsys, data, "saved", "list", "--json")
    assert code == 0
    return {s["name"]: s for s in json.loads(out)["saved"]}


# -- history ---------------------------------------------------------------------
def test_history_newest_first_deduplicated_private_and_clearable(capsys, lib_dir):
    old = os.umask(0o022)
    try:
        for q in ("volcano", "sourdough", "volcano"):
            assert cli(capsys, lib_dir, "search", q, "--mode", "lexical")[0] == 0
    finally:
        os.umask(old)
    if os.name == "posix":
        assert stat.S_IMODE(os.stat(lib_dir / "searches.sqlite").st_mode) == 0o600
    code, out, _ = cli(capsys, lib_dir, "history", "list")
    assert code == 0 and out.splitlines() == ["volcano", "sourdough"]
    code, out, _ = cli(capsys, lib_dir, "history", "list", "--json")
    assert [e["query"] for e in json.loads(out)["history"]] == ["volcano", "sourdough"]
    code, out, _ = cli(capsys, lib_dir, "history", "clear")
    assert code == 0 and out.strip() == "cleared 2 recent queries"
    assert rows(lib_dir, "SELECT * FROM history") == []
    assert cli(capsys, lib_dir, "history", "list")[1] == ""


def test_history_keeps_at_most_the_setting(capsys, lib_dir, monkeypatch):
    monkeypatch.setenv("SEARCHAPP_SEARCH__HISTORY", "2")
    for q in ("one volcano", "two volcano", "three volcano"):
        cli(capsys, lib_dir, "search", q, "--mode", "lexical")
    assert [r[0] for r in rows(lib_dir, "SELECT query FROM history ORDER BY id DESC")] == ["three volcano", "two volcano"]


def test_history_off_keeps_nothing(capsys, lib_dir, monkeypatch):
    monkeypatch.setenv("SEARCHAPP_SEARCH__HISTORY", "0")
    cli(capsys, lib_dir, "search", "volcano", "--mode", "lexical")
    assert not (lib_dir / "searches.sqlite").exists()  # not even an empty file
    # Kept under an earlier setting, then turned off: the next search drops them, and nothing new is kept.
    monkeypatch.setenv("SEARCHAPP_SEARCH__HISTORY", "50")
    cli(capsys, lib_dir, "search", "secret plans", "--mode", "lexical")
    assert rows(lib_dir, "SELECT query FROM history") == [("secret plans",)]
    monkeypatch.setenv("SEARCHAPP_SEARCH__HISTORY", "0")
    cli(capsys, lib_dir, "search", "volcano", "--mode", "lexical")
    assert rows(lib_dir, "SELECT * FROM history") == []
    assert cli(capsys, lib_dir, "history", "list")[1] == ""
    # secure_delete: the cleared text is not left in the file's free pages either
    assert b"secret plans" not in (lib_dir / "searches.sqlite").read_bytes()


def test_history_is_not_recorded_when_the_data_dir_cannot_be_written(tmp_path, tiny_library):
    from dataclasses import replace

    from searchapp.library.query.saved import SearchHistory

    blocked = tmp_path / "not-a-dir"  # a data dir that is a file: nothing can be created under it
    blocked.write_text("x")
    assert SearchHistory(replace(tiny_library.config, data_dir=blocked)).record("volcano", "hybrid") is False


# -- saved searches ----------------------------------------------------------------
def test_new_hits_counted_after_files_arrive_and_reset_when_opened(capsys, lib_dir):
    docs = lib_dir.parent / "docs"
    assert cli(capsys, lib_dir, "saved", "add", "Volcanoes", "volcano -draft", "--mode", "lexical")[0] == 0
    assert cli(capsys, lib_dir, "saved", "add", "Markdown", "type:md")[0] == 0
    before = saved_json(capsys, lib_dir)
    assert before["Volcanoes"]["new_hits"] == 0 and before["Volcanoes"]["hits"] == 1
    assert before["Markdown"]["new_hits"] == 0 and before["Markdown"]["hits"] == 1
    (docs / "eruption.txt").write_text("Another volcano woke up last week.\n")
    (docs / "ash.md").write_text("Volcanic ash notes from the volcano trip.\n")
    (docs / "draft2.txt").write_text("A volcano draft that must stay out.\n")
    assert cli(capsys, lib_dir, "index")[0] == 0
    after = saved_json(capsys, lib_dir)
    assert after["Volcanoes"]["new_hits"] == 2 and after["Volcanoes"]["hits"] == 3  # draft2 is excluded
    assert after["Markdown"]["new_hits"] == 1 and after["Markdown"]["hits"] == 2
    code, out, _ = cli(capsys, lib_dir, "saved", "list")
    assert "Volcanoes\t2 new (3 files)\tlexical\tvolcano -draft" in out.splitlines()
    code, out, _ = cli(capsys, lib_dir, "saved", "run", "Volcanoes", "--json")
    res = json.loads(out)
    assert code == 0 and res["saved"] == "Volcanoes" and res["mode"] == "lexical"
    assert sorted(Path(h["path"]).name for h in res["hits"]) == ["ash.md", "eruption.txt", "volcano.txt"]
    # which of them are the "2 new" (a person saw the count, then ten rows with nothing to tell them apart)
    assert {Path(h["path"]).name: h["new"] for h in res["hits"]} == {"ash.md": True, "eruption.txt": True,
                                                                     "volcano.txt": False}
    opened = saved_json(capsys, lib_dir)
    assert opened["Volcanoes"]["new_hits"] == 0 and opened["Volcanoes"]["opened_at"]
    assert opened["Markdown"]["new_hits"] == 1  # only the one run was opened
    code, out, _ = cli(capsys, lib_dir, "saved", "run", "Markdown")
    placed = [line for line in out.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert sorted((Path(line.split()[1]).name, line.endswith("  [new]")) for line in placed) == [
        ("ash.md", True), ("bread.md", False)], out
    assert "[new]" not in cli(capsys, lib_dir, "saved", "run", "Markdown")[1]  # opened: nothing new any more
    (docs / "eruption.txt").unlink()  # a file leaving the list is not "new"
    assert cli(capsys, lib_dir, "index")[0] == 0
    assert saved_json(capsys, lib_dir)["Volcanoes"]["new_hits"] == 0


def test_saved_run_says_no_reranker_runs_as_search_does(capsys, lib_dir):
    # `search` says it with the day's first search only; `saved run` said it at every run
    assert cli(capsys, lib_dir, "saved", "add", "v", "volcano")[0] == 0
    assert "reranking is disabled" in cli(capsys, lib_dir, "saved", "run", "v")[2]  # no search yet today
    assert cli(capsys, lib_dir, "search", "volcano")[0] == 0
    code, out, err = cli(capsys, lib_dir, "saved", "run", "v")
    assert code == 0 and "volcano.txt" in out and "reranking is disabled" not in err, err


def test_refresh_searches_again_only_after_the_library_changed(lib_dir, tiny_encoder, monkeypatch):
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.query.saved import SavedSearches

    with Library(load_config(lib_dir, env={}), encoder=tiny_encoder) as lib:
        saved = SavedSearches(lib)
        res = saved.add("bread", "sourdough", mode="lexical")
        assert [Path(h.path).name for h in res.hits] == ["bread.md"]
        calls = []
        search = lib.search
        monkeypatch.setattr(lib, "search", lambda *a, **kw: calls.append(a) or search(*a, **kw))
        assert [s.new_hits for s in saved.refresh()] == [0] and calls == []  # nothing written since it was opened
        (lib_dir.parent / "docs" / "rye.txt").write_text("Rye sourdough needs a stiff starter.\n")
        lib.sync()
        assert [s.new_hits for s in saved.refresh()] == [1] and len(calls) == 1
        assert [s.new_hits for s in saved.refresh()] == [1] and len(calls) == 1  # counted once per generation


def test_saved_search_errors_are_one_line(capsys, lib_dir):
    assert cli(capsys, lib_dir, "saved", "add", "v", "volcano", "--mode", "lexical")[0] == 0
    code, _, err = cli(capsys, lib_dir, "saved", "add", "v", "other", "--mode", "lexical")
    assert code == 2 and "a saved search named 'v' exists (`searchapp saved add --replace` replaces it" in err, err
    assert cli(capsys, lib_dir, "saved", "add", "v", "sourdough", "--replace", "--mode", "lexical")[0] == 0
    assert saved_json(capsys, lib_dir)["v"]["query"] == "sourdough"
    code, _, err = cli(capsys, lib_dir, "saved", "run", "nope")
    assert code == 2 and "no saved search named 'nope' (" in err
    for action in ("run", "remove"):  # a name typed in another case, or mistyped, names the saved one
        code, _, err = cli(capsys, lib_dir, "saved", action, "V")
        assert code == 2 and "no saved search named 'V', did you mean 'v'?" in err, err
    code, _, err = cli(capsys, lib_dir, "saved", "add", "  ", "volcano")
    assert code == 2 and "needs a name" in err
    code, _, err = cli(capsys, lib_dir, "saved", "add", "x", "?!")
    assert code == 2 and "needs a query" in err
    code, _, err = cli(capsys, lib_dir, "saved", "remove", "nope")
    assert code == 2


def test_remove_forgets_its_seen_files_and_names_are_printed_escaped(capsys, lib_dir):
    name = "evil\x1b[2Jname"
    assert cli(capsys, lib_dir, "saved", "add", name, "volcano", "--mode", "lexical")[0] == 0
    code, out, _ = cli(capsys, lib_dir, "saved", "list")
    assert "evil\\e[2Jname" in out and "\x1b" not in out
    assert rows(lib_dir, "SELECT count(*) FROM saved_seen") == [(2,)]
    code, out, _ = cli(capsys, lib_dir, "saved", "remove", name)
    assert code == 0 and "\x1b" not in out
    assert rows(lib_dir, "SELECT count(*) FROM saved_seen") == [(0,)]
    assert rows(lib_dir, "SELECT count(*) FROM saved") == [(0,)]


def test_a_read_only_library_lists_saved_searches_but_changes_nothing(capsys, lib_dir, monkeypatch):
    from searchapp.library.resources import data_dir as dd

    assert cli(capsys, lib_dir, "saved", "add", "v", "volcano", "--mode", "lexical")[0] == 0
    before = (lib_dir / "searches.sqlite").read_bytes()
    monkeypatch.setattr(dd, "can_write", lambda p: False)  # a backup or snapshot: opened read-only
    (lib_dir.parent / "docs" / "more.txt").write_text("volcano\n")
    assert saved_json(capsys, lib_dir)["v"]["new_hits"] == 0  # listed as counted; nothing re-counted or written
    code, out, _ = cli(capsys, lib_dir, "saved", "run", "v", "--json")
    assert code == 0 and json.loads(out)["hits"]
    code, _, err = cli(capsys, lib_dir, "saved", "add", "w", "lava")
    assert code == 2 and "read-only" in err
    cli(capsys, lib_dir, "search", "volcano", "--mode", "lexical")
    assert (lib_dir / "searches.sqlite").read_bytes() == before


def test_a_saved_search_whose_folder_moved_says_its_in_is_no_folder_of_the_library(capsys, lib_dir):
    """A saved search naming in:OLD finds nothing once OLD is no folder of the library: `search` says why beside "no
    results" (search/places.py), the window too; `saved run` printed only the empty list, the place note dropped
    (found by a review). `moved` makes it follow (decision 0196); one saved again with the old place is said."""
    docs = lib_dir.parent / "docs"
    assert cli(capsys, lib_dir, "saved", "add", "Volcanoes", f"volcano in:{docs}", "--mode", "lexical")[0] == 0
    new = lib_dir.parent / "papers"
    docs.rename(new)
    code, out, err = cli(capsys, lib_dir, "moved", str(docs), str(new))
    assert code == 0, err
    code, out, err = cli(capsys, lib_dir, "saved", "run", "Volcanoes")
    assert code == 0 and "volcano.txt" in out and "no folder" not in err, err
    assert cli(capsys, lib_dir, "saved", "add", "--replace", "Volcanoes", f"volcano in:{docs}", "--mode",
               "lexical")[0] == 0
    code, out, err = cli(capsys, lib_dir, "saved", "run", "Volcanoes")
    assert code == 0 and "volcano.txt" not in out
    assert f"searchapp: note: in:{docs}: no folder of the library is there or under it (check the path)" in err, err


@pytest.mark.engines("sqlite")
def test_a_copy_of_a_known_hit_is_no_news_and_the_known_file_keeps_the_row(lib_dir, tiny_encoder):
    """A newcomer's saved search said "1 new" for `pdfcopy/testPDF_angles.pdf`, a byte copy of a file it listed, and
    the copy had taken the row: a copy is compared by its content (Hit.copies), and the copy indexed first shows."""
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.query.saved import SavedSearches
    from searchapp.library.search.folding import fold_candidates

    docs = lib_dir.parent / "docs"
    known, copy = docs / "bread.md", docs / "backup" / "bread.md"
    with Library(load_config(lib_dir, env={}), encoder=tiny_encoder) as lib:
        saved = SavedSearches(lib)
        saved.add("bread", "sourdough", mode="lexical")
        saved.add("notes", "type:md")  # a listing by date: the newest copy shows its row
        copy.parent.mkdir()
        copy.write_bytes(known.read_bytes())
        lib.sync()
        assert {s.name: s.new_hits for s in saved.refresh()} == {"bread": 0, "notes": 0}
        hits = saved.run("bread").hits
        assert [(h.path, h.copies, h.new) for h in hits] == [(str(known), [str(copy)], False)]
        assert [(h.path, h.copies, h.new) for h in saved.run("notes").hits] == [(str(copy), [str(known)], False)]
        # the folding's choice whatever order the index found them in (ties of shared passages): the first indexed
        found = [h.chunk_id for h in lib.search("sourdough", mode="lexical", group="passage").hits]
        file_of, rows = lib.store.chunk_files(found), lib.store.chunks(found)
        path_of = {file_of[c]: rows[c].path for c in found}
        order = sorted(found, key=lambda c: rows[c].path != str(copy))  # the copy found first
        folded = fold_candidates(lib.store, "sourdough", order, file_of, {c: rows[c].text for c in found}, path_of)
        assert [path_of[file_of[c]] for c in folded.dropped] == [str(copy)]
