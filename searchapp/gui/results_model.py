"""The hits of one search as a table model, plus the rank-movement text the reranker caused."""

from __future__ import annotations

import html
import time
from typing import Any, Optional

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import (QAbstractTextDocumentLayout, QColor, QFont, QPainter, QPalette, QTextCharFormat, QTextCursor,
                           QTextDocument)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ..base.types import Hit
from ..library.search.similar_hit import SimilarHit
from ..library.search.snippet import best_snippet
from ..library.search.few_words import MIN_WORDS, too_few_words
from ..library.search.weak import UNREAD_COSINE, WEAK_COSINE, WEAK_SIMILARITY
from .highlight import highlight_html, snippet, utf16_spans
from .plain import shown_folder, shown_name, shown_path, tooltip

__all__ = ["ResultsModel", "HtmlDelegate", "rank_movement", "movement_tooltip", "score_text", "more_text", "date_text",
           "words_only", "by_words", "two_scales", "TWO_SCALES", "HIT_ROLE", "HTML_ROLE", "SNIPPET_ROLE", "SNIPPET_LINES"]

HIT_ROLE = Qt.ItemDataRole.UserRole + 1  # the Hit itself
HTML_ROLE = Qt.ItemDataRole.UserRole + 2  # the snippet with query words marked
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 3  # library.snippet.Snippet: plain text + query word spans (painted)
MARK_BACKGROUND, MARK_FOREGROUND = QColor("#ffe680"), QColor("#000000")
PROMOTED, DEMOTED = QColor("#1a7f37"), QColor("#c62828")
# A "words" score (its file has no meaning yet) is on another scale than the "match" rows around it: "words 0.95"
# may rank below "match 0.57". Greyed and in italics, so the two scales do not read as one (decision 0109).
WORDS_ONLY = QColor("#707070")
# ... and the column's header says so while the list holds both: a newcomer read "match 0.70" over "words 0.81" as a
# wrong order, greyed or not. The numbers and the order stay as decision 0109 keeps them; the header names the cause.
TWO_SCALES = "Score (2 scales)"
TWO_SCALES_TIP = ("Two kinds of score, not comparable: \"match\" (meaning and words) for files whose meaning is "
                  "computed, and \"words\" (grey: the words alone, 1.00 = the best word match) for files whose "
                  "meaning is not computed yet. The list is ordered as if each of those files' meaning matched as "
                  "well as its words; their score turns to \"match\" as indexing finishes.")
WEAK_ROW = QColor("#8a8a8a")  # a weak match's row (search/weak.py)
SNIPPET_LINES = 2  # every row is this many lines high, so a screenful holds many results


def date_text(date_ns: Optional[int], now: Optional[float] = None) -> str:
    """A file manager's short date: the time for today, day and month this year, else the full date."""
    if not date_ns:
        return ""
    ts, now = date_ns / 1e9, time.time() if now is None else now
    t, today = time.localtime(ts), time.localtime(now)
    if t[:3] == today[:3]:
        return time.strftime("%H:%M", t)
    return time.strftime("%d %b" if t.tm_year == today.tm_year and ts <= now else "%Y-%m-%d", t)


def rank_movement(hit: Hit) -> str:
    """'▲35 (#37→#2)' when the reranker moved the hit, '=' when it kept its place, '' when it did not run."""
    before, after = hit.ranks.fused, hit.ranks.rerank
    if before is None or after is None:
        return ""
    delta = before - after
    if delta == 0:
        return f"= (#{after})"
    return f"{'▲' if delta > 0 else '▼'}{abs(delta)} (#{before}→#{after})"


def movement_tooltip(hit: Hit) -> str:
    r = hit.ranks
    parts = []
    if r.rerank is not None:
        parts.append(f"reranked to #{r.rerank} from first-stage rank #{r.fused}")
    if r.dense is not None:
        parts.append(f"bi-encoder rank #{r.dense}")
    if r.lexical is not None:
        parts.append(f"BM25 rank #{r.lexical}")
    return "; ".join(parts)


def scored(hit: Hit) -> bool:
    """False for a listing (a query of only fields, type:md): its files come newest first, no stage scored them."""
    return hit.scored


UNSCORED_TIP = "Listed newest first: the query has no words to rank by, so there is no score"
NAMED_TIP = "Listed first for its name: the query names this file (few files are named so), or no passage holds its words"


def score_text(hit: Hit) -> str:
    """The score a person can compare across queries, labelled: 'relevance 0.91', 'similarity 0.61', 'bm25 7.9';
    nothing for a listing (no stage scored it: "bm25 0.0" would say it matched no word); "name" for a file listed
    first for its name."""
    if hit.named:
        return "name"
    if not scored(hit):
        return ""
    value, label = hit.shown_score
    if by_words(hit):  # Similar files found by words: never read as a meaning similarity (decision 0159)
        return f"by words {value:.2f}"
    return f"{label} {value:.{1 if label == 'bm25' else 2}f}"


def by_words(hit: Hit) -> bool:
    """A row of Similar files found by the source's words while meaning fills, not by meaning."""
    return isinstance(hit, SimilarHit) and hit.by == "words"


def words_only(hit: Hit) -> bool:
    """The row shows its words' score alone (its file has no meaning yet): another scale than "match"."""
    return scored(hit) and hit.shown_score[1] == "words"


def two_scales(hits: list[Hit]) -> bool:
    """The list shows "words" rows beside rows of another score (decision 0109): two scales in one column."""
    shown = {h.shown_score[1] for h in hits if scored(h) and not h.named and not by_words(h)}
    return "words" in shown and len(shown) > 1


def _italic() -> QFont:
    font = QFont()
    font.setItalic(True)
    return font


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


WEAK_TIP = (f"Weak match: it shares no word with the query and is far from it in meaning (cosine under "
            f"{WEAK_COSINE:.2f}, or under {UNREAD_COSINE:.2f} where the model reads the query's words only in pieces): "
            f"the nearest there is, not an answer")
FEW_WORDS_TIP = (f"Weak match: it shares no word with the query, and its text is too short for its meaning to count "
                 f"(fewer than {MIN_WORDS} words): the nearest there is, not an answer")

SIMILAR_WEAK_TIP = (f"Weak match: little of the file asked about is said here (similarity under {WEAK_SIMILARITY:.2f}): "
                    f"the nearest there is, not a similar file")


def score_tooltip(hit: Hit) -> str:
    if hit.named:
        return NAMED_TIP
    if hit.weak and isinstance(hit, SimilarHit):  # far in meaning from the file asked about (decision 0207)
        return SIMILAR_WEAK_TIP + "; " + _score_why(hit)
    if hit.weak:
        return (FEW_WORDS_TIP if too_few_words(hit.text) else WEAK_TIP) + "; " + _score_why(hit)
    return _score_why(hit)


def _score_why(hit: Hit) -> str:
    if not scored(hit):
        return UNSCORED_TIP
    if isinstance(hit, SimilarHit) and by_words(hit):
        shares = f" It holds these distinctive words of that file: {', '.join(hit.words)}." if hit.words else ""
        return (f"Found by words ({hit.why}): a file without meaning yet is found similar by the distinctive words "
                f"of the file asked about.{shares} Its score is how much of those words it holds, weighed by how "
                "distinctive each is (1.00 = all of them), not a meaning similarity; once both files have meaning it "
                "is compared by meaning.")
    _, label = hit.shown_score
    why = {"relevance": "the cross-encoder's probability that the passage answers the query (0..1)",
           "match": "the score that ordered this list: meaning (cosine) and words (BM25 share of the best match) "
                    "fused; both parts are in the score inspector",
           "words": "this file has no meaning (vector) yet, so its score is its words alone: the BM25 share of "
                    "the best word match (1.00 = the best); it becomes a match score once the file is embedded",
           "similarity": "the bi-encoder's cosine similarity of query and passage (-1..1; above ~0.5 is close)",
           "bm25": "BM25 word-match score (no fixed scale)"}[label]
    return why + (f"; {movement_tooltip(hit)}" if movement_tooltip(hit) else "")


def more_text(hit: Hit) -> str:
    """'+3' other passages, '+1 copy' of the file, '+1 near copy' (another file of this document: an export, an
    edited copy), 'common to 267 files' for repeated text; joined by ' · '."""
    n = len(hit.copies)
    near = len(hit.near_copies)
    parts = [f"+{len(hit.more)}" if hit.more else "", f"+{n} cop{'y' if n == 1 else 'ies'}" if n else "",
             f"+{near} near cop{'y' if near == 1 else 'ies'}" if near else "",
             f"common to {hit.common_to} files" if hit.common_to else ""]
    return " · ".join(p for p in parts if p)


def more_tooltip(hit: Hit) -> str:
    """The file's other matching passages, one line each (plain text: file text is never markup)."""
    lines = []
    for m in hit.more[:10]:
        where = f"p. {m.page}: " if m.page else ""
        text = " ".join(m.text.split())
        lines.append(where + (text[:90] + "…" if len(text) > 90 else text))
    extra = len(hit.more) - len(lines)
    lines += [f"… and {extra} more"] if extra > 0 else []
    if hit.common_to:
        lines.append(f"This passage is text common to {hit.common_to} files (a footer, signature or disclaimer): "
                     "one row stands for them.")
    if hit.copies:
        lines.append("Exact copies of this file:")
        lines += [shown_path(p) + (f" (unavailable: {hit.copies_unavailable[p]})" if p in hit.copies_unavailable
                                     else "") for p in hit.copies[:10]]
        lines += [f"… and {len(hit.copies) - 10} more"] if len(hit.copies) > 10 else []
    if hit.near_copies:
        lines.append("Near copies (almost all of their text is this file's):")
        lines += [f"{shown_path(n.path)} ({round(100 * n.similarity)}% same text)" for n in hit.near_copies[:10]]
        lines += [f"… and {len(hit.near_copies) - 10} more"] if len(hit.near_copies) > 10 else []
    # Markup the app builds, every piece of file text escaped: Qt would otherwise guess whether it is rich text.
    return "<qt>" + "<br>".join(html.escape(line) for line in lines) + "</qt>"


class ResultsModel(QAbstractTableModel):
    COLUMNS = ("#", "File", "Folder", "Date", "Page", "Passage", "More", "Score", "Rerank")

    def __init__(self, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.hits: list[Hit] = []
        self.terms: list[str] = []
        self.here: Optional[str] = None  # a shared library's machine answering (SearchResult.here)

    def set_hits(self, hits: list[Hit], terms: list[str], here: Optional[str] = None) -> None:
        self.beginResetModel()
        self.hits, self.terms, self.here = list(hits), list(terms), here
        self.endResetModel()

    def _file(self, h: Hit) -> str:
        """The File cell: the name, and whose it is where another machine of a shared library indexed it (its own
        files are not marked); "(unavailable)" where it cannot be opened here."""
        theirs = h.indexed_elsewhere(self.here)
        mark = (f"{theirs}'s" if theirs else "") + ("" if h.available else
                                                   (", unavailable here" if theirs else "unavailable"))
        return shown_name(h.path) + (f"  ({mark})" if mark else "") + ("  (new)" if h.new else "")

    def clear(self) -> None:
        self.set_hits([], [])

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        mixed = self.COLUMNS[section] == "Score" and two_scales(self.hits)
        if role == Qt.ItemDataRole.DisplayRole:
            return TWO_SCALES if mixed else self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and mixed:
            return TWO_SCALES_TIP
        return None

    def hit(self, row: int) -> Optional[Hit]:
        return self.hits[row] if 0 <= row < len(self.hits) else None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        h = self.hits[index.row()]
        col = self.COLUMNS[index.column()]
        if role == HIT_ROLE:
            return h
        if role == SNIPPET_ROLE and col == "Passage":
            return best_snippet(h.text, self.terms, focus=h.focus)
        if role == HTML_ROLE and col == "Passage":
            return highlight_html(snippet(h.text, self.terms, focus=h.focus), self.terms)
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "#": str(h.ranks.final or index.row() + 1),
                "File": self._file(h),
                "Folder": shown_folder(h.path),
                "Date": date_text(h.date_ns),
                "Page": str(h.page) if h.page else "",
                "Passage": snippet(h.text, self.terms, focus=h.focus),
                "More": more_text(h),
                "Score": score_text(h),
                "Rerank": rank_movement(h),
            }[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == "Score":
                return score_tooltip(h)
            if col == "Rerank":
                return movement_tooltip(h)
            if col == "More" and (h.more or h.copies or h.near_copies or h.common_to):
                return more_tooltip(h)
            if col in ("File", "Folder"):
                return tooltip(shown_path(h.path))
            if col == "Date" and h.date_ns:
                return time.strftime("%Y-%m-%d %H:%M", time.localtime(h.date_ns / 1e9))
        if role == Qt.ItemDataRole.FontRole and col == "File" and h.new:  # a saved search's file new since last opened
            return _bold()
        if role in (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole) and col == "Score" and words_only(h):
            return WORDS_ONLY if role == Qt.ItemDataRole.ForegroundRole else _italic()
        if role == Qt.ItemDataRole.ForegroundRole and col == "Rerank" and h.ranks.rerank is not None:
            delta = (h.ranks.fused or 0) - h.ranks.rerank
            return PROMOTED if delta > 0 else DEMOTED if delta < 0 else None
        if role == Qt.ItemDataRole.ForegroundRole and h.weak:  # the nearest there is, not an answer: greyed
            return WEAK_ROW
        if role == Qt.ItemDataRole.TextAlignmentRole and col in ("#", "Page", "More", "Score"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class HtmlDelegate(QStyledItemDelegate):
    """Paints SNIPPET_ROLE so query words show marked inside the table: the file's text goes in as plain
    text and the marks as character formats, so nothing in a file is ever interpreted as markup."""

    def _doc(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        snip = index.data(SNIPPET_ROLE)
        doc.setPlainText(snip.text if snip is not None else "")
        if snip is not None and snip.spans:
            mark = QTextCharFormat()
            mark.setBackground(MARK_BACKGROUND)
            mark.setForeground(MARK_FOREGROUND)
            cursor = QTextCursor(doc)
            for start, end in utf16_spans(snip.text, snip.spans):  # Qt counts UTF-16 units
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.mergeCharFormat(mark)
        doc.setTextWidth(max(option.rect.width(), 50))
        return doc

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        if index.data(SNIPPET_ROLE) is None:
            return super().paint(painter, option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._doc(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        if opt.state & QStyle.StateFlag.State_Selected:
            ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(QPalette.ColorRole.HighlightedText))
        painter.save()
        painter.translate(opt.rect.topLeft())
        # Whole lines only: a row is SNIPPET_LINES high, and the top of a third line would read as clutter.
        lines_h = int(doc.documentMargin()) + SNIPPET_LINES * opt.fontMetrics.lineSpacing()
        painter.setClipRect(0, 0, opt.rect.width(), min(opt.rect.height(), lines_h))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if index.data(SNIPPET_ROLE) is None:
            return size
        doc = self._doc(option, index)
        size.setHeight(int(min(doc.size().height(), SNIPPET_LINES * option.fontMetrics.height() + 8)))
        return size
