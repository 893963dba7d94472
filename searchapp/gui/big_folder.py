"""Before indexing a big folder: how many files it holds (a capped, timed count: library/sync/folder_count.py),
roughly how long that takes, and a checklist of its top-level subfolders to leave out, saved as `[scan] exclude`
patterns so every later sync leaves them out too. A folder under BIG_FOLDER_FILES is indexed without a word."""

from __future__ import annotations

import glob
import os
from typing import Callable, Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout,
                               QWidget)

from ..library.sync.folder_count import FolderCount, count_files
from .library_session import LibrarySession
from .plain import plain_label, tooltip
from .services import Services

__all__ = ["BigFolderCheck", "BigFolderPrompt", "BIG_FOLDER_FILES", "FILES_PER_MINUTE", "estimate"]

BIG_FOLDER_FILES = 5_000
FILES_PER_MINUTE = 500  # docs/benchmarks.md: indexing SciFact (5,183 short files) on a 2-core CPU, words and meaning


def estimate(files: int) -> str:
    """"about 10 min", "about 3 h 20 min": rough, from the files-a-minute rate measured on short documents."""
    minutes = round(files / FILES_PER_MINUTE)
    if minutes < 1:
        return "under a minute"
    return f"about {minutes} min" if minutes < 120 else f"about {minutes // 60} h {minutes % 60:02d} min"


class BigFolderPrompt(QDialog):
    """Window-modal: the count, the estimate, the subfolders to leave out; Index or Cancel (the default)."""

    chosen = Signal(list)  # absolute paths of the subfolders to leave out (maybe none)

    def __init__(self, root: str, count: FolderCount, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("bigFolderPrompt")
        self.setWindowTitle("Index a big folder?")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.root = root
        n = f"{count.files:,}" if count.complete else f"more than {count.files:,}"
        stopped = "" if count.complete else f" (counting stopped after {count.seconds:.1f} s)"
        took = estimate(count.files)
        if not count.complete:
            took = took.replace("about", "at least") if took.startswith("about") else "some time"
        self.text = plain_label(
            f"{os.path.basename(root.rstrip(os.sep)) or root} holds {n} files to read{stopped}. Indexing them takes "
            f"{took} (at the {FILES_PER_MINUTE} files a "
            "minute measured on short documents with two CPU cores; long documents take longer). Their words are "
            "searchable first, their meaning follows; you can go on searching meanwhile and cancel at any time."
            "\n\n"
            "Leave out these subfolders (saved in the settings as excluded, for every later sync):")
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

    def left_out(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]


class BigFolderCheck:
    """`ask_first(path, add)`: True when it asked (`add` runs once the person chose Index and what to leave
    out was saved); False when `path` is small, a file, or indexed already (the caller adds it at once)."""

    def __init__(self, services: Services, session: LibrarySession) -> None:
        self.services, self.session = services, session
        self.prompt: Optional[BigFolderPrompt] = None
        self.known: list[str] = []  # the indexed folders, from the window's last status

    def show_status(self, st) -> None:
        self.known = [r.path for r in st.roots]

    def ask_first(self, path: str, add: Callable[[], None]) -> bool:
        root = os.path.abspath(os.path.expanduser(path))
        if not os.path.isdir(root) or root in self.known:  # a re-sync: asked before
            return False
        count = count_files(root, self.session.config.scan)  # at most half a second, names and stat only
        if count.complete and count.files < BIG_FOLDER_FILES:
            return False
        prompt = self.prompt = BigFolderPrompt(root, count, self.services.parent)
        prompt.chosen.connect(lambda paths: self._index(paths, add))
        prompt.finished.connect(prompt.deleteLater)
        prompt.open()
        self.services.dialog_shown(prompt)
        return True

    def _index(self, left_out: list[str], add: Callable[[], None]) -> None:
        if left_out:
            scan = self.session.config.scan
            patterns = tuple(scan.exclude) + tuple(glob.escape(p) for p in left_out if glob.escape(p) not in scan.exclude)
            if not self.session.apply_config(self.session.config.replace(scan={"exclude": patterns})):
                return  # said why (a sync is running, or the settings could not be saved); nothing added
        add()
