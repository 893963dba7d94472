"""What a sync is handed and hands back: the encoder, index-writer and OCR-step protocols it works through, and
the SyncReport it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection, Optional, Protocol, Sequence

import numpy as np

from ...base.progress import CancelToken, ProgressFn
from ...ingest.passages import PassageTokenizer  # what cutting passages asks of an encoder

if TYPE_CHECKING:
    from pathlib import Path

    from ...base.config import Config
    from ...store import Store

__all__ = ["SyncReport", "StoppedSync", "PassageEncoder", "IndexWriter", "OcrStep"]


class PassageEncoder(PassageTokenizer, Protocol):
    """What a sync asks of the bi-encoder (models.BiEncoder; the library hands it over behind a lazy proxy)."""

    spec: str

    def encode(self, texts: list[str], *, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None, background: bool = False) -> np.ndarray: ...


class IndexWriter(Protocol):
    """Where a batch's vector changes go after its SQLite commit (the library's IndexKeeper)."""

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    def remove(self, ids: list[int]) -> None: ...


class OcrStep(Protocol):
    """The step a sync runs after its words pass for the files waiting for OCR (library/ocr/step.ocr_step). Handed
    in by the façade (Library): ocr/ sits above sync/, writing through the sync's own batcher, so sync/ never
    imports it."""

    def __call__(self, store: Store, config: Config, encoder: PassageEncoder, index: IndexWriter, data_dir: Path,
                 progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None,
                 counted: Collection[str] = (), root_ids: Optional[Sequence[int]] = None,
                 full: Sequence[int] = (), held: Collection[int] = ()) -> SyncReport: ...


@dataclass
class StoppedSync:
    """A sync stopped before its end (Ctrl+C, the window closed, a `kill`, an error) as the next one finds it
    (sync/unsaid.py): how far it came, and the entries it (or a sync after it) left out whose reasons no finished
    sync has said yet. Its summary had never come, so "2 failed" in the next sync's said nothing of why."""

    stage: str = ""  # the Progress stage it had reached ("" before any report): "scanning", "extracting", ...
    done: int = 0  # of that stage's `total` (the files read, while reading)
    total: Optional[int] = None
    folder: str = ""  # which folder, where the sync read several ("Pictures, 2 of 4")
    exact: bool = False  # it stopped in-process and said how far it came; else (killed) its last mark, ~1 s behind
    # (path, state, reason) of the entries left out since it began and still left out (store/ledger.py's states),
    # the first of them by path: `left_out` counts them all, `failed` those of them that failed
    problems: list[tuple[str, str, str]] = field(default_factory=list)
    left_out: int = 0
    failed: int = 0


SKIP_DIRS_NOTE = "folders left out by [scan] skip_dirs"  # how a first sync's note on them begins (words_pass.py)


@dataclass
class SyncReport:
    scanned: int = 0  # every entry met: files on disk and the members of their archives and mail
    members: int = 0  # of `scanned`, the members (decision 0163: counted apart from the files wherever said)
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    # of `added` and `removed`: entries found again under another name in this sync (a rename or a move within
    # the folder: the bytes of one removed), said as one "renamed or moved" (`said`), never as two changes
    moved: int = 0
    # of `moved`, the members of an archive or a mail moved with it (its own entry among `moved`): one file renamed
    # is said as one, its members apart as the scan line counts them (decision 0163), not "12 renamed or moved"
    moved_members: int = 0
    # of `moved`, members found again in the same file under another name: a mailbox's later messages numbered
    # anew when one before them was deleted. Said as unchanged (they are, to a person), not as moves
    renumbered: int = 0
    # of `moved`, the entries not indexed (skipped or failed, with the same bytes and reason as before): counted in
    # `skipped` or `failed` where they are now, not in `added`. A folder renamed moves its password-protected and
    # textless files too: they were said as removed and "newly not indexed"
    moved_not_indexed: int = 0
    # of `moved_not_indexed`, scans still waiting for OCR (no engine, OCR off) found under another name: said as
    # moved, not also as waiting ("1 removed, 1 waiting for OCR" for a renamed scan)
    moved_waiting: int = 0
    # of `moved_not_indexed`, the failed ones (a broken PDF renamed, failing the same way): said as moved, not failed
    moved_failed: int = 0
    skipped: int = 0
    # of `skipped`, the entries left out on purpose (a rule: a secret, a lockfile; decisions 0177, 0178) or empty:
    # no problem, so the window's "not indexed" leaves them out (`left_out` names those newly left out)
    quiet: int = 0
    # of `quiet`, those found again under another name (an empty file renamed): said as moved, not also as left out
    moved_quiet: int = 0
    # of `skipped`, the entries still waiting for OCR when the sync ended (no engine, a stop, more than one sync
    # reads): said as "3 waiting for OCR", as `status` lists them (files_by_state's ocr_pending), not as skipped;
    # one its OCR step reads is counted added (or failed) instead
    ocr_pending: int = 0
    failed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0  # passages that went through the bi-encoder (the rest reused stored vectors)
    # waiting passages the meaning pass gave the vector of a copy of their text, not encoded again
    chunks_reused: int = 0
    # passages stored for their words whose vectors are still to come (after a words-only or cancelled sync)
    chunks_pending: int = 0
    # the process whose meaning pass embeds them (a writer that let this update in between its batches), else None
    # of `added` and `updated`, the members of archives and mail: a stop's "1,019 files done" beside the window's
    # "937 + 376" counted items as files (the window newcomer); said apart as the scan says them (decision 0163)
    members_written: int = 0
    embedded_by: Optional[str] = None
    # (path, reason) newly skipped, or failing, in this sync: a skip already recorded is not listed again
    problems: list[tuple[str, str]] = field(default_factory=list)
    # (path, state, reason) of entries not indexed before either, left out another way now (a reader now tells a
    # failed PDF is encrypted: failed, then skipped): said as "now skipped: REASON", not as newly not indexed, which
    # read as a file lost from the search
    reason_changed: list[tuple[str, str, str]] = field(default_factory=list)
    # (path, reason) newly left out by a rule (excluded): a secret (decision 0177), a lockfile or a minified bundle
    # (0178); said apart, as the app doing its job, not a problem
    left_out: list[tuple[str, str]] = field(default_factory=list)
    # (path, reason) newly not indexed for holding no words (an image OCR found none in, an SVG icon): counted with
    # `problems` as newly not indexed, as `status` and the window count them, and named after them (nothing to mend)
    no_words: list[tuple[str, str]] = field(default_factory=list)
    # (root, reason) of roots that could not be read: nothing of them was changed (an error for the caller)
    missing_roots: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. a path synced as part of the folder it is in
    # entries counted in `skipped` because they wait for OCR (sync/ocr_waits.py): the OCR step of the same sync
    # counts those it gives text as added instead
    waiting: list[str] = field(default_factory=list)
    # a shared library's reindex that went on with one begun earlier: the files that one still had to read
    resumed: Optional[int] = None
    # entries read again, bytes unchanged, because this version reads their format differently (decision 0152);
    # counted in `unchanged` where the very same passages came out, else in `updated` and listed here
    reread: int = 0
    read_differently: list[str] = field(default_factory=list)
    # An earlier sync that stopped before its end, and what it left out that no summary said (sync/unsaid.py):
    # said with this one's summary. None when the sync before this one finished.
    stopped_before: Optional[StoppedSync] = None
    # Files met and never opened, not in `scanned` (decision 0180: every file met is counted somewhere): of a type
    # that is no document (an image while OCR is off, a program, a video), by suffix in `not_document_types`; left
    # out by a rule of [scan], by rule ("hidden", "exclude")
    not_documents: int = 0
    not_document_types: dict[str, int] = field(default_factory=dict)
    left_out_by_rules: dict[str, int] = field(default_factory=dict)
    # folders left out by a rule (hidden, exclude, skip_dirs), not walked: the files in them are not met
    folders_left_out: dict[str, int] = field(default_factory=dict)

    def reread_note(self) -> Optional[str]:
        """What `reread` tells a person (the command line's note, the window's sync line), or None."""
        if not self.reread:
            return None
        said = f"{self.reread:,} file{'s' if self.reread != 1 else ''} read again by this version's readers (unchanged on disk)"
        changed = len(self.read_differently)
        if not changed:
            return said + ": the same passages, kept with their vectors"
        return said + (f": {changed:,} now read differently, indexed again; the rest kept their passages"
                       if changed < self.reread else ": each now read differently, indexed again")

    def said(self, *counts: str, zeros: bool = True) -> str:
        """These counts ("added", "updated", "unchanged", "removed", "skipped", "failed") as every summary says
        them: `said("added", "updated", "removed")` is "3 added, 0 updated, 1 removed". Entries renamed or moved
        are said once, after the additions ("1 renamed or moved", only when there is one; an archive with its
        members as one), and counted in neither the additions nor the removals; entries waiting for OCR after the
        skipped ("3 waiting for OCR", only when there are some), not among them, and entries left out on purpose (empty, a
        secret, a lockfile) after the failed ("2 left out", only when there are some). zeros=False leaves out the counts
        that are 0."""
        value = {"added": self.added - (self.moved - self.moved_not_indexed), "updated": self.updated,
                 "unchanged": self.unchanged + self.renumbered, "removed": self.removed - self.moved,
                 # a file left out that moved is said as moved, not also as skipped (the sum stays the files scanned)
                 # and one left out on purpose (empty, a secret) as left out, the word `status` counts it by
                 "skipped": self.skipped - self.ocr_pending - (self.moved_not_indexed - self.moved_waiting
                                                               - self.moved_failed) - (self.quiet - self.moved_quiet),
                 "failed": self.failed - self.moved_failed}
        waiting = self.ocr_pending - self.moved_waiting
        left_out = self.quiet - self.moved_quiet
        # after the last of skipped and failed said, as status orders them ("2 skipped, 1 failed, 2 left out")
        last = next((name for name in reversed(counts) if name in ("skipped", "failed")), None)
        parts: list[tuple[int, str]] = []
        for name in counts:
            parts.append((value[name], name))
            if name == "added" and self.moved - self.renumbered:
                parts.append((self.moved - self.moved_members - self.renumbered, "renamed or moved"))
            if name == "skipped" and waiting:
                parts.append((waiting, "waiting for OCR"))
            if name == last and left_out:
                parts.append((left_out, "left out"))
        return ", ".join(f"{n:,} {name}" for n, name in parts if n or zeros)

    def files_changed(self) -> int:
        """Entries added, updated, removed, newly skipped or failing, a move counted once: what a live update's line
        names, and whether it has anything to say."""
        return (self.added + self.updated + self.removed - (self.moved - self.moved_not_indexed) + self.skipped
                + self.failed - self.moved_not_indexed - self.renumbered)

    def merge(self, other: "SyncReport") -> None:
        for name in ("scanned", "members", "added", "updated", "members_written", "unchanged", "removed", "moved", "moved_members", "renumbered",
                     "moved_not_indexed", "moved_waiting", "moved_failed", "skipped", "quiet", "moved_quiet", "ocr_pending", "failed",
                     "chunks_added", "chunks_removed", "chunks_embedded", "chunks_reused", "chunks_pending", "reread", "not_documents"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.not_document_types, other.not_document_types),
                             (self.left_out_by_rules, other.left_out_by_rules),
                             (self.folders_left_out, other.folders_left_out)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        self.problems += other.problems
        self.reason_changed += other.reason_changed
        self.left_out += other.left_out
        self.no_words += other.no_words
        self.missing_roots += other.missing_roots
        self.notes += other.notes
        self.embedded_by = other.embedded_by or self.embedded_by  # the last to hand its meaning over
        self.waiting += other.waiting
        self.read_differently += other.read_differently
        self.stopped_before = other.stopped_before or self.stopped_before
