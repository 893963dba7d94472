"""The score inspector says, in plain text, how a row's score reads while meaning fills (decision 0109)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.gui.results_model import WORDS_ONLY, ResultsModel, score_text, score_tooltip
from searchapp.gui.score_inspector import SCORE_RULE, ScoreInspector, why_text


def test_the_inspector_states_the_rule_and_a_words_row_says_it_has_no_meaning_yet(qtbot):
    inspector = ScoreInspector()
    qtbot.addWidget(inspector)
    # one line (wrapped, the rule left the table two rows at 1280x800), the whole of it on hover
    assert inspector.rule.full_text() == SCORE_RULE and inspector.rule.textFormat() == Qt.TextFormat.PlainText
    assert not inspector.rule.wordWrap() and "(cosine)" in inspector.rule.toolTip()
    assert '"words"' in SCORE_RULE and '"match"' in SCORE_RULE
    row = Hit(chunk_id=1, path="/d/a.txt", page=None, start=0, end=4, text="text",
              scores=StageScores(lexical=7.5, fused=0.9, words=0.75), ranks=StageRanks(lexical=2, fused=1, final=1),
              order_label="words")
    assert score_text(row) == "words 0.75"  # its words alone, not the fused 0.90 that ordered it
    assert "no meaning (vector) yet" in score_tooltip(row)
    assert "no meaning yet: shows its words alone, 0.75" in why_text(row)


def test_a_words_score_is_greyed_beside_match_scores_so_two_scales_do_not_read_as_one(qtbot):
    """A newcomer read "words 0.95" below "match 0.57" as a wrong order: the words score is on another scale (its
    file has no meaning yet), so the table shows it greyed and in italics; a match score keeps the table's look."""
    words = Hit(chunk_id=1, path="/d/a.txt", page=None, start=0, end=4, text="text",
                scores=StageScores(lexical=7.5, fused=0.4, words=0.95), ranks=StageRanks(lexical=1, fused=2, final=2),
                order_label="words")
    match = Hit(chunk_id=2, path="/d/b.txt", page=None, start=0, end=4, text="text",
                scores=StageScores(dense=0.6, lexical=3.0, fused=0.57), ranks=StageRanks(dense=1, fused=1, final=1),
                order_label="match")
    model = ResultsModel()
    model.set_hits([match, words], ["text"])
    col = ResultsModel.COLUMNS.index("Score")
    fg, font = Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole
    assert [model.index(r, col).data() for r in (0, 1)] == ["match 0.57", "words 0.95"]
    assert model.index(1, col).data(fg) == WORDS_ONLY and model.index(1, col).data(font).italic()
    assert model.index(0, col).data(fg) is None and model.index(0, col).data(font) is None
    assert model.index(1, ResultsModel.COLUMNS.index("File")).data(fg) is None  # the mark is the score's alone
    # greyed, "words 0.81" under "match 0.70" still read as a wrong order (n7): the header names the two scales
    horizontal, tip = Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
    assert model.headerData(col, horizontal) == "Score (2 scales)"
    assert "not comparable" in model.headerData(col, horizontal, tip)
    model.set_hits([match], ["text"])  # one scale: the plain header
    assert model.headerData(col, horizontal) == "Score" and model.headerData(col, horizontal, tip) is None
    model.set_hits([words], ["text"])
    assert model.headerData(col, horizontal) == "Score"


def test_the_inspector_calls_the_shown_score_match_as_the_results_do(qtbot):
    """The Score column said "match 0.66" and the inspector "fused 0.662" for the same number (a newcomer, n7): one
    word for one score, the one docs/cli.md explains; how it is made is said beside it."""
    from searchapp.gui.score_table import ScoreTable

    hit = Hit(chunk_id=4, path="/d/quote.txt", page=None, start=0, end=4, text="text",
              scores=StageScores(dense=0.6, lexical=3.0, fused=0.662),
              ranks=StageRanks(dense=1, lexical=1, fused=1, final=1), order_label="match")
    assert score_text(hit) == "match 0.66"
    assert "; match 0.662 (meaning and words fused) → #1" in why_text(hit) and "fused 0.662" not in why_text(hit)
    table = ScoreTable()
    qtbot.addWidget(table)
    table.set_hits([hit])
    headers = [table.horizontalHeaderItem(j).text() for j in range(table.columnCount())]
    col = headers.index("match")
    assert "fused" not in headers and not table.isColumnHidden(col) and table.item(0, col).text().startswith("0.662")
    assert "match (meaning and words fused): 0.662" in table.item(0, col).toolTip()


def test_a_file_listed_first_for_its_name_says_so_in_the_table_and_the_inspector(qtbot):
    """A name typed that no passage holds lists the files named like it first (search/named.py): unscored, so the
    table's score would be blank and the inspector would call it "listed by date"."""
    named = Hit(chunk_id=3, path="/d/testMSChart.xls", page=None, start=0, end=4, text="text",
                ranks=StageRanks(final=1), named=True)
    model = ResultsModel()
    model.set_hits([named], ["testMSChart"])
    cell = model.index(0, ResultsModel.COLUMNS.index("Score"))
    assert cell.data() == "name" and "Listed first for its name" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert "its name is like the query" in why_text(named) and "by date" not in why_text(named)


def test_a_weak_row_is_greyed_and_says_why(qtbot):
    """A row that shares no word and is far in meaning (search/weak.py) is the nearest there is, not an answer."""
    from searchapp.gui.results_model import WEAK_ROW

    weak = Hit(chunk_id=4, path="/d/angles.pdf", page=None, start=0, end=4, text="text",
               scores=StageScores(dense=0.12, lexical=0.0, fused=0.1), ranks=StageRanks(dense=1, fused=1, final=1),
               order_label="match", weak=True)
    fine = Hit(chunk_id=5, path="/d/vitamins.txt", page=None, start=0, end=4, text="text",
               scores=StageScores(dense=0.6, lexical=2.0, fused=0.7), ranks=StageRanks(dense=1, fused=1, final=1),
               order_label="match")
    model = ResultsModel()
    model.set_hits([fine, weak], ["vitamin"])
    fg = Qt.ItemDataRole.ForegroundRole
    assert all(model.index(1, c).data(fg) == WEAK_ROW for c in range(len(ResultsModel.COLUMNS)) if
               ResultsModel.COLUMNS[c] != "Rerank")
    assert model.index(0, ResultsModel.COLUMNS.index("File")).data(fg) is None
    assert model.index(1, ResultsModel.COLUMNS.index("Score")).data(Qt.ItemDataRole.ToolTipRole).startswith("Weak match")


def test_a_row_lifted_by_a_rare_word_says_why_its_score_is_above_its_cosine():
    """A row holding a query word the model does not know (search/rare_words.py): match 0.49 at cosine 0.016 reads
    as an error unless the inspector says why."""
    lifted = Hit(chunk_id=6, path="/d/bafa.txt", page=None, start=0, end=4, text="text",
                 scores=StageScores(dense=0.016, lexical=3.1, fused=0.49), ranks=StageRanks(dense=9, fused=1, final=1),
                 order_label="match", rare=True)
    assert "a query word the model does not know" in why_text(lifted)
    lifted.rare = False
    assert "does not know" not in why_text(lifted)


def test_a_weak_similar_file_is_greyed_and_says_what_weak_means_for_similar_files(qtbot):
    """`similar` marks a file far in meaning weak (decision 0207): the window greys it as a search's weak row, and
    its tooltip speaks of the file asked about, not of query words it never had."""
    from searchapp.gui.results_model import SIMILAR_WEAK_TIP, WEAK_ROW
    from searchapp.library.search.similar_hit import SimilarHit
    from searchapp.library.search.weak import mark_weak_similar

    far, near = (SimilarHit(chunk_id=i, path=f"/d/{i}.txt", page=None, start=0, end=4, text="text",
                            scores=StageScores(dense=s), ranks=StageRanks(dense=i, final=i)) for i, s in ((2, 0.157),
                                                                                                          (1, 0.72)))
    mark_weak_similar([near, far])
    assert far.weak and not near.weak
    model = ResultsModel()
    model.set_hits([near, far], [])
    fg = Qt.ItemDataRole.ForegroundRole
    file_col = ResultsModel.COLUMNS.index("File")
    assert model.index(1, file_col).data(fg) == WEAK_ROW and model.index(0, file_col).data(fg) is None
    assert score_tooltip(far).startswith(SIMILAR_WEAK_TIP) and "query" not in SIMILAR_WEAK_TIP
