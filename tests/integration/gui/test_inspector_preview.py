"""The preview beside the score inspector at 1280×800 (a newcomer's Scores → "Why this rank?" on #1): opening the
inspector narrowed the preview to a third of the width, and there the file's path wrapped over five lines, the text
reflowed so the preview showed other text than the highlighted passage, and the rule line over the table was cut
off. Now the path is one line, shortened in its folders (the name, the page and the note kept, the whole on hover),
the passage stays in view whatever the width, and the rule is read whole from its line (More)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication

from conftest import build_tiny_library
from searchapp.gui.score_inspector import SCORE_RULE

from gui_window import WAIT_MS, search, shot, window_maker

FILLER = "\n".join(f"Line {i}: the quarterly minutes of the gardening club, the compost heap and the hedge trimming "
                   f"rota were discussed at length before tea." for i in range(160))
PASSAGE = ("Password entropy: a long passphrase of common words beats a short complex password; entropy is "
           "measured in bits, and each added word multiplies the guesses an attacker needs.")
NAME = "alterman_security_conference_talk.txt"


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    deep = tmp_path / "home" / "Documents" / "Presentations" / "Conference talks 2011" / "Security track"
    data = build_tiny_library(deep, {NAME: FILLER + "\n\n" + PASSAGE + "\n\n" + FILLER,
                                     "hedges.txt": "The hedge trimming rota of the gardening club."},
                              tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def _passage_start(win):
    """The preview's text cursor at the start of the passage shown (shaded)."""
    cursor = win.preview.browser.document().find(win.preview.hit.text.splitlines()[0])
    assert not cursor.isNull()
    cursor.setPosition(cursor.selectionStart())
    return cursor


def _passage_in_view(win) -> bool:
    browser = win.preview.browser
    top = browser.cursorRect(_passage_start(win)).top()
    return 0 <= top < browser.viewport().height() - browser.fontMetrics().height()


def test_the_preview_beside_the_inspector_keeps_its_path_on_one_line_and_its_passage_in_view(qtbot, open_window):
    win = open_window()
    res = search(qtbot, win, "password entropy passphrase", mode="lexical")
    assert res.hits and res.hits[0].path.endswith(NAME)
    view, model = win.search.results_view, win.search.results_model
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        view.setCurrentIndex(model.index(0, 0))
    QApplication.processEvents()
    assert _passage_in_view(win)  # the wide preview scrolled to it
    win.inspector_toggle.why(model.hit(0))  # Scores → "Why this rank?" on #1
    QApplication.processEvents()
    shot(win, "inspector_beside_preview.png")
    assert (win.width(), win.height()) == (1280, 800) and win.inspector.isVisible()
    title, preview = win.preview.title, win.preview
    # one line: the name (and the page and note) kept, the folders shortened; the whole path on hover
    assert title.height() < 2 * title.fontMetrics().lineSpacing(), (title.height(), title.text())
    assert NAME in title.text() and "…" in title.text(), title.text()
    assert res.hits[0].path in title.toolTip()
    assert preview.browser.width() >= 250
    # the passage reflowed to the narrower preview is still where the person reads
    assert _passage_in_view(win), preview.browser.verticalScrollBar().value()
    cursor = _passage_start(win)
    cursor.movePosition(cursor.MoveOperation.NextCharacter)
    assert cursor.charFormat().background().color().name() == "#d8ecff"  # shaded as the passage (PASSAGE_STYLE)
    # the rule over the table: one line, and its More shows it whole, wrapped, in the inspector's room
    inspector = win.inspector
    more = getattr(inspector, "rule_button", None)
    assert more is not None and more.isVisible(), "no way to read the whole rule but hovering its cut line"
    more.click()
    QApplication.processEvents()
    full = inspector.rule_full
    assert full.isVisible() and full.text() == SCORE_RULE and full.wordWrap()
    assert full.height() >= full.heightForWidth(full.width()), (full.height(), full.heightForWidth(full.width()))
    assert full.visibleRegion().boundingRect().height() >= full.heightForWidth(full.width())  # nothing cut off
    shot(win, "inspector_rule_whole.png")
    more.click()  # Less: the table again
    QApplication.processEvents()
    assert not full.isVisible() and inspector.table.isVisible()
    # the plot and the table whole: the plot's minimum height (160) was more than the room under a long "Why" (this
    # one a newcomer's, five lines), and its x axis and labels were cut off at 1280x800
    win.inspector.summary.setText(
        "Why #1 Q3 board report - harbour terminal - final approved version for the auditors.txt: meaning (cosine) "
        "0.580, #1 by meaning; words (BM25) 20.32, #2 by words; match 0.664 (meaning and words fused) → #1; holds a "
        "query word the model does not know and few passages hold: scored with at least the meaning its words earn")
    QApplication.processEvents()
    for part in (win.inspector.plot, win.inspector.table):
        assert part.visibleRegion().boundingRect().height() >= part.height(), (type(part).__name__, part.height(),
                                                                                part.visibleRegion().boundingRect())


def test_a_long_name_in_the_preview_title_keeps_its_start_and_its_extension(qtbot, tmp_path):
    """A newcomer's 130-character name was cut at both ends ("…Final agreement between … installation a…"): the
    folder and the ".md" both lost. The folders give way first (cut in their middle), then the page; a name too long
    for the line alone is cut in its middle; the whole path is on hover."""
    from searchapp.base.types import Hit, StageRanks, StageScores
    from searchapp.gui.preview import PreviewPane

    folder = tmp_path / "Projects" / "Northwind" / "signed agreements"
    name = ("Final agreement between Northwind Traders and the municipal planning office regarding the heat pump "
            "installation at the north wall (v7, signed).md")
    path = str(folder / name)
    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(640, 300)
    pane.show()
    hit = Hit(chunk_id=1, path=path, page=3, start=0, end=5, text="Heat.", scores=StageScores(fused=0.5),
              ranks=StageRanks(fused=1, final=1))
    pane.show_hit(hit, ["heat"], None)
    QApplication.processEvents()
    title = pane.title
    shown = title.text()
    assert title.fontMetrics().horizontalAdvance(shown) <= title.contentsRect().width(), shown
    assert shown.startswith("…") and "Final agreement" in shown and shown.endswith("(v7, signed).md"), shown
    assert path in title.toolTip()
    pane.resize(1400, 300)  # room for the name and the page: the folders come back, cut in their middle
    QApplication.processEvents()
    shown = title.text()
    assert shown.endswith(name + " — page 3") and shown.startswith("/") and "…" in shown, shown
