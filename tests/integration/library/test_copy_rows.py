"""Exact copies share one row in results by file (folding.py), and the row goes to a copy that can be opened: a
folder indexed, renamed and indexed again under its new name (or a backup drive indexed first and now unplugged)
must not hide every readable file behind its missing copy."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from searchapp.base.member_paths import MEMBER_SEP, member_key
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main

RECIPE = ("# Ratatouille\n\nCouper les aubergines, les courgettes, les poivrons et les tomates en dés. Faire revenir "
          "chaque légume séparément dans l'huile d'olive, puis mijoter ensemble.\n")
OTHERS = {
    "notes/starter.md": "# Rye starter rescue\n\nMy starter smelled of acetone; discard half and feed twice daily.\n",
    "notes/bikes.md": "# Bicycle chain\n\nClean the chain with a rag and oil every link before winter.\n",
    "notes/taxes.md": "# Tax return\n\nKeep the receipts of the year in one folder for the accountant.\n",
}


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def moved(tiny_library, tmp_path):
    """`index ~/home`, `mv home myhome`, `index myhome`: every file of myhome has a copy on a missing folder,
    indexed first (so found first among equal scores)."""
    home, myhome = tmp_path / "home", tmp_path / "myhome"
    _write(home, {"Documents/recette_ratatouille.md": RECIPE, **OTHERS})
    tiny_library.add_folder(home)
    os.rename(home, myhome)
    tiny_library.add_folder(myhome)
    return tiny_library, home, myhome


def _one_row(lib, query: str, mode: str, name: str):
    """(the one row among a search's top 4 whose file is `name`: its copies share it (asserted), the top 4)."""
    hits = lib.search(query, mode=mode, k=4, rerank=False).hits
    rows = [h for h in hits if h.path.endswith(name)]
    assert len(rows) == 1, [h.path for h in hits]
    return rows[0], hits


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_copy_that_can_be_opened_takes_the_row(moved, mode):
    lib, home, myhome = moved
    row, hits = _one_row(lib, "ratatouille aubergines courgettes", mode, "recette_ratatouille.md")
    assert row.path == str(myhome / "Documents/recette_ratatouille.md") and row.available, (row.path, row.unavailable)
    missing = str(home / "Documents/recette_ratatouille.md")
    assert row.copies == [missing]
    assert row.copies_unavailable == {missing: "file or folder missing"}  # listed among its copies, marked
    # its passage and its copy's tie: the row is not "#2" in a stage above no #1 (the folded copy's rank)
    assert mode == "dense" or row.ranks.lexical == 1, row.ranks
    # every row is readable: no file of the missing folder hides its copy
    assert all(h.available for h in hits), [(h.path, h.unavailable) for h in hits]


@pytest.mark.engines("sqlite")  # the command line on the data dir's library
def test_the_json_marks_the_copy_that_cannot_be_opened(moved, capsys):
    lib, home, myhome = moved
    code = main(["--data-dir", str(lib.data_dir), "search", "ratatouille aubergines", "--k", "1", "--no-rerank",
                 "--mode", "lexical", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    top = json.loads(out)["hits"][0]
    missing = str(home / "Documents/recette_ratatouille.md")
    assert top["path"] == str(myhome / "Documents/recette_ratatouille.md") and top["available"] is True
    assert top["copies"] == [missing] and top["copies_unavailable"] == {missing: "file or folder missing"}
    assert main(["--data-dir", str(lib.data_dir), "search", "ratatouille aubergines", "--k", "1", "--no-rerank",
                 "--mode", "lexical"]) == 0
    assert f"+1 copy: {missing} [unavailable: file or folder missing]" in capsys.readouterr().out  # as a hit says


def test_with_no_copy_to_open_the_first_keeps_the_row(moved):
    """Both folders gone (a backup drive and the home it copied, say): the row stays, marked unavailable."""
    lib, home, myhome = moved
    shutil.rmtree(myhome)
    hits = lib.search("ratatouille aubergines courgettes", mode="lexical", k=4, rerank=False).hits
    recipe = [h for h in hits if h.path.endswith("recette_ratatouille.md")]
    assert len(recipe) == 1 and not recipe[0].available
    assert recipe[0].path == str(home / "Documents/recette_ratatouille.md")
    assert recipe[0].copies_unavailable == {p: "file or folder missing" for p in recipe[0].copies}


# -- a listing by date (a query of only operators and fields, newest first): the same folding --------------------

PAPER = "# Trace trees\n\nA tracing JIT records hot loops and compiles them to machine code with type guards.\n"


@pytest.fixture
def dated(tiny_library, tmp_path):
    """Markdown notes, newest first: new.md, `paper (1).md` (a download saved twice), paper.md, other.md, old.md,
    and paper.md again as a mail attachment's twin in an archive (a member, as contract.eml › contract.pdf)."""
    import zipfile

    docs = tmp_path / "docs"
    _write(docs, {"new.md": "# New\n\nThe newest note about bicycles.\n", "paper (1).md": PAPER, "paper.md": PAPER,
                  "other.md": OTHERS["notes/taxes.md"], "old.md": OTHERS["notes/bikes.md"]})
    with zipfile.ZipFile(docs / "saved.zip", "w") as z:
        z.writestr("attached/paper.md", PAPER)
    for age, name in enumerate(["new.md", "paper (1).md", "paper.md", "other.md", "old.md", "saved.zip"]):
        os.utime(docs / name, (1_700_000_000 - 3600 * age, 1_700_000_000 - 3600 * age))
    tiny_library.add_folder(docs)
    return tiny_library, docs


def _names(hits):
    return [h.path.rsplit("/", 1)[-1] for h in hits]


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_listing_by_date_shows_each_content_once(dated, mode):
    lib, docs = dated
    res = lib.search(f"type:md in:{docs}", mode=mode, k=3, rerank=False)
    assert "newest" in res.notice
    assert _names(res.hits) == ["new.md", "paper (1).md", "other.md"]  # k rows, k contents
    row = res.hits[1]
    assert row.copies == [str(docs / "paper.md"), member_key(str(docs / "saved.zip"), "attached/paper.md")]
    assert [h.ranks.final for h in res.hits] == [1, 2, 3]
    every = lib.search(f"type:md in:{docs}", mode=mode, k=10, rerank=False).hits
    assert _names(every) == ["new.md", "paper (1).md", "other.md", "old.md"]


def test_a_listing_asks_again_while_copies_fill_it(tiny_library, tmp_path):
    """Five copies are the five newest files: a listing of 2 is still 2 contents (asked again, wider)."""
    docs = tmp_path / "many"
    _write(docs, {**{f"copy{i}.md": PAPER for i in range(5)}, "a.md": OTHERS["notes/taxes.md"],
                  "b.md": OTHERS["notes/bikes.md"]})
    for age, name in enumerate([*(f"copy{i}.md" for i in range(5)), "a.md", "b.md"]):
        os.utime(docs / name, (1_700_000_000 - 3600 * age, 1_700_000_000 - 3600 * age))
    tiny_library.add_folder(docs)
    hits = tiny_library.search("type:md", mode="lexical", k=2).hits
    assert _names(hits) == ["copy0.md", "a.md"] and len(hits[0].copies) == 4


def test_a_listing_by_passage_and_fold_off_keep_every_file(dated):
    from dataclasses import replace

    lib, docs = dated
    passages = lib.search(f"type:md in:{docs}", mode="lexical", k=10, group="passage").hits
    assert "paper.md" in _names(passages) and "paper (1).md" in _names(passages)
    saved = lib.config
    lib.config = replace(saved, search=replace(saved.search, fold_repeats=False))
    try:
        hits = lib.search(f"type:md in:{docs}", mode="lexical", k=3).hits
    finally:
        lib.config = saved
    assert _names(hits) == ["new.md", "paper (1).md", "paper.md"] and not any(h.copies for h in hits)


@pytest.mark.engines("sqlite")  # saved searches of the data dir's library
def test_a_saved_listing_shows_each_content_once(dated):
    from searchapp.library.query.saved import SavedSearches

    lib, docs = dated
    res = SavedSearches(lib).add("notes", f"type:md in:{docs}", mode="lexical", k=3)
    assert _names(res.hits) == ["new.md", "paper (1).md", "other.md"]


def test_a_listing_shows_the_copy_that_can_be_opened(moved):
    lib, home, myhome = moved
    hits = lib.search("type:md", mode="lexical", k=10).hits
    assert len(hits) == 4 and all(h.available and h.path.startswith(str(myhome)) for h in hits), \
        [(h.path, h.unavailable) for h in hits]
    assert all(h.copies == [str(home / os.path.relpath(h.path, myhome))] for h in hits)
    assert all(h.copies_unavailable == {h.copies[0]: "file or folder missing"} for h in hits)


def test_a_listing_places_a_row_by_the_date_of_the_copy_it_shows(tiny_library, tmp_path):
    """The newest copy of a content gone (its file deleted, or its drive unplugged, since the sync): the row goes to
    an older copy that can be opened, and stands where that copy's date puts it. It stood at the gone copy's place,
    above a file newer than the copy it showed: the window's Date column read out of order."""
    docs = tmp_path / "docs"
    _write(docs, {"paper-new.md": PAPER, "taxes.md": OTHERS["notes/taxes.md"], "paper-old.md": PAPER,
                  "bikes.md": OTHERS["notes/bikes.md"]})
    for age, name in enumerate(["paper-new.md", "taxes.md", "paper-old.md", "bikes.md"]):  # newest first
        os.utime(docs / name, (1_700_000_000 - 3600 * age, 1_700_000_000 - 3600 * age))
    tiny_library.add_folder(docs)
    (docs / "paper-new.md").unlink()
    hits = tiny_library.search("type:md", mode="lexical", k=10).hits
    assert _names(hits) == ["taxes.md", "paper-old.md", "bikes.md"]
    assert hits[1].copies_unavailable == {str(docs / "paper-new.md"): "file or folder missing"}
    dates = [h.date_ns for h in hits]
    assert dates == sorted(dates, reverse=True)  # as shown: each row's own date, newest first
    assert _names(tiny_library.search("type:md", mode="lexical", k=2).hits) == ["taxes.md", "paper-old.md"]


def test_a_copy_on_an_empty_mount_point_gives_the_row_to_one_that_can_be_opened(tiny_library, tmp_path):
    """An unplugged drive often leaves its mount point as an empty folder (/mnt/backup in fstab): the sync calls
    that root missing ("empty (not mounted?)"), and so must the row's choice (found by a review)."""
    backup, docs = tmp_path / "mnt_backup", tmp_path / "docs"
    _write(backup, {"report.md": RECIPE})
    _write(docs, {"report.md": RECIPE})
    tiny_library.add_folder(backup)  # indexed first: found first among equal scores
    tiny_library.add_folder(docs)
    (backup / "report.md").unlink()  # the drive unmounted: its mount point stays, empty
    hit = tiny_library.search("ratatouille aubergines", mode="lexical").hits[0]
    assert hit.path == str(docs / "report.md") and hit.available
    assert hit.copies == [str(backup / "report.md")]


# -- which copy shows the row: a file on disk before a member of a container ------------------------------------

HEAT = "# Heat pump\n\nThe heat pump defrosts its outdoor coil every hour in winter; bleed the radiators in autumn.\n"


def _zip(path, members):
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)


@pytest.fixture
def zipped(tiny_library, tmp_path):
    """A note kept as a file (Notes/heat-pump.md) and in two archives (Downloads/archive.zip › notes/heat-pump.md,
    and nested.zip › inner.zip › heat-pump.md): the archives' folder indexed first, so found first."""
    import io
    import zipfile

    downloads, notes = tmp_path / "Downloads", tmp_path / "Notes"
    _zip(downloads / "archive.zip", {"notes/heat-pump.md": HEAT})
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("heat-pump.md", HEAT)
    _zip(downloads / "nested.zip", {"inner.zip": inner.getvalue()})
    _write(notes, {"heat-pump.md": HEAT, **OTHERS})
    tiny_library.add_folder(downloads)
    tiny_library.add_folder(notes)
    return tiny_library, downloads, notes


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_file_on_disk_shows_the_row_before_a_member_of_an_archive(zipped, mode):
    lib, downloads, notes = zipped
    row, _ = _one_row(lib, "heat pump defrosts outdoor coil", mode, "heat-pump.md")
    assert row.path == str(notes / "heat-pump.md"), row.path  # it opens directly
    assert len(row.copies) == 2 and all("archive.zip" in p or "nested.zip" in p for p in row.copies)


def test_a_member_that_can_be_opened_shows_the_row_before_a_missing_file(zipped):
    """Readable first: the file on disk gone since the sync, the row goes to a member rather than to it."""
    lib, downloads, notes = zipped
    (notes / "heat-pump.md").unlink()
    row = next(h for h in lib.search("heat pump defrosts outdoor coil", mode="lexical", k=4).hits
               if h.path.endswith("heat-pump.md"))
    assert row.path == member_key(str(downloads / "archive.zip"), "notes/heat-pump.md") and row.available
    assert row.copies_unavailable == {str(notes / "heat-pump.md"): "file or folder missing"}


def test_a_listing_shows_the_file_on_disk_at_its_own_date(tiny_library, tmp_path):
    """By date the archive is the newest copy; the row is the file on disk, placed by the file's own date."""
    docs = tmp_path / "docs"
    _zip(docs / "archive.zip", {"notes/heat-pump.md": HEAT})
    _write(docs, {"taxes.md": OTHERS["notes/taxes.md"], "heat-pump.md": HEAT, "bikes.md": OTHERS["notes/bikes.md"]})
    for age, name in enumerate(["archive.zip", "taxes.md", "heat-pump.md", "bikes.md"]):  # newest first
        os.utime(docs / name, (1_700_000_000 - 3600 * age, 1_700_000_000 - 3600 * age))
    tiny_library.add_folder(docs)
    hits = tiny_library.search("type:md", mode="lexical", k=10).hits
    assert _names(hits) == ["taxes.md", "heat-pump.md", "bikes.md"], [h.path for h in hits]
    assert hits[1].path == str(docs / "heat-pump.md")
    assert hits[1].copies == [member_key(str(docs / "archive.zip"), "notes/heat-pump.md")]
    dates = [h.date_ns for h in hits]
    assert dates == sorted(dates, reverse=True)  # each row at its own date
    # The file on disk past the files the listing reads first (2 k; 3 k and at least 30 folding near copies: a
    # newcomer's `type:rtf` showed `test-documents.tgz › testRTF.rtf`, the file on disk listed as its copy): the
    # row is the file's, at its own date, not the member's
    from searchapp.library.search.constraints import constraint_scope, list_by_date, parse_for_search

    parsed = parse_for_search("type:md", literal=False)
    for k, names in ((1, ["taxes.md"]), (2, ["taxes.md", "heat-pump.md"])):
        rows = list_by_date(tiny_library.store, constraint_scope(tiny_library.store, parsed, None), k, "file",
                            fold_near=False)
        assert _names(rows) == names and all(MEMBER_SEP not in h.path for h in rows), [h.path for h in rows]


# -- the copies of a row are those in the search's scope ---------------------------------------------------------

BREAD = "# Pain au levain\n\nPétrir la farine, l'eau et le levain, laisser pousser une nuit, cuire au four très chaud.\n"


@pytest.fixture
def scoped(tiny_library, tmp_path):
    """The same recipe in Notes (indexed first: found first) and twice in Recipes."""
    notes, recipes = tmp_path / "Notes", tmp_path / "Recipes"
    _write(notes, {"recette-pain.txt": BREAD, **OTHERS})
    _write(recipes, {"recette-pain.txt": BREAD, "old/recette-pain.txt": BREAD})
    tiny_library.add_folder(notes)
    tiny_library.add_folder(recipes)
    return tiny_library, notes, recipes


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_an_in_search_shows_and_lists_only_copies_in_its_folder(scoped, mode):
    lib, notes, recipes = scoped
    hits = lib.search(f"levain farine in:{recipes}", mode=mode, k=4, rerank=False).hits
    assert len(hits) == 1, [h.path for h in hits]
    assert hits[0].path == str(recipes / "old/recette-pain.txt") or hits[0].path == str(recipes / "recette-pain.txt")
    assert hits[0].copies == [p for p in (str(recipes / "old/recette-pain.txt"), str(recipes / "recette-pain.txt"))
                              if p != hits[0].path]  # Notes/recette-pain.txt is outside the search: not listed
    everywhere = lib.search("levain farine", mode=mode, k=4, rerank=False).hits
    bread = [h for h in everywhere if h.path.endswith("recette-pain.txt")]
    assert len(bread) == 1 and len(bread[0].copies) == 2  # without the scope every copy is listed


def test_a_filtered_listing_lists_only_copies_in_its_folder(scoped):
    lib, notes, recipes = scoped
    hits = lib.search(f"type:txt in:{recipes}", mode="lexical", k=10).hits
    assert len(hits) == 1 and hits[0].path.startswith(str(recipes))
    assert len(hits[0].copies) == 1 and hits[0].copies[0].startswith(str(recipes))
