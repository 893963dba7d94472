"""Exact copies share one row in results by file (folding.py), and the row goes to a copy that can be opened: a
folder indexed, renamed and indexed again under its new name (or a backup drive indexed first and now unplugged)
must not hide every readable file behind its missing copy."""

from __future__ import annotations

import json
import os
import shutil

import pytest

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


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_copy_that_can_be_opened_takes_the_row(moved, mode):
    lib, home, myhome = moved
    hits = lib.search("ratatouille aubergines courgettes", mode=mode, k=4, rerank=False).hits
    recipe = [h for h in hits if h.path.endswith("recette_ratatouille.md")]
    assert len(recipe) == 1, [h.path for h in hits]
    row = recipe[0]
    assert row.path == str(myhome / "Documents/recette_ratatouille.md") and row.available, (row.path, row.unavailable)
    missing = str(home / "Documents/recette_ratatouille.md")
    assert row.copies == [missing]
    assert row.copies_unavailable == {missing: "file or folder missing"}  # listed among its copies, marked
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


def test_with_no_copy_to_open_the_first_keeps_the_row(moved):
    """Both folders gone (a backup drive and the home it copied, say): the row stays, marked unavailable."""
    lib, home, myhome = moved
    shutil.rmtree(myhome)
    hits = lib.search("ratatouille aubergines courgettes", mode="lexical", k=4, rerank=False).hits
    recipe = [h for h in hits if h.path.endswith("recette_ratatouille.md")]
    assert len(recipe) == 1 and not recipe[0].available
    assert recipe[0].path == str(home / "Documents/recette_ratatouille.md")
    assert recipe[0].copies_unavailable == {p: "file or folder missing" for p in recipe[0].copies}
