"""The status bar's permanent labels: device, model, index size and consistency, reranker state.

Plain words on the bar ("Device: CPU", "Model: all-MiniLM-L6-v2"); the device's threads and precision, the path
queries take and the model's pooling are in the labels' tooltips, for those who ask.

Plain text throughout: the model label shows a folder name, which Qt could otherwise read as markup.
A message in the status line comes first: while one is shown that the labels would cut ("…found by their w|Device:
CPU"), the labels first say less, one by one (the passages without the archives' items), then give way one by one (device first, the index size last), and say all again when it
goes. A sync's summary stays until the next thing is said: labels that only gave way were gone for good after every
sync. A message still cut with every label gone (a summary with its notes: "… 3 files read by OCR" past the window's
edge) is whole in the status bar's tooltip.
"""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QSizeGrip, QStatusBar, QWidget

from ..base.config import Config
from ..base.plural import counted
from ..library import LibraryStatus
from ..base.rate import format_left
from ..library.report.status import by_rule_counts, members_noun, unopened_counts
from ..library.sync.meaning_pass import meaning_percent
from ..library.sync.meaning_rate import meaning_left_s
from .plain import make_plain, tooltip

__all__ = ["StatusLabels", "MESSAGE_LEFT"]

MESSAGE_LEFT = 6  # where QStatusBar starts a message (its messageRect)
GAP = 12  # room kept between a message and the first label


class StatusLabels(QObject):
    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.bar = bar
        self.device, self.models, self.index, self.reranker = (QLabel() for _ in range(4))
        for name, lab in (("deviceLabel", self.device), ("modelsLabel", self.models),
                          ("indexLabel", self.index), ("rerankerLabel", self.reranker)):
            lab.setObjectName(name)
            make_plain(lab)
            # A label may be cut rather than widen the window: a "(loading…)" must never make its minimum
            # wider than a small screen (the layout uses this in place of the text's width).
            lab.setMinimumWidth(1)
            bar.addPermanentWidget(lab)
        self.models.setText("Loading models…")
        self.running: tuple[str, str] = ("", "")  # (bi-encoder, the pooling that runs) as the last status read it
        self.given_way: list[QLabel] = []  # hidden while the message needs their room
        self.whole: dict[QLabel, str] = {}  # what each label says with room for it
        self.short: dict[QLabel, str] = {}  # and in few words, while a message needs the room
        self.shortened: list[QLabel] = []  # saying their short text now
        bar.messageChanged.connect(self.fit)
        bar.installEventFilter(self)  # a narrower window: fit again

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.bar and event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self, message: Optional[str] = None) -> None:
        """Hide labels, least needed first, until `message` (the one shown) fits left of them; show them again
        when it has room."""
        message = self.bar.currentMessage() if message is None else message
        self.bar.setToolTip("")
        for lab in self.given_way:
            lab.show()
        self.given_way = []
        for lab in self.shortened:
            lab.setText(self.whole[lab])
        self.shortened = []
        if not message:
            return
        need = MESSAGE_LEFT + self.bar.fontMetrics().horizontalAdvance(message) + GAP
        order = (self.device, self.models, self.reranker, self.index)
        for lab in order:  # first each says less: the device and the model stay named beside a long summary
            if self._room() >= need:
                return
            short = self.short.get(lab, "")
            if short and lab.text() == self.whole.get(lab) and short != lab.text():
                lab.setText(short)
                self.shortened.append(lab)
        for lab in order:
            if self._room() >= need:
                return
            if not lab.isHidden():
                lab.hide()
                self.given_way.append(lab)
        if self._room() < need:  # cut even so (a sync's summary with its notes): whole on hover
            self.bar.setToolTip(tooltip(message))

    def _room(self) -> int:
        """The width left of the labels shown now, as they say what they say now."""
        layout = self.bar.layout()
        spacing = 6 + (max(layout.spacing(), 0) if layout is not None else 0)
        shown = [w for w in self.bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                 if not w.isHidden() and not isinstance(w, QSizeGrip)]
        grip = 16 if self.bar.isSizeGripEnabled() else 0
        return self.bar.width() - sum(w.sizeHint().width() + spacing for w in shown) - grip

    def _say(self, lab: QLabel, text: str, short: str = "") -> None:
        """`lab` says `text`; `short`, what it says while a message needs the room (fit)."""
        self.whole[lab], self.short[lab] = text, short
        lab.setText(text)

    def show_status(self, st: LibraryStatus) -> None:
        b = st.bi_encoder or {}
        self.running = (str(b.get("spec") or ""), str(b.get("pooling") or ""))
        # The device by its plain name on the bar ("Device: CPU"); its threads and precision, and the path queries
        # take (onnxruntime, NumPy), are for those who ask: in the tooltip (a newcomer's first look met "bf16 · numpy
        # fp32" on an empty library).
        self._say(self.device, f"Device: {st.device.split(' (', 1)[0]}")
        self.device.setToolTip(f"Device: {st.device}\nPassages: {st.passage_path or 'torch on ' + st.device}\n"
                               f"Queries: {st.query_path or 'torch'}")
        files, members = sum(st.files.values()), sum(st.members.values())
        # The files on disk, and apart what was read out of their archives and mail (decision 0163)
        # "Library:": the whole library's, all its folders' (as "Device:", "Model:" beside it). A bare "416 passages
        # in 337 files" mid-sync read as a third count of the sync beside the strip's "Reading 497 of 3,000 files"
        # (files read by this sync) and the pane's "320 so far" (that folder's files searchable so far).
        held = f"Library: {st.chunks:,} passages in {files:,} files" + (
            f" and {members_noun(members, grouped=True)}" if members else "")
        if st.index_opening:  # its figures come when it is open; the device waits too, leaving the search's line room
            self._say(self.device, "")
            self._say(self.index, f"{held} · opening the index…",
                      f"Library: {st.chunks:,} passages · opening the index…")
            self.fit()
            return
        note = _writer_note(st)
        state = ("" if st.consistent else " — index not consistent") + note
        # the files whose connection string's password is not in the library, as `status` counts them (its one
        # call, Library.status: decision 0197's amendment); read again after every sync, so said beside its summary
        hidden = f" · {counted(st.passwords_hidden, 'file', grouped=True)} with a password hidden" \
            if st.passwords_hidden else ""
        self._say(self.index, held + hidden + state, f"Library: {st.chunks:,} passages in {files:,} files" + state)
        self.index.setToolTip(f"{st.writer} is syncing this library" if note else _set_aside(st))
        self.fit()

    def show_models(self, config: Config, ready: bool) -> None:
        m = config.models
        state = "" if ready else " (loading…)"
        # "auto" is a setting: say the pooling that runs (the model's own, or the library's as built) once status
        # has read it for this model.
        pooling = self.running[1] if m.pooling == "auto" and self.running[0] == m.bi_encoder and self.running[1] \
            else m.pooling
        name = os.path.basename(m.bi_encoder.rstrip('/')) or m.bi_encoder
        self._say(self.models, f"Model: {name}{state}")  # its pooling is an expert's detail: on hover
        self.models.setToolTip(f"{m.bi_encoder}\nPooling: {pooling}")
        self.fit()

    def show_reranker(self, state: str) -> None:
        """`state`: "on" (a cross-encoder has really loaded), "loading…" or "none"."""
        self._say(self.reranker, f"Reranker: {state}")
        self.fit()


def _writer_note(st: LibraryStatus) -> str:
    """Another process syncing the library (a terminal's `index`): said with how far its meaning is, since the
    window's strip shows only its own writes (a newcomer saw nothing of a terminal's 35-minute embedding)."""
    who = (st.writer or "").split(" (", 1)[0]  # "process 9461"; its command line in the tooltip
    if not who or who == f"process {os.getpid()}":  # the status names this process too while it writes
        return ""
    if st.embedded >= st.chunks:
        return f" · {who} is syncing"
    left = meaning_left_s(st.chunks - st.embedded, st.meaning_rate)
    meaning = f"meaning {meaning_percent(st.embedded, st.chunks)}%" + (
        f", about {format_left(left)} left" if left is not None else "")
    return f" · {who} is syncing ({meaning})"


def _set_aside(st: LibraryStatus) -> str:
    """What the files count leaves out, for its tooltip: the files left out on purpose (a secret, a lockfile, an
    empty file: decisions 0177, 0178), those met but never opened (decision 0180) and the files a password was
    hidden in (decision 0197), as `status` says them."""
    unopened = unopened_counts(st.not_document_types, st.left_out_by_rules, st.folders_left_out)
    hidden = (f"Passwords hidden: {counted(st.passwords_hidden, 'file', grouped=True)} "
              f"{'holds' if st.passwords_hidden == 1 else 'hold'} a connection string whose password is not in the "
              "library")
    return "\n".join([f"Left out on purpose: {by_rule_counts(st.left_out)}"] * bool(st.left_out)
                      + [f"Also met, never opened: {unopened}"] * bool(unopened)
                      + [hidden] * bool(st.passwords_hidden))
