"""The entries with no searchable text and why (the window's Not indexed list, status's `not_indexed`):
waiting for OCR, no text, skipped or failed."""

from __future__ import annotations

from ...ingest.ocr.engine import ocr_unavailable_reason
from ...store import Store
from ...store.ledger import files_in_state

__all__ = ["not_indexed_entries", "NOT_INDEXED_STATES"]

NOT_INDEXED_STATES = ("ocr_pending", "no_text", "skipped", "failed")
MAX_LISTED = 10_000  # per state, for the window's list


def not_indexed_entries(store: Store, limit: int = MAX_LISTED) -> list[tuple[str, str, str]]:
    """(path, ledger state, reason) of the entries that wait for OCR, have no text, were skipped or failed."""
    out = []
    unavailable = ocr_unavailable_reason()  # said beside each waiting file: why it is still waiting
    for state in NOT_INDEXED_STATES:
        for _, row in files_in_state(store, state, limit):
            reason = row.error or ""
            if state == "ocr_pending" and row.status == "indexed":
                reason = "text layer indexed; pages without text wait for OCR"
            if state == "ocr_pending" and unavailable:
                reason += f" ({unavailable})"
            out.append((row.path, state, reason))
    return out
