"""Every candidate of the current query with every stage's score and rank, the plot, and CSV export."""

from __future__ import annotations

import csv
from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QPushButton, QSplitter, QToolButton, QVBoxLayout, QWidget

from ..base.types import Hit
from ..library import SearchResult
from ..library.search.result import LISTING
from .results_model import by_words, rank_movement
from .elided_label import ElidedLabel
from .plain import plain_label, shown_name, shown_path
from .score_plot import ScorePlot
from .score_table import CHUNK_ROLE, ScoreTable

__all__ = ["ScoreInspector", "HEADERS", "SCORE_RULE", "candidate_rows", "why_text"]

# How the score a row shows reads, whatever part of the library has meaning yet (decision record 0109).
SCORE_RULE = ("How to read a row's score: \"match\" = w × meaning (cosine) + (1 − w) × words (BM25 ÷ the best BM25 "
              "for this query; w is search.dense_weight, 0.8 by default), on the same scale however much of the "
              "library has meaning. While meaning is "
              "unfinished, a file with no vector yet shows \"words\": the words part alone (1.00 = the best word "
              "match); it is ranked as if its meaning matched as well as its words, and its number stays the same "
              "until the file is embedded, when it becomes a match score. A match score can only rise as more of "
              "its file is embedded. A file holding a query word the model does not know and few passages hold (a "
              "code, a name) is scored with at least the meaning its words earn, and one holding a long query word for "
              "word with at least the best meaning among the candidates. Where the library holds only common words "
              "of the query, every words part is weighed down (by their IDF). A passage of fewer than three words "
              "is scored by its words alone: too short for its meaning to count. \"relevance\": the "
              "cross-encoder's probability, when it reranked.")

# The CSV export's columns; the table on screen shows the same numbers in fewer columns (score_table).
HEADERS = ("final", "file", "page", "cosine", "bi-enc rank", "BM25", "BM25 rank", "fused", "fused rank",
           "CE logit", "CE score", "CE rank", "movement")


def _f(v: Optional[float], digits: int = 4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _i(v: Optional[int]) -> str:
    return "" if v is None else str(v)


def candidate_rows(result: SearchResult) -> list[list[str]]:
    rows = []
    for h in result.hits:
        s, r = h.scores, h.ranks
        rows.append([_i(r.final), shown_name(h.path), _i(h.page), _f(s.dense), _i(r.dense), _f(s.lexical, 3),
                     _i(r.lexical), _f(s.fused), _i(r.fused), _f(s.rerank_logit, 3), _f(s.rerank), _i(r.rerank),
                     rank_movement(h)])
    return rows


def why_text(hit: Hit) -> str:
    """One line on why `hit` is where it is: each stage's score and the rank it gave."""
    s, r = hit.scores, hit.ranks
    parts = []
    if s.dense is not None:
        parts.append(f"meaning (cosine) {s.dense:.3f}, #{r.dense} by meaning" if r.dense else
                     f"meaning (cosine) {s.dense:.3f}")
    if s.lexical is not None:
        parts.append(f"words (BM25) {s.lexical:.2f}, #{r.lexical} by words" if r.lexical else
                     f"words (BM25) {s.lexical:.2f}")
    if s.fused is not None:
        # the word the Score column uses for the same number, and how it is made
        parts.append(f"match {s.fused:.3f} (meaning and words fused) → #{r.fused}")
    if by_words(hit) and s.words is not None:  # Similar files found by words (decision 0159)
        parts.append(f"found by words ({getattr(hit, 'why', '')}): holds {s.words:.2f} of the source's distinctive "
                     "words, weighed")
    elif hit.order_label == "words" and s.words is not None:
        parts.append(f"no meaning yet: shows its words alone, {s.words:.2f} of the best word match")
    if hit.rare:  # search/rare_words.py
        parts.append("holds a query word the model does not know and few passages hold: scored with at least the "
                     "meaning its words earn")
    if getattr(hit, "phrase", False):  # search/exact_phrase.py
        parts.append("holds the query, or a date, an amount or a code of it, word for word: scored with at least "
                     "the best meaning among the candidates")
    if s.rerank is not None:
        parts.append(f"cross-encoder {s.rerank:.3f} → #{r.rerank}")
    head = f"Why #{r.final} {shown_name(hit.path)}: " if r.final else f"Why {shown_name(hit.path)}: "
    if hit.named:  # search/named.py
        return head + "its name is like the query, and no passage holds the query's words: listed first, no score"
    return head + ("; ".join(parts) if parts else "listed by date, no score (nothing to rank by)")


class ScoreInspector(QWidget):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("scoreInspector")
        self.result: Optional[SearchResult] = None
        self.summary = plain_label("Search to see every candidate's scores.")  # quotes the query
        self.summary.setWordWrap(True)
        # Why a number reads the same before and after meaning fills: one line, the whole rule on hover. Wrapped, its
        # seven lines left the table two rows at 1280x800 (a newcomer).
        self.rule = ElidedLabel(SCORE_RULE)
        self.rule.setObjectName("scoreRule")
        # ... and More shows it whole, wrapped, in the table's place (Less: the table again): hovering a cut line
        # was the only way to read it, and a newcomer did not find it.
        self.rule_full = plain_label(SCORE_RULE)
        self.rule_full.setObjectName("scoreRuleWhole")
        self.rule_full.setWordWrap(True)
        self.rule_full.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.rule_full.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rule_full.hide()
        self.rule_button = QToolButton()
        self.rule_button.setObjectName("scoreRuleMore")
        self.rule_button.setText("More")
        self.rule_button.setCheckable(True)
        self.rule_button.setToolTip("The whole rule, in place of the table (Less: the table again)")
        self.rule_button.toggled.connect(self._rule_whole)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self._ask_export)
        self.table = ScoreTable()
        self.plot = ScorePlot()
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.export_button)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.plot)
        # The table takes what the plot does not need: at 1280x800 its columns fit without scrolling sideways.
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        split.setSizes([1000, 170])
        self.split = split
        rule = QHBoxLayout()
        rule.addWidget(self.rule, 1)
        rule.addWidget(self.rule_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addLayout(rule)
        lay.addWidget(split, 1)
        lay.addWidget(self.rule_full, 1)

    def _rule_whole(self, whole: bool) -> None:
        """More: the rule whole in the table's room (seven lines at 1280x800, too many above the table); Less."""
        self.rule_button.setText("Less" if whole else "More")
        self.rule.setVisible(not whole)
        self.split.setVisible(not whole)
        self.rule_full.setVisible(whole)

    def set_result(self, result: Optional[SearchResult]) -> None:
        self.result = result
        rows = candidate_rows(result) if result else []
        self.table.set_hits(result.hits if result else [])
        self.plot.set_hits(result.hits if result else [], bool(result and result.reranked))
        self.export_button.setEnabled(bool(rows))
        if result is None:
            self.summary.setText("Search to see every candidate's scores.")
        else:
            how = "reranked by the cross-encoder" if result.reranked else "not reranked"
            query = shown_path(result.query) if result.mode == "similar" else result.query  # similar: a file
            if result.said(LISTING):  # no stage scored these: "candidates" and a mode would say they were ranked
                self.summary.setText(f"{len(rows)} listed newest first for “{query}”: no words to rank by, no scores")
            else:
                self.summary.setText(f"{len(rows)} candidates for “{query}” ({result.mode}, {how})")

    def focus_hit(self, hit: Hit) -> bool:
        """Select `hit`'s row (the "Why this rank?" of a result) and say in the summary why it is there."""
        self.rule_button.setChecked(False)  # the row asked for is in the table: shown again
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.data(CHUNK_ROLE) == hit.chunk_id:
                self.table.selectRow(row)
                self.table.scrollToItem(item)
                self.summary.setText(why_text(hit))
                return True
        return False

    def export_csv(self, path: str) -> int:
        """Write the candidate table in final-rank order; returns the number of rows."""
        rows = candidate_rows(self.result) if self.result else []
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(HEADERS)
            w.writerows(rows)
        return len(rows)

    def _ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export scores", "scores.csv", "CSV files (*.csv)")
        if path:
            self.export_csv(path)
