"""The Library the window works on: opened (or borrowed from the caller), reopened under new settings, replaced by
another chosen in the File menu, closed on exit.

Settings reach the library only through `apply_config`: from the settings dialog, a finished model download,
or the reranker notice's folder choice; another library only through `open_library`. A library this window opened
is closed by it, on exit; one the caller passed in stays the caller's. One this window opened and a settings change
or the File menu replaced is closed once the jobs running when it was replaced have ended (a search or a write
started before may still be running on it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ..base.config import Config, as_saved, save_config
from ..base.errors import NoSharedLibrary, SearchAppError
from ..base.library_address import shown
from ..library import Library
from ..library.reconfigure import library_for, needs_reindex, open_chosen, reopen_library
from ..library.shared import SharedLibrary
from .changes import Changes
from .meaning_load import MeaningLoad
from .model_download import ModelDownloads
from .window_tools import WindowTools
from .settings_dialog import SettingsDialog

if TYPE_CHECKING:
    from ..library.warm.server import CommandRunner
    from ..models.hub import PulledModel
    from .model_download import DownloadDialog

__all__ = ["LibrarySession", "RETIRED_RETRY_MS"]

RETIRED_RETRY_MS = 2000  # how soon a replaced library is looked at again while something may still use it


class LibrarySession:
    def __init__(self, tools: WindowTools, downloads: ModelDownloads, config: Config,
                 library: Optional[Library] = None, commands: Optional[CommandRunner] = None) -> None:
        self.tools, self.downloads = tools, downloads
        self.commands = commands  # runs a terminal's whole search command here (app.build_main_window)
        self.config = config
        self.owns_library = library is None
        # The shared library when the config names one (`searchapp --library ADDRESS gui`: decision 0141).
        self.library: Library | SharedLibrary = library if library is not None else library_for(config)
        # Replaced (settings, File menu), each with the jobs running when it was: closed once those have ended
        self._retired: list[tuple[Library | SharedLibrary, set[int]]] = []
        self._retire_timer = QTimer(tools.parent, singleShot=True, interval=RETIRED_RETRY_MS)
        self._retire_timer.timeout.connect(self._close_retired)
        self._waiting: Optional[tuple[str, str]] = None  # a downloaded model to use once indexing is done
        self._opening = False  # a library chosen in the File menu is being opened (open_library)
        self._closed = False
        if self.owns_library:
            self.library.serve(self.commands)  # `searchapp search` in a terminal asks this window's open library
        self.meaning = MeaningLoad(tools)
        self.meaning.start(self.library)  # searches answer by words until it is open

    # -- settings ---------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        # A download started from the settings opens over them and fills their field (Save applies it).
        dlg = SettingsDialog(self.config, self.tools.parent,
                             download=lambda role, rid, done: self.download_model(role, rid, done, dlg))
        dlg.accepted.connect(lambda: self.apply_config(dlg.config()))
        dlg.open()
        self.tools.dialog_shown(dlg)
        return dlg

    def download_model(self, role: str, repo_id: str, on_success: Optional[Callable[[PulledModel], None]] = None,
                       parent: Optional[QWidget] = None) -> DownloadDialog:
        """Offer to download `repo_id`; by default it becomes the model for `role` at once (no restart)."""
        dlg = self.downloads.offer(parent or self.tools.parent, repo_id, role,
                                   on_success or (lambda got: self.use_model(got.role, got.repo_id)))
        self.tools.dialog_shown(dlg)
        return dlg

    def use_model(self, role: str, model_id: str) -> None:
        new = self.config.replace(models={"reranker" if role == "reranker" else "bi_encoder": model_id})
        if self.tools.runner.busy_writing():  # the library is reopened under the new model once indexing is done
            self._waiting = (role, model_id)
            self.tools.say(f"{model_id} is ready; it is used once indexing has finished.", 10000)
            return
        if self.apply_config(new):
            self.tools.say(f"Using {model_id} as the {role}.", 10000)

    def writes_idle(self) -> None:
        """The last queued write finished: a model downloaded meanwhile is used now."""
        if self._waiting is not None:
            role, model_id = self._waiting
            self._waiting = None
            self.use_model(role, model_id)

    def choose_reranker_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self.tools.parent, "Choose a cross-encoder model folder")
        if path:
            self.apply_config(self.config.replace(models={"reranker": path}))

    def apply_config(self, new: Config) -> bool:
        """Save `new`, reopen the library under it (keeping loaded models that still fit) and say what changed
        (a re-index is offered where the new settings cut or embed passages differently)."""
        if self.tools.runner.busy_writing() or self._opening:
            self.tools.report_error(_busy_error() if not self._opening else _opening_error(), "")
            return False
        stale = needs_reindex(self.config, new)
        if stale and isinstance(self.library, SharedLibrary):
            # Saved, every search by meaning here would be refused (another model than the library's) and the
            # reindex offered next too: a shared library keeps one model and chunking for every machine (asked of
            # the settings alone: the window never waits on the server on this thread).
            self.tools.report_error(_shared_model_error(), "")
            return False
        try:
            save_config(as_saved(new))
        except OSError as exc:
            self.tools.report_error(exc, "")
            return False
        self.library.stop_serving()
        self._use(reopen_library(self.library, new), new, stale)
        return True

    def open_library(self, address: str, *, make: bool = False) -> None:
        """Work on the shared library at `address` ("": this computer's) from now on, as File → Open Shared
        Library… or Use This Computer's Library asks (decision 0144): opened on a read thread (a server may be slow
        to answer, or never), then used, and the choice saved in the config file, so the next plain `searchapp`
        opens it too. A database without a shared library yet is made one only if the person says so (`make`). If
        it cannot be opened, the library in use stays and the reason is said."""
        if self._closed:  # a question answered after the window closed
            return
        if self.tools.runner.busy_writing() or self._opening:
            self.tools.report_error(_busy_error() if not self._opening else _opening_error(), "")
            return
        new, old = self.config.replace(library={"address": address}), self.library
        self._opening = True

        def opened(lib: Library | SharedLibrary) -> None:
            self._opening = False
            if self._closed:  # the window closed meanwhile: nothing of it is left to use this library
                lib.close()
                return
            try:
                if self.tools.runner.busy_writing() or self.library is not old:
                    raise SearchAppError(f"{_named(lib)[:1].upper()}{_named(lib)[1:]} was not opened: indexing "
                                         "or a settings change began meanwhile. Choose it again once that is done.")
                save_config(new)  # chosen here: kept, unlike an address given for one window (_as_saved)
            except (OSError, SearchAppError) as exc:
                lib.close()
                self.tools.report_error(exc, "")
                return
            old.stop_serving()
            self._use(lib, new, False, switched=new.library.address != old.config.library.address)
            self.tools.say(f"Opened {_named(lib)}.", 10000)

        def failed(exc: BaseException, tb: str) -> None:
            self._opening = False
            if self._closed:
                return
            self.tools.say(f"Still working on {_named(self.library)}.", 10000)
            if isinstance(exc, NoSharedLibrary) and not make:
                self._offer_to_make(address)
            else:
                self.tools.report_error(exc, tb)

        self.tools.say("Opening " + ("the shared library…" if address else "this computer's library…"), 0)
        self.tools.runner.submit(lambda p, c: open_chosen(old, new, make=make), name="open library",
                                 on_success=opened, on_error=failed,
                                 on_cancel=lambda: setattr(self, "_opening", False))  # the window closed first

    def _offer_to_make(self, address: str) -> QMessageBox:
        """The database answered but holds no shared library: make one there only if the person says so."""
        box = QMessageBox(QMessageBox.Icon.Question, "Open Shared Library",
                          f"There is no shared library at {shown(address)} yet.", parent=self.tools.parent)
        box.setTextFormat(Qt.TextFormat.PlainText)  # an address: never markup
        box.setInformativeText("Make one there? Its tables are created in that database, and this computer's folders "
                               "are indexed into it only when you add them.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.button(QMessageBox.StandardButton.Yes).setText("Make a Shared Library")
        box.accepted.connect(lambda: self.open_library(address, make=True))
        box.open()
        self.tools.dialog_shown(box)
        return box

    def _use(self, lib: Library | SharedLibrary, new: Config, stale: bool, switched: bool = False) -> None:
        """`lib`, opened under `new`, in place of the library in use (closed once nothing may still use it:
        _close_retired); `switched`: another library, not the same one reopened."""
        old, owned, self.library = self.library, self.owns_library, lib
        self.library.serve(self.commands)  # under the new settings: a command line with them is answered here
        self.meaning.start(self.library)
        self.owns_library = True
        self.config = new
        # an Undo's clean-up may start on `old` here
        self.tools.changed(Changes(settings=True, stale_index=stale, library=switched))
        if owned:
            self._retired.append((old, {j.id for j in self.tools.runner.jobs}))
            self._close_retired()

    def _close_retired(self) -> None:
        """Close each library replaced in this window once the jobs that were running when it was replaced have
        ended (a search, a write or an Undo's clean-up holds its library; later ones hold the new one) and its
        vector index is not still opening; the rest are looked at again soon. A switch back and forth keeps no
        connection or index open for good."""
        if self._closed:
            return
        running = {j.id for j in self.tools.runner.jobs}
        for lib, jobs in list(self._retired):
            if not jobs & running and not lib.meaning_loading():
                self._retired.remove((lib, jobs))
                lib.close()
        if self._retired:
            self._retire_timer.start()

    # -- closing ----------------------------------------------------------------
    def close(self) -> None:
        """Close what this window opened; a library the caller passed in stays open."""
        self._closed = True  # a library still being opened is closed as soon as it is (open_library)
        self._retire_timer.stop()
        for lib, _ in self._retired:
            lib.close()
        self._retired.clear()
        if self.owns_library:
            self.library.close()
            self.owns_library = False


def _named(lib: Library | SharedLibrary) -> str:
    return f"the shared library {lib.store.path}" if isinstance(lib, SharedLibrary) else "this computer's library"


def _shared_model_error() -> SearchAppError:
    return SearchAppError("A shared library keeps one model and chunking for every machine: these settings would "
                          "embed passages differently from the library's, so they were not saved. Nothing changed.")


def _busy_error() -> SearchAppError:
    return SearchAppError("Please wait until indexing has finished (or cancel it) before changing settings.")


def _opening_error() -> SearchAppError:
    return SearchAppError("A library is being opened: please wait until it is open.")
