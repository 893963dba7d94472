"""The score inspector says, in plain text, how a row's score reads while meaning fills (decision 0109)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.gui.results_model import score_text, score_tooltip
from searchapp.gui.score_inspector import SCORE_RULE, ScoreInspector, why_text


def test_the_inspector_states_the_rule_and_a_words_row_says_it_has_no_meaning_yet(qtbot):
    inspector = ScoreInspector()
    qtbot.addWidget(inspector)
    assert inspector.rule.text() == SCORE_RULE and inspector.rule.textFormat() == Qt.TextFormat.PlainText
    assert '"words"' in SCORE_RULE and '"match"' in SCORE_RULE
    row = Hit(chunk_id=1, path="/d/a.txt", page=None, start=0, end=4, text="text",
              scores=StageScores(lexical=7.5, fused=0.9, words=0.75), ranks=StageRanks(lexical=2, fused=1, final=1),
              order_label="words")
    assert score_text(row) == "words 0.75"  # its words alone, not the fused 0.90 that ordered it
    assert "no meaning (vector) yet" in score_tooltip(row)
    assert "no meaning yet: shows its words alone, 0.75" in why_text(row)
