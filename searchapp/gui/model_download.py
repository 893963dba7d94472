"""Downloading a model from the window: a dialog that says what is fetched, from where and how big, then shows
progress with Cancel. The download itself is models.hub.pull_model on a worker thread of its own, so
searching and indexing go on meanwhile; this module never touches the network or torch itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QInputDialog, QMenu, QProgressBar, QPushButton,
                               QVBoxLayout, QWidget)

from ..base.errors import SearchAppError
from ..base.progress import CancelToken, Progress
from .plain import plain_label
from .workers import Job, JobRunner

if TYPE_CHECKING:  # the hub's HTTP client (http.client, ssl) is imported when a download is offered, not at start
    from ..models.hub import PulledModel

__all__ = ["DownloadDialog", "ModelDownloads", "download_menu", "describe"]

POLL_MS = 100
ROLE_WORD = {"reranker": "reranker (cross-encoder)", "bi-encoder": "bi-encoder"}


def describe(repo_id: str, role: str) -> str:
    """What the dialog says before anything is fetched."""
    from ..models.hub import hub_host, known_model

    k = known_model(repo_id)
    size = f"about {k.size_mb} MB" if k else "its size is shown as soon as the hub answers"
    host = hub_host()  # never the credentials an HF_ENDPOINT may carry, never an exception
    # Plain text: the id and the host come from the user or the hub and may look like markup.
    return (f"Download the {ROLE_WORD.get(role, role)} {repo_id} from {host} ({size}).\n\n"
            "Only its configuration, tokenizer and safetensors weights are fetched, into your Hugging Face cache; "
            "it is checked to load before it is used. Nothing else is sent or received, and nothing else in "
            "searchapp uses the network.")


def _error_sentence(exc: BaseException) -> str:
    if isinstance(exc, SearchAppError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return f"The download failed: {type(exc).__name__}: {exc}"


class DownloadDialog(QDialog):
    """Confirm, then progress with Cancel; `succeeded` carries the PulledModel, and the dialog closes."""

    succeeded = Signal(object)

    def __init__(self, downloads: "ModelDownloads", repo_id: str, role: str, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setObjectName("downloadDialog")
        self.setWindowTitle("Download model")
        self.downloads, self.repo_id, self.role = downloads, repo_id, role
        self.job: Optional[Job] = None
        self.pulled: Optional[PulledModel] = None  # (not `result`: that is QDialog.result())
        self.text = plain_label(describe(repo_id, role))
        self.text.setObjectName("downloadText")
        self.text.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setObjectName("downloadProgress")
        self.bar.hide()
        self.status = plain_label("")  # hub errors quote file names and messages from the hub
        self.status.setObjectName("downloadStatus")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.start_button = QPushButton("Download")
        self.start_button.setObjectName("downloadStart")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("downloadCancel")
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.text)
        lay.addWidget(self.bar)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(520, 220)
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self._show_progress)

    def start(self) -> None:
        self.start_button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText("Asking the hub…")
        self.bar.setRange(0, 0)  # busy until sizes are known
        self.bar.show()
        self.job = self.downloads.start(self.repo_id, self.role, self._done, self._failed, self._cancelled)
        self._poll.start()

    def _show_progress(self) -> None:
        p = self.job.progress if self.job is not None else None
        if p is None:
            return
        if p.stage == "downloading" and p.total:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(1000 * p.done / p.total))
            self.status.setText(f"Downloading {p.done / 1e6:.1f} of {p.total / 1e6:.1f} MB"
                                + (f" — {p.message}" if p.message else ""))
        elif p.stage == "checking":
            self.bar.setRange(0, 0)
            self.status.setText("Checking that it loads…")

    def _finish(self) -> None:
        self._poll.stop()
        self.job = None

    def _done(self, pulled: PulledModel) -> None:
        self._finish()
        self.pulled = pulled
        self.succeeded.emit(pulled)
        self.accept()

    def _failed(self, exc: BaseException, tb: str) -> None:
        self._finish()
        self.bar.hide()
        self.status.setStyleSheet("color:#c62828;")
        self.status.setText(_error_sentence(exc))
        self.start_button.setText("Try again")
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(True)

    def _cancelled(self) -> None:
        self._finish()
        self.bar.hide()
        self.status.setText("Cancelled; nothing was installed.")
        self.start_button.setText("Download")
        self.start_button.setEnabled(True)

    def reject(self) -> None:
        # Cancel while downloading stops it (nothing half-installed stays); the dialog stays until it has.
        if self.job is not None:
            self.status.setText("Cancelling…")
            self.cancel_button.setEnabled(False)
            self.job.cancel()

            def cancelled() -> None:  # once the download has stopped: say so, then close the dialog
                self._cancelled()
                super(DownloadDialog, self).reject()

            self.job.callbacks["cancelled"] = cancelled
            return
        super().reject()


class ModelDownloads(QObject):
    """Downloads on a one-thread pool of their own: a long download never holds up a search or indexing."""

    def __init__(self, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        self.runner = JobRunner(self, read_threads=1)

    def start(self, repo_id: str, role: str, on_success: Callable[[PulledModel], None],
              on_error: Callable[[BaseException, str], None], on_cancel: Callable[[], None]) -> Job:
        def work(progress: Callable[[Progress], None], cancel: CancelToken) -> PulledModel:
            from ..models.hub import pull_model

            return pull_model(repo_id, role=role, progress=progress, cancel=cancel)

        return self.runner.submit(work, name=f"download {repo_id}", on_success=on_success, on_error=on_error,
                                  on_cancel=on_cancel)

    def offer(self, window: QWidget, repo_id: str, role: str,
              on_success: Optional[Callable[[PulledModel], None]] = None) -> DownloadDialog:
        """Open the confirmation dialog (window-modal; the event loop keeps running)."""
        dlg = DownloadDialog(self, repo_id, role, window)
        if on_success is not None:
            dlg.succeeded.connect(on_success)
        dlg.open()
        return dlg

    def busy(self) -> bool:
        return bool(self.runner.jobs)

    def shutdown(self) -> None:
        self.runner.shutdown(timeout_ms=10000)


def download_menu(parent: QWidget, role: str, choose: Callable[[str], object]) -> QMenu:
    """Well-known models for `role`, and any other Hugging Face id."""
    menu = QMenu(parent)
    menu.setObjectName(f"downloadMenu-{role}")
    from ..models.hub import KNOWN_MODELS

    for k in (k for k in KNOWN_MODELS if k.role == role):
        act = menu.addAction(f"{k.repo_id}  (about {k.size_mb} MB) — {k.note}")
        act.setData(k.repo_id)
        act.triggered.connect(lambda _=False, rid=k.repo_id: choose(rid))
    menu.addSeparator()

    def other() -> None:
        rid, ok = QInputDialog.getText(parent, "Download model", "Hugging Face model id (organisation/name):")
        if ok and rid.strip():
            choose(rid.strip())

    menu.addAction("Other Hugging Face id…").triggered.connect(other)
    return menu
