"""A meaning pass steps aside between batches for a writer waiting its turn, and goes on where it was.

Decision (docs/decisions/0105-a-long-writer-steps-aside-between-batches.md). Each batch is one SQLite transaction
followed by its vector-index update (meaning_pass.store_vectors), so between two batches nothing is half written:
the index is saved (the next writer opens it current, with no repair), the lock is handed over (lock.WriterTurn),
and once it is back the library is read again as another process left it: the model it was built with, the vector
index diffed against the store (what the other writer removed), and the queue of waiting passages (what it added).
"""

from __future__ import annotations

from typing import Callable, Optional

from ...base.progress import CancelToken, ProgressFn, report
from ..resources.index_keeper import IndexKeeper
from ..resources.lock import Holder, WriterTurn, WriterWait

__all__ = ["Handover", "WAITING"]

WAITING = "waiting"  # the progress stage while another writer has the lock


class Handover:
    """`between()` for embed_pending: True when the lock was handed over and taken back (read the queue again).
    Used as a context around the meaning pass: meanwhile the lock file says its holder hands over between batches,
    so a waiting command says it waits for a batch, and the window's short wait waits for one."""

    def __init__(self, turn: Optional[WriterTurn], vectors: IndexKeeper, check_model: Callable[[], None],
                 progress: Optional[ProgressFn], cancel: Optional[CancelToken]) -> None:
        self.turn, self.vectors, self.check_model = turn, vectors, check_model
        self.progress, self.cancel = progress, cancel

    def __enter__(self) -> "Handover":
        if self.turn is not None:
            self.turn.say(True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.turn is not None and self.turn.held:
            self.turn.say(False)

    def between(self) -> bool:
        turn = self.turn
        if turn is None or not turn.wanted():
            return False
        self.vectors.save()  # every batch so far is committed; the next writer opens this index as it is
        self.vectors.mark_current()
        report(self.progress, WAITING, 0, 0, "another searchapp process is writing the library; embedding goes on after")
        # Until it is free, whatever the library's own wait: the writers handed to are quick (their words, no
        # meaning: Updates.run_sync); a cancel ends the wait, with every batch before it kept.
        turn.stale = True  # until caught up, an error or a cancel must not save this index over the other's
        turn.hand_over(WriterWait(None, self._told, self.cancel))
        self.check_model()  # a reindex meanwhile may have changed the model: nothing is embedded with the old one
        self.vectors.catch_up()
        turn.stale = False
        return True

    def _told(self, holder: Holder, waited: float) -> None:
        # No count: the window's strip would show the seconds as a count of something ("Waiting 12")
        report(self.progress, WAITING, 0, 0, f"{holder} is writing the library; embedding goes on after")
