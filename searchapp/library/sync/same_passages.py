"""Entries read again with their bytes unchanged (a newer reader, decision 0152; a container read again for its
members) whose passages came out the very same as those they hold: they keep them, and their places in the vector
index; only their rows change (the reader's version, the notes), in one statement for many.

The stored passages are fetched for a group of the sync's candidates at a time, in the order the sync meets them:
one statement per file would be a network's round trip each on a shared library."""

from __future__ import annotations

from typing import Optional, Sequence

from ...base.types import ChunkSpan
from ...ingest.extractors import extractor_name, reader_version
from ...store import FileRow, Store
from ...store.layout import GROUP, Layout, layout_of, stored_layouts
from .batches import distinct_chunks

__all__ = ["SamePassages"]


class SamePassages:
    def __init__(self, store: Store, candidates: Sequence[int]) -> None:
        """`candidates`: the ids of the entries the sync may read again with their bytes unchanged, in its order."""
        self.store = store
        self.candidates = list(candidates)
        self.at = {fid: i for i, fid in enumerate(self.candidates)}
        self.layouts: dict[int, Layout] = {}
        # (file id, reader, notes, date) to write: Store.set_file_readers
        self.kept: list[tuple[int, Optional[int], tuple[str, ...], Optional[int]]] = []

    def same(self, old: FileRow, ocr: Optional[str], kind: Optional[str], spans: list[ChunkSpan], hashes: list[str],
             notes: Sequence[str], date_ns: Optional[int] = None) -> bool:
        """Whether this reading of `old`'s bytes gives the very passages it holds (then its row is to be written by
        `write`, with `date_ns`, the entry's own date: a newer reader may find one, as the mail readers' version 2
        found a message file's). Anything else (other passages, pages waiting for OCR, another kind) is for the
        caller to write as an update."""
        if old.status != "indexed" or ocr is not None or (kind or extractor_name(old.path) or "") != (old.kind or ""):
            return False
        if layout_of(distinct_chunks(spans, hashes, {})) != self._stored(old.id):
            return False
        self.kept.append((old.id, reader_version(old.path), tuple(notes), date_ns))
        return True

    def _stored(self, file_id: int) -> Layout:
        if file_id not in self.layouts:
            i = self.at.get(file_id)
            self.layouts = stored_layouts(self.store, self.candidates[i:i + GROUP] if i is not None else [file_id])
        return self.layouts.pop(file_id, [])

    def write(self) -> None:
        """The rows of the entries kept so far, in one transaction."""
        if self.kept:
            self.store.set_file_readers(self.kept)
            self.kept = []
