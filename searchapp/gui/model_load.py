"""The models a search by meaning uses, loaded when the first one is asked for, never at the window's start.

Loading them at start (torch, transformers and weights for the cross-encoder; seconds and hundreds of MB on a
small CPU) delayed the first usable window and took CPU from the person's first searches, whether or not meaning
was ever wanted. Now a hybrid search while they load is answered by its words (the status line says meaning
loads), the load runs on a read worker, and the search runs again by meaning when it ends. Lexical searches,
the status and a sync's words pass never start it (a sync loads its own bi-encoder: ModelSet.load_encoder_ahead).
A load that fails is not retried on its own: the next search by meaning meets the error and says it.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Signal

from .library_session import LibrarySession
from .window_tools import WindowTools

__all__ = ["ModelLoad"]


class ModelLoad(QObject):
    started = Signal()
    ended = Signal()  # loaded, or failed (the next search by meaning says why)

    def __init__(self, tools: WindowTools, session: LibrarySession) -> None:
        super().__init__(tools.parent)
        self.tools, self.session = tools, session
        self.loading = False
        self.failed = False  # the last load raised: searches by meaning run as asked and report it
        # Passages in the library as its last status counted them (None: not read yet). With none, a search by
        # meaning has nothing to compare its query with and encodes none: a first start's search loads nothing
        # (a new user's: no reranker installed, Rerank greyed).
        self.passages: Optional[int] = None

    def ready(self, rerank: bool) -> bool:
        """Whether a search by meaning (reranked when `rerank`) finds its models in memory."""
        return bool(self.session.library.models.meaning_ready(rerank))

    def need(self, rerank: bool) -> bool:
        """A search by meaning is asked for: True when it must be answered by words now, the models loading
        (the load started here unless it already runs); False when it can run as asked."""
        if self.failed or (self.passages == 0 and not rerank) or self.ready(rerank):
            return False  # (a reranker is loaded even so: the search would load it, holding its answer)
        if not self.loading:
            self.loading = True
            models = self.session.library.models
            self.tools.runner.submit(lambda p, c: models.load_for_search(rerank), name="loading models",
                                        on_success=lambda _: self._end(False), on_error=lambda e, tb: self._end(True))
            self.started.emit()
        return True

    def forget_failure(self) -> None:
        """The settings changed (another library, perhaps other models): a failed load may be tried again."""
        self.failed = False

    def _end(self, failed: bool) -> None:
        self.loading, self.failed = False, failed
        self.ended.emit()
