"""Text repeated across many files (licence footers, signatures, disclaimers) fills at most one row and does not
outrank a file that treats the topic at length; exact copies of a file take one row between them."""

from __future__ import annotations

import json
import shutil

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main
from searchapp.library import Library

FOOTER = "Copyright\n\nThis document has been placed in the public domain."

# Short notes on unrelated subjects, each closed by the same footer (as PEPs, mailing-list posts, manuals are).
NOTES = [
    "Generators pause at each yield and resume where they stopped, so a long sequence is produced lazily.",
    "A context manager releases its resource in __exit__ even when the block raises an exception.",
    "Type hints document what a function accepts; the interpreter does not check them at run time.",
    "The garbage collector finds reference cycles that reference counting alone never frees.",
    "Keyword-only arguments follow a bare star in the parameter list and must be passed by name.",
    "A frozen dataclass refuses assignment to its fields after construction and can be hashed.",
    "The walrus operator assigns a value inside an expression, handy in a while loop condition.",
    "Structural pattern matching compares a subject against patterns of literals, sequences and classes.",
    "Decorators wrap a function in another one, for caching, logging or registering handlers.",
    "The import system searches sys.path entries with finders and loads modules with loaders.",
    "Unicode strings hold code points; bytes are encoded with UTF-8 before they are written out.",
    "An asyncio event loop runs coroutines that await sockets and timers without extra threads.",
    "A virtual environment keeps each project's installed packages apart from the system ones.",
    "Exception groups let concurrent tasks report several failures at once, handled with except star.",
    "The format mini-language pads, aligns and rounds numbers inside f-strings and str.format.",
    "Slots replace an instance dictionary with fixed attributes and save memory for small objects.",
    "The pickle format can run code when loaded, so it must never read data from untrusted sources.",
    "Path objects join, split and glob file names on every operating system the same way.",
    "The enum module gives named constants that compare by identity and print their names.",
    "A deque appends and pops at both ends in constant time, unlike a list at its front.",
]

# Two long documents that treat the footer's topic (who owns culture, copyright and creativity) at length.
FREE_CULTURE = "\n\n".join([
    "Free Culture: how big media uses technology and the law to lock down culture and control creativity.",
    "Copyright law once regulated only publishers who copied whole works; today it reaches almost every use "
    "of culture, because every use of a digital work makes a copy.",
    "Who owns culture? For most of history creators built freely on the work of those before them: Disney "
    "took the Brothers Grimm, and the public domain fed the next generation of creativity.",
    "Each extension of the copyright term keeps works out of the public domain for decades, so the culture of "
    "the last century belongs to a few owners rather than to the creators who would build on it.",
    "A remix culture depends on the freedom to borrow. When copyright law treats every borrowing as theft, "
    "creativity is permitted only to those who can afford lawyers and licences.",
    "The balance between rewarding authors and keeping culture free is what copyright law was meant to strike; "
    "the question of who owns culture decides how much creativity the law leaves room for.",
])
COMMONS = "\n\n".join([
    "The Commons of the Mind: copyright, ownership of ideas and the creativity of a free culture.",
    "Intellectual property law grants authors a limited monopoly so that creativity is rewarded, yet culture "
    "grows from shared ideas that nobody can own.",
    "When copyright lasts for generations, the law stops serving creativity and starts serving the owners of old "
    "catalogues; culture becomes a set of licences instead of a commons.",
    "Courts weigh fair use to decide how far copyright law lets critics, teachers and artists quote the culture "
    "they answer, and each ruling shapes the creativity of the next generation.",
])
QUERY = "who owns culture and how copyright law affects creativity"


@pytest.fixture(scope="module")
def lib(tmp_path_factory, packaged_encoder):
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("boilerplate")
    docs = root / "docs"
    docs.mkdir()
    for i, note in enumerate(NOTES):
        (docs / f"pep-{i:04d}.txt").write_text(f"PEP {i}\n\n{note}\n\n{FOOTER}\n", encoding="utf-8")
    (docs / "free-culture.txt").write_text(FREE_CULTURE + "\n", encoding="utf-8")
    (docs / "commons-of-the-mind.txt").write_text(COMMONS + "\n", encoding="utf-8")
    # An exact copy, as a download saved twice: "tracemonkey.pdf" and "tracemonkey (1).pdf".
    (docs / "deque.txt").write_text("A deque appends and pops at both ends in constant time; a ring buffer of "
                                     "blocks holds its items.\n", encoding="utf-8")
    shutil.copy(docs / "deque.txt", docs / "deque (1).txt")
    cfg = load_config(root / "library", env={}, overrides={"search": {"rerank": False}})
    library = Library(cfg, encoder=packaged_encoder)
    library.add_folder(docs)
    library.root = root
    yield library
    library.close()


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_a_footer_common_to_many_files_takes_one_row(lib, mode):
    hits = lib.search(QUERY, mode=mode, k=10).hits
    names = [_name(h.path) for h in hits]
    footer_rows = [h for h in hits if h.path.rsplit("/", 1)[-1].startswith("pep-")]
    assert len(footer_rows) <= 1, names
    if footer_rows:
        assert footer_rows[0].common_to == len(NOTES), footer_rows[0].common_to  # counted in the whole library
    # The files that treat the topic at length come first.
    assert set(names[:2]) == {"free-culture.txt", "commons-of-the-mind.txt"}, names


def test_a_file_whose_own_words_match_keeps_its_row(lib):
    """The footer is only part of each note: a note found by its own words is an ordinary row."""
    hits = lib.search("generators yield lazily", mode="hybrid", k=5).hits
    assert _name(hits[0].path) == "pep-0000.txt"
    assert hits[0].common_to == 0
    both = lib.search("context manager exception garbage collector reference cycles", mode="hybrid", k=10).hits
    names = [_name(h.path) for h in both]
    assert "pep-0001.txt" in names and "pep-0003.txt" in names, names


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_shown_scores_never_rise_down_the_list(lib, mode):
    for query in (QUERY, "public domain document", "deque constant time"):
        values = [h.shown_score[0] for h in lib.search(query, mode=mode, k=10).hits]
        assert values == sorted(values, reverse=True), (query, values)


def test_reranked_repeated_text_keeps_half_its_relevance(lib, tiny_cross_encoder_dir):
    """With a reranker the row of repeated text is weighed as in hybrid: it shows and is ordered by half the
    cross-encoder's probability, its logit untouched, and the shown score still never rises down the list."""
    import math

    from searchapp.models import CrossEncoder

    lib.models.loaded_reranker = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu")
    try:
        res = lib.search("public domain document copyright", mode="lexical", rerank=True, k=10)
    finally:
        lib.models.loaded_reranker = None
    assert res.reranked
    common = [h for h in res.hits if h.common_to]
    assert len(common) == 1, [(h.path, h.common_to) for h in res.hits]
    h = common[0]
    assert h.scores.rerank == pytest.approx(0.5 / (1.0 + math.exp(-h.scores.rerank_logit)))
    values = [x.shown_score[0] for x in res.hits]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_exact_copies_take_one_row(lib, mode):
    hits = lib.search("deque ring buffer of blocks", mode=mode, k=5).hits
    names = [_name(h.path) for h in hits]
    assert names.count("deque.txt") + names.count("deque (1).txt") == 1, names
    row = next(h for h in hits if _name(h.path) in ("deque.txt", "deque (1).txt"))
    assert [_name(p) for p in row.copies] == ["deque (1).txt" if _name(row.path) == "deque.txt" else "deque.txt"]


def test_group_passage_keeps_every_row(lib):
    """--group passage is the list of every passage: nothing folded there."""
    hits = lib.search("deque ring buffer of blocks", mode="lexical", k=5, group="passage").hits
    names = [_name(h.path) for h in hits]
    assert "deque.txt" in names and "deque (1).txt" in names


def test_fold_off_gives_the_list_as_before(lib):
    from dataclasses import replace

    saved = lib.config
    lib.config = replace(saved, search=replace(saved.search, fold_repeats=False))
    try:
        hits = lib.search(QUERY, mode="lexical", k=10).hits
    finally:
        lib.config = saved
    assert sum(_name(h.path).startswith("pep-") for h in hits) > 1
    assert all(h.common_to == 0 and not h.copies for h in hits)


def _cli(lib, capsys, *args):
    code = main(["--data-dir", str(lib.data_dir), "search", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_cli_and_json_say_common_to_and_copies(lib, capsys):
    out = _cli(lib, capsys, QUERY, "--no-rerank", "--mode", "lexical")
    assert f"common to {len(NOTES)} files" in out
    out = _cli(lib, capsys, "deque ring buffer of blocks", "--no-rerank", "--k", "3")
    assert "+1 copy:" in out
    js = json.loads(_cli(lib, capsys, "deque ring buffer of blocks", "--no-rerank", "--k", "3", "--json"))
    top = js["hits"][0]
    assert top["copies"] and top["common_to"] == 0
    assert {"path", "page", "start", "end", "text", "scores", "ranks", "more", "score", "score_label"} <= set(top)
    js = json.loads(_cli(lib, capsys, QUERY, "--no-rerank", "--mode", "lexical", "--json"))
    assert [h["common_to"] for h in js["hits"] if h["common_to"]] == [len(NOTES)]


def test_gui_model_shows_common_to_and_copies(lib, qtbot):
    pytest.importorskip("pytestqt")
    from searchapp.gui.results_model import ResultsModel

    model = ResultsModel()
    hits = lib.search(QUERY, mode="lexical", k=10).hits + lib.search("deque ring buffer of blocks", k=1).hits
    model.set_hits(hits, ["copyright"])
    col = ResultsModel.COLUMNS.index
    common = next(i for i, h in enumerate(hits) if h.common_to)
    assert model.index(common, col("More")).data().endswith(f"common to {len(NOTES)} files")
    assert "common to" in model.index(common, col("More")).data(0x3)  # ToolTipRole
    last = len(hits) - 1
    assert model.index(last, col("More")).data() == "+1 copy"
    tip = model.index(last, col("More")).data(0x3)
    assert "deque" in tip and "<" not in tip.replace("<qt>", "").replace("</qt>", "").replace("<br>", "")
    # The More column is on screen when a row has only copies to show.
    from PySide6.QtWidgets import QTableView

    from searchapp.gui.results_view import fit_columns

    copy_only = ResultsModel()
    copy_only.set_hits(hits[-1:], [])
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(copy_only)
    fit_columns(view)
    assert not hits[-1].more and not view.isColumnHidden(col("More"))
