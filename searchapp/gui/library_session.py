"""The Library the window works on: opened (or borrowed from the caller), reopened under new settings, closed on exit.

Settings reach the library only through `apply_config`: from the settings dialog, a finished model download,
or the reranker notice's folder choice. A library this window opened is closed by it, on exit; one the caller
passed in stays the caller's. One this window opened and a settings change replaced stays open until exit too:
searches may still be running on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtWidgets import QFileDialog, QWidget

from ..base.config import Config, load_config, save_config
from ..base.errors import ConfigError, SearchAppError
from ..library import Library
from ..library.reconfigure import library_for, needs_reindex, reopen_library
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

__all__ = ["LibrarySession"]


class LibrarySession:
    def __init__(self, tools: WindowTools, downloads: ModelDownloads, config: Config,
                 library: Optional[Library] = None, commands: Optional[CommandRunner] = None) -> None:
        self.tools, self.downloads = tools, downloads
        self.commands = commands  # runs a terminal's whole search command here (app.build_main_window)
        self.config = config
        self.owns_library = library is None
        # The shared library when the config names one (`searchapp --library ADDRESS gui`: decision 0141).
        self.library: Library | SharedLibrary = library if library is not None else library_for(config)
        self._retired: list[Library | SharedLibrary] = []  # replaced by a settings change; closed on exit
        self._waiting: Optional[tuple[str, str]] = None  # a downloaded model to use once indexing is done
        self._opening = False  # a library chosen in the File menu is being opened (open_library)
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
        self.apply_config(new)
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
            self.tools.report_error(_busy_error(), "")
            return False
        stale = needs_reindex(self.config, new)
        if stale and isinstance(self.library, SharedLibrary):
            # Saved, every search by meaning here would be refused (another model than the library's) and the
            # reindex offered next too: a shared library keeps one model and chunking for every machine (asked of
            # the settings alone: the window never waits on the server on this thread).
            self.tools.report_error(_shared_model_error(), "")
            return False
        try:
            save_config(_as_saved(new))
        except OSError as exc:
            self.tools.report_error(exc, "")
            return False
        self.library.stop_serving()
        self._use(reopen_library(self.library, new), new, stale)
        return True

    def open_library(self, address: str, done: Optional[Callable[[bool], None]] = None) -> None:
        """Work on the shared library at `address` ("": this computer's) from now on, as File → Open Shared
        Library… or Use This Computer's Library asks: opened on a read thread (a server may be slow to answer, or
        never), then used, and the choice saved in the config file, so the next plain `searchapp` opens it too. If
        it cannot be opened, the library in use stays and the reason is said. `done(opened)` at the end."""
        if self.tools.runner.busy_writing() or self._opening:
            self.tools.report_error(_busy_error(), "")
            return done(False) if done else None
        new, old = self.config.replace(library={"address": address}), self.library
        self._opening = True

        def opened(lib: Library | SharedLibrary) -> None:
            self._opening = False
            try:
                if self.tools.runner.busy_writing() or self.library is not old:  # a write or settings meanwhile
                    raise _busy_error()
                save_config(new)  # chosen here: kept, unlike an address given for one window (_as_saved)
            except (OSError, SearchAppError) as exc:
                lib.close()
                self.tools.report_error(exc, "")
                return done(False) if done else None
            old.stop_serving()
            self._use(lib, new, False)
            self.tools.say(f"Opened {_named(lib)}.", 10000)
            if done:
                done(True)

        def failed(exc: BaseException, tb: str) -> None:
            self._opening = False
            self.tools.say(f"Still working on {_named(self.library)}.", 10000)
            self.tools.report_error(exc, tb)
            if done:
                done(False)

        self.tools.say("Opening " + ("the shared library…" if address else "this computer's library…"), 0)
        self.tools.runner.submit(lambda p, c: reopen_library(old, new), name="open library", on_success=opened,
                                 on_error=failed)

    def _use(self, lib: Library | SharedLibrary, new: Config, stale: bool) -> None:
        """`lib`, opened under `new`, in place of the library in use (kept open until exit: searches may still run
        on the one it replaces)."""
        old, self.library = self.library, lib
        self.library.serve(self.commands)  # under the new settings: a command line with them is answered here
        self.meaning.start(self.library)
        if self.owns_library:
            self._retired.append(old)
        self.owns_library = True
        self.config = new
        self.tools.changed(Changes(settings=True, stale_index=stale))

    # -- closing ----------------------------------------------------------------
    def close(self) -> None:
        """Close what this window opened; a library the caller passed in stays open."""
        for lib in self._retired:
            lib.close()
        self._retired.clear()
        if self.owns_library:
            self.library.close()
            self.owns_library = False


def _as_saved(new: Config) -> Config:
    """`new` as the config file keeps it: a shared library's address given by --library or the environment
    for this window stays out of the file (the next plain `searchapp` opens the desktop library, as before)."""
    try:
        kept = load_config(new.data_dir, env={}).library.address
    except ConfigError:  # a broken file is replaced by this save, as on a desktop library: no address kept from it
        kept = ""
    return new if kept == new.library.address else new.replace(library={"address": kept})


def _named(lib: Library | SharedLibrary) -> str:
    return f"the shared library {lib.store.path}" if isinstance(lib, SharedLibrary) else "this computer's library"


def _shared_model_error() -> SearchAppError:
    return SearchAppError("A shared library keeps one model and chunking for every machine: these settings would "
                          "embed passages differently from the library's, so they were not saved. Nothing changed.")


def _busy_error() -> SearchAppError:
    return SearchAppError("Please wait until indexing has finished (or cancel it), or the library being opened is "
                          "open, before changing settings or the library.")
