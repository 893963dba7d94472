"""Before indexing a big folder: how many files it holds (a capped, timed count: library/sync/folder_count.py),
roughly how long embedding their meaning takes on this computer (the passages/s the last sync measured here, or
where none has yet, a quick test of the loaded model: library/sync/meaning_rate.py), and a checklist of its top-level subfolders to leave out, saved as `[scan] exclude`
patterns so every later sync leaves them out too. A folder under BIG_FOLDER_FILES is indexed without a word."""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout,
                               QWidget)

from ..base.rate import format_left, format_rate
from ..library.sync.folder_count import FolderCount, count_files
from ..library.sync.meaning_rate import folder_estimate_s, probe_rate
from .library_session import LibrarySession
from .plain import plain_label, tooltip
from .window_tools import WindowTools

if TYPE_CHECKING:
    from ..library import LibraryStatus

__all__ = ["BigFolderCheck", "BigFolderPrompt", "BIG_FOLDER_FILES", "PASSAGES_PER_FILE", "Pace", "estimate"]

BIG_FOLDER_FILES = 5_000
# Passages a file makes where this library has too few files to tell (SciFact's abstracts: 2.3; long documents
# make dozens, which the prompt says).
PASSAGES_PER_FILE = 3.0
_KNOWN_FILES = 20  # files this library must hold before its own passages a file stand for a new folder's


class Pace:
    """What the estimate is made of: passages/s measured here (None: not yet), where it came from, and passages a
    file (this library's own, or PASSAGES_PER_FILE)."""

    def __init__(self, rate: Optional[float] = None, source: str = "", per_file: Optional[float] = None) -> None:
        self.rate, self.source, self.per_file = rate, source, per_file


def estimate(files: int, pace: Pace, complete: bool = True) -> str:
    """"Embedding their meaning takes about 3 h 20 min on this computer (8.1 passages/s, measured by the last sync
    here; about 3 passages a file, as short documents make)", or that it is being measured."""
    if pace.rate is None:
        return ("How long embedding their meaning takes on this computer is being measured (a few seconds)…"
                if pace.source == "probing" else "How long embedding their meaning takes could not be measured.")
    per_file = pace.per_file or PASSAGES_PER_FILE
    left = format_left(folder_estimate_s(files, per_file, pace.rate))
    took = f"about {left}" if complete else f"at least {left}"
    how = ("as in this library" if pace.per_file else "as short documents make; long documents make many more")
    return (f"Embedding their meaning takes {took} on this computer ({format_rate(pace.rate)[:-2]} passages/s, "
            f"measured {pace.source}; about {per_file:.0f} passages a file, {how}).")


class BigFolderPrompt(QDialog):
    """Window-modal: the count, the estimate, the subfolders to leave out; Index or Cancel (the default)."""

    chosen = Signal(list)  # absolute paths of the subfolders to leave out (maybe none)

    def __init__(self, root: str, count: FolderCount, pace: Pace, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("bigFolderPrompt")
        self.setWindowTitle("Index a big folder?")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.root, self.count = root, count
        self.text = plain_label("")
        self.show_pace(pace)
        self.text.setObjectName("bigFolderText")
        self.text.setWordWrap(True)
        self.text.setToolTip(tooltip(root))
        self.list = QListWidget()
        self.list.setObjectName("bigFolderSubfolders")
        for name, files in sorted(count.subfolders.items(), key=lambda kv: (-kv[1], kv[0].lower())):
            shown = f"{files:,} files" if count.complete else (f"{files:,}+ files" if files else "not counted")
            item = QListWidgetItem(f"{name} — {shown}")
            item.setData(Qt.ItemDataRole.UserRole, os.path.join(root, name))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.setVisible(self.list.count() > 0)
        buttons = QDialogButtonBox()
        self.index_button = QPushButton("Index")
        self.index_button.setObjectName("bigFolderIndex")
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(self.index_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button.setDefault(True)  # Enter keeps things as they are
        self.index_button.setAutoDefault(False)
        self.index_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.text)
        lay.addWidget(self.list, 1)
        lay.addWidget(buttons)
        self.accepted.connect(lambda: self.chosen.emit(self.left_out()))
        self.resize(560, 420)

    def show_pace(self, pace: Pace) -> None:
        """The text, with the estimate from `pace` (again when a quick measurement has come back)."""
        count, root = self.count, self.root
        n = f"{count.files:,}" if count.complete else f"more than {count.files:,}"
        stopped = "" if count.complete else f" (counting stopped after {count.seconds:.1f} s)"
        self.text.setText(
            f"{os.path.basename(root.rstrip(os.sep)) or root} holds {n} files to read{stopped}. Their words are "
            f"searchable first, within minutes. {estimate(count.files, pace, count.complete)} You can go on "
            "searching meanwhile and cancel at any time."
            "\n\n"
            "Leave out these subfolders (saved in the settings as excluded, for every later sync):")

    def left_out(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]


class BigFolderCheck:
    """`ask_first(path, add)`: True when it asked (`add` runs once the person chose Index and what to leave
    out was saved); False when `path` is small, a file, or indexed already (the caller adds it at once)."""

    def __init__(self, tools: WindowTools, session: LibrarySession) -> None:
        self.tools, self.session = tools, session
        self.prompt: Optional[BigFolderPrompt] = None
        self.known: list[str] = []  # the indexed folders, from the window's last status
        self.pace = Pace()  # from the window's last status, or a quick measurement

    def show_status(self, st: LibraryStatus) -> None:
        self.known = [r.path for r in st.roots]
        # Files on disk (decision 0163), as count_files counts a new folder's: an archive's passages count for it
        files = sum(st.files.values())
        per_file = st.chunks / files if files >= _KNOWN_FILES and st.chunks else None
        if st.meaning_rate:
            self.pace = Pace(st.meaning_rate, "by the last sync here", per_file)
        else:
            self.pace.per_file = per_file

    def ask_first(self, path: str, add: Callable[[], None]) -> bool:
        root = os.path.abspath(os.path.expanduser(path))
        if not os.path.isdir(root) or root in self.known:  # a re-sync: asked before
            return False
        count = count_files(root, self.session.config.scan)  # at most half a second, names and stat only
        if count.complete and count.files < BIG_FOLDER_FILES:
            return False
        if self.pace.rate is None and self.pace.source != "probing":  # nothing measured here yet: measure now
            self._probe()
        prompt = self.prompt = BigFolderPrompt(root, count, self.pace, self.tools.parent)
        prompt.chosen.connect(lambda paths: self._index(paths, add))
        prompt.finished.connect(prompt.deleteLater)
        prompt.open()
        self.tools.dialog_shown(prompt)
        return True

    def _probe(self) -> None:
        """Time one batch of passages on the library's model (loaded for it if need be) on the read pool."""
        lib = self.session.library
        self.pace.source = "probing"

        def measured(rate: float) -> None:
            self.pace = Pace(rate, "just now by a quick test", self.pace.per_file)
            if self.prompt is not None:
                self.prompt.show_pace(self.pace)

        def failed(exc: BaseException, tb: str) -> None:  # no model (not installed yet): said in the prompt
            self.pace.source = "failed"
            if self.prompt is not None:
                self.prompt.show_pace(self.pace)

        self.tools.runner.submit(lambda p, c: probe_rate(lib.models.encoder), name="measuring the embedding rate",
                                    on_success=measured, on_error=failed)

    def _index(self, left_out: list[str], add: Callable[[], None]) -> None:
        if left_out:
            scan = self.session.config.scan
            patterns = tuple(scan.exclude) + tuple(glob.escape(p) for p in left_out if glob.escape(p) not in scan.exclude)
            if not self.session.apply_config(self.session.config.replace(scan={"exclude": patterns})):
                return  # said why (a sync is running, or the settings could not be saved); nothing added
        add()
