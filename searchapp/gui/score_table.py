"""The score inspector's table: one row per candidate, each stage's score and the rank it gave in one cell, so the
table fits its pane at 1280x800 without scrolling sideways.

Thirteen columns (a score and a rank per stage, the logit beside the probability) were 1096 px wide in a 345 px
pane: a person scrolled sideways to read a row. Here a stage is one right-aligned cell, "0.596 #2" (fixed decimals,
ranks padded so the scores line up), a column every row leaves empty is hidden (no reranker: no CE, no move), the
file's name takes what width is left and is shortened at its end, and every cell's exact numbers (the logit, more
decimals, the full movement) are in its tooltip. The CSV export keeps the thirteen columns (score_inspector). The
pane has room for it: two thirds of the width under the results when it opens (inspector_toggle), the plot beside the
table no wider than it needs (score_plot, score_inspector)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from ..base.types import Hit
from .plain import shown_name, shown_path, tooltip
from .results_model import DEMOTED, PROMOTED, rank_movement

__all__ = ["ScoreTable", "COLUMNS", "CHUNK_ROLE", "SORT_ROLE", "FILE_COLUMN"]

CHUNK_ROLE = Qt.ItemDataRole.UserRole + 1  # on the first cell: which passage the row is
SORT_ROLE = Qt.ItemDataRole.UserRole + 2  # what a click on the header sorts by: the number, not the cell's text
FIGURE_SPACE = "\u2007"  # as wide as a digit: "#2" padded to "#12"'s width keeps the scores above it in line


@dataclass(frozen=True)
class Column:
    header: str
    about: str  # the header's tooltip
    name: str = ""  # what a cell's tooltip calls its score
    # the stage's (score, rank) of a hit; None for the columns that are not a stage's
    stage: Optional[Callable[[Hit], tuple[Optional[float], Optional[int]]]] = None
    digits: int = 3


COLUMNS = (
    Column("#", "Final rank: where the candidate stands in the list"),
    Column("file", "The file (its whole path on hover)"),
    Column("p.", "The page the passage is on"),
    Column("cos", "Meaning: the passage's cosine similarity to the query (bi-encoder), then the rank it gave",
           "meaning (cosine)", lambda h: (h.scores.dense, h.ranks.dense)),
    Column("BM25", "Words: the passage's BM25 score for the query, then the rank it gave",
           "words (BM25)", lambda h: (h.scores.lexical, h.ranks.lexical), 2),
    # "match", as the results' Score column and docs/cli.md call it (it said "fused" here: two words for one score)
    Column("match", "The match score the results show: meaning and words fused (search.fusion), then the rank it "
           "gave: the order before reranking", "match (meaning and words fused)",
           lambda h: (h.scores.fused, h.ranks.fused)),
    Column("CE", "The cross-encoder's relevance (a probability; its logit on hover), then the rank it gave",
           "cross-encoder", lambda h: (h.scores.rerank, h.ranks.rerank)),
    Column("▲▼", "How far the cross-encoder moved the candidate from its match rank (the ranks on hover)"),
)
FILE_COLUMN = 1
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class _Item(QTableWidgetItem):
    """A cell that sorts by SORT_ROLE: "0.596 #2" as the number 0.596, an empty cell after every number."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        a, b = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if a is None or b is None:
            return a is not None and b is None
        return bool(a < b)


def _digits(col: Column, hits: list[Hit]) -> int:
    """The column's decimals: one more while its every score is under 0.1 (RRF's 0.0164 and 0.0161 would both read
    0.016)."""
    scores = [abs(s) for s, _ in map(col.stage, hits) if s is not None] if col.stage else []
    return col.digits + 1 if scores and max(scores) < 0.1 else col.digits


def _stage_item(score: Optional[float], rank: Optional[int], digits: int, rank_width: int, name: str) -> _Item:
    item = _Item()
    if score is None:
        return item
    # no rank (no word matched): blank where " #12" would be, so the score still lines up with those above it
    ranked = " " + FIGURE_SPACE * (rank_width + 1) if rank is None else f" #{rank}".ljust(rank_width + 2, FIGURE_SPACE)
    item.setText(f"{score:.{digits}f}{ranked}")
    item.setData(SORT_ROLE, score)
    item.setTextAlignment(RIGHT)
    item.setToolTip(tooltip(f"{name}: {score:.6g}" + ("" if rank is None else f", rank {rank}")))
    return item


def _hit_items(hit: Hit, digits: list[int], rank_width: int) -> list[_Item]:
    r = hit.ranks
    final, page = _Item("" if r.final is None else str(r.final)), _Item("" if hit.page is None else str(hit.page))
    final.setData(SORT_ROLE, r.final)
    final.setData(CHUNK_ROLE, hit.chunk_id)
    page.setData(SORT_ROLE, hit.page)
    name = _Item(shown_name(hit.path))
    name.setData(SORT_ROLE, name.text().casefold())
    name.setToolTip(tooltip(shown_path(hit.path)))
    items = [final, name, page]
    for col, d in zip(COLUMNS[3:7], digits, strict=True):
        assert col.stage is not None
        items.append(_stage_item(*col.stage(hit), d, rank_width, col.name))
    s = hit.scores
    if s.rerank is not None and s.rerank_logit is not None:  # the logit, which the CSV has as a column of its own
        items[6].setToolTip(tooltip(f"cross-encoder: {s.rerank:.6g} (logit {s.rerank_logit:.4g}), rank {r.rerank}"))
    full = rank_movement(hit)  # '▲35 (#37→#2)': the ranks are in the match and CE cells already
    move = _Item(full.split(" ")[0])
    move.setToolTip(tooltip(full))
    if r.rerank is not None and r.fused is not None:
        move.setData(SORT_ROLE, r.fused - r.rerank)
        if r.fused != r.rerank:
            move.setForeground(PROMOTED if r.fused > r.rerank else DEMOTED)
    for item in (final, page, move):
        item.setTextAlignment(RIGHT)
    return items + [move]


class ScoreTable(QTableWidget):
    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("scoreTable")
        for j, col in enumerate(COLUMNS):
            head_item = QTableWidgetItem(col.header)
            head_item.setToolTip(col.about)
            self.setHorizontalHeaderItem(j, head_item)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSortingEnabled(True)
        self.setWordWrap(False)
        # a narrow name keeps its start, which tells files apart ("shadi…" over "sh…md"); the whole path on hover
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().setVisible(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(FILE_COLUMN, QHeaderView.ResizeMode.Stretch)  # the name gets what is left

    def set_hits(self, hits: list[Hit]) -> None:
        self.setSortingEnabled(False)  # filling a sorted table would shuffle rows under our feet
        digits = [_digits(col, hits) for col in COLUMNS[3:7]]
        ranks = [r for h in hits for r in (h.ranks.dense, h.ranks.lexical, h.ranks.fused, h.ranks.rerank) if r]
        rank_width = len(str(max(ranks, default=0)))
        rows = [_hit_items(hit, digits, rank_width) for hit in hits]
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, item in enumerate(row):
                self.setItem(i, j, item)
        for j in range(len(COLUMNS)):  # a column no row fills says nothing (no reranker: no CE): names get its room
            self.setColumnHidden(j, bool(rows) and j != FILE_COLUMN and not any(row[j].text() for row in rows))
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # final rank first, whatever was sorted before
