"""What `status` reports about a library: its roots, counts, consistency, models and what needs doing.

Built from the store and the vector index only: no model is loaded and torch is never imported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Protocol, TypedDict

import numpy as np

from ...base.config import Config
from ...base.errors import ModelLoadError, ModelNotFoundError
from ...base.member_paths import display_path, member_fields
from ...ingest.connection_strings import HIDDEN_NOTE
from ...ingest.ocr.engine import ocr_unavailable_reason
from ...models.sentence_conventions import LibraryKeep, describe_prompt, library_keep
from ...base.plural import counted, members_noun, scanned_counts  # here too: a sync's `moved` says them
from ...store import Store
from ...store.ledger import cut_entries, excluded_by_rule, noted_count, problem_files_in_state, state_counts
from ...store.rows import RootRow
from ...store.shelf import SHELF_DAYS
from ..resources.undo_file import moves_halfway
from ..search.result import writer_embeds  # meaning_note's `who`: what a search beside it says too
from ..sync.meaning_pass import meaning_percent, meaning_progress
from ..sync.meaning_rate import left_note, meaning_left_s, remembered_rate
from ..sync.meta_keys import REINDEX_META, met_unopened, read_by_older_readers
from ..sync.roots import root_missing
from ..sync.contract import StoppedSync
from ..sync.unsaid import stopped_note, stopped_sync
from .not_indexed import (PAGES_WAITING, MemberGroups, Row, entries_in, group_in_states, members_in,
                          not_indexed_entries, ocr_waiting_in)
from .settings_check import passage_context_note, settings_mismatch

if TYPE_CHECKING:
    from ...models.identity import ModelIdentity
    from ..resources.lock import Holder

__all__ = ["RootStatus", "LibraryStatus", "CUT_SHOWN", "cut_lines", "BiEncoderStatus", "build_status", "reindex_notice", "IN_STORE",
           "folder_counts", "by_status", "members_noun", "scanned_counts", "unopened_counts"]



@dataclass
class RootStatus:
    path: str
    files: int  # files on disk (an archive or a mailbox itself is one); its members are `members` (decision 0163)
    chunks: int  # passages, of its files and members
    last_sync: Optional[float]
    missing: bool = False  # the folder cannot be read now; its files stay indexed and searchable
    state: str = "ok"  # "ok" or "missing"
    reason: Optional[str] = None  # why it is missing
    members: int = 0  # entries read out of its archives and mail: archive entries, messages, attachments
    # Files its last full sync met and never opened (decision 0180): of a type that is no document (by suffix), and
    # left out by a rule of [scan] (by rule: "hidden", "exclude"); not among `files`
    not_documents: int = 0
    not_document_types: dict[str, int] = field(default_factory=dict)
    left_out_by_rules: dict[str, int] = field(default_factory=dict)
    folders_left_out: dict[str, int] = field(default_factory=dict)  # by rule: not walked, their files not met
    # OLD, where `searchapp moved OLD` (to this folder) stopped halfway: the same move again goes on (sync/moved.py)
    moving_from: Optional[str] = None


CUT_SHOWN = 20  # entries cut by the text caps named by `status` (the rest counted)


def cut_lines(cut: list[tuple[str, str, int]], count: int, chunks: int) -> list[str]:
    """`status`'s lines on the entries the text caps cut: a heading, then each with its note and its share of the
    library's passages (a log that is most of the library is one to leave out: `[scan] exclude`)."""
    if not count:
        return []
    lines = [f"cut short by the text caps ({counted(count, 'file')}; words past the cut are not found):"]
    for path, note, n in cut:
        share = f", {100 * n // chunks}% of the library's passages" if chunks and 100 * n >= chunks else ""
        lines.append(f"  {display_path(path)}: {note} ({counted(n, 'passage')}{share})")
    if count > len(cut):
        lines.append(f"  … and {count - len(cut):,} more (`searchapp status --json` lists the first {len(cut)})")
    return lines


def folder_counts(files: int, members: int, passages: int, grouped: bool = False) -> str:
    """A folder's counts as `status` and the window say them: "2561 files, 163 items in archives and mail, 12000
    passages"; the members only where there are some. `grouped`: as counted's."""
    return ", ".join([counted(files, "file", grouped=grouped), *([members_noun(members, grouped)] if members else []),
                      counted(passages, "passage", grouped=grouped)])


_STATUS_ORDER = {"indexed": 0, "skipped": 1, "waiting for OCR": 2, "failed": 3, "left out": 4}


def by_status(counts: Mapping[str, int], ocr_pending: int = 0, empty: int = 0) -> str:
    """"2561 (2398 indexed, 151 skipped, 12 failed)": a total, then each status of it, indexed first. Of the
    skipped, the `ocr_pending` ones (scans waiting for the OCR step) are said apart, as a sync's summary says them:
    "5 (1 indexed, 1 skipped, 3 waiting for OCR)"; the `empty` ones are left out on purpose, with the excluded
    ones (a secret): "15 (13 indexed, 2 left out)", the count `status`'s "left out: empty: 1 file, secret: 1 file"
    breaks down (an empty file was "skipped" here and "left out" there: a newcomer)."""
    shown = dict(counts)
    if ocr_pending:
        shown["skipped"] = shown.get("skipped", 0) - ocr_pending
        shown["waiting for OCR"] = ocr_pending
    if empty:
        shown["skipped"] = shown.get("skipped", 0) - empty
    left_out = empty + shown.pop("excluded", 0)
    if left_out:
        shown["left out"] = left_out
    shown = {s: n for s, n in shown.items() if n or s != "skipped"}
    parts = sorted(shown.items(), key=lambda kv: (_STATUS_ORDER.get(kv[0], len(_STATUS_ORDER)), kv[0]))
    total = sum(counts.values())
    return f"{total}" + (f" ({', '.join(f'{n} {s}' for s, n in parts)})" if parts else "")


class BiEncoderStatus(TypedDict):
    """The configured bi-encoder as `status` shows it (_bi_encoder_status); the prompts, where they come from and
    the Normalize module are None when its files could not be read (not installed)."""

    spec: str
    pooling: str  # the one that runs
    pooling_setting: str  # models.pooling
    query_prompt: Optional[str]
    passage_prompt: Optional[str]
    prompts_from: Optional[str]
    declares_normalize: Optional[bool]
    library_model: Optional[str]  # what the library was built with (its meta)
    library_pooling: Optional[str]
    library_passage_prompt: Optional[str]
    fingerprint: Optional[str]


@dataclass
class LibraryStatus:
    data_dir: str
    roots: list[RootStatus]
    files: dict[str, int]  # status -> files on disk (decision 0163: an archive or mailbox is one, its members are not)
    chunks: int
    vectors: int
    consistent: bool  # True too when not judged now (consistency_checked False)
    failed: list[tuple[str, str, str]]  # (path, status, reason) of every skipped or failed file, not of `left_out`
    bi_encoder: BiEncoderStatus
    reranker: dict[str, Optional[str]]
    device: str
    notes: list[str] = field(default_factory=list)
    embedded: int = 0  # passages with a vector; below `chunks` a sync's phase 2 (meaning) is not finished
    reindex_needed: Optional[str] = None  # why the library must be rebuilt (`searchapp reindex`), or None
    ledger: dict[str, int] = field(default_factory=dict)  # per-file state (store/ledger.py) -> entries
    # (path, state in words, reason) of every entry not indexed, OCR pending included, then the indexed ones whose
    # pages wait for OCR, counted apart (decision 0155): the window's list (report/not_indexed.py: a container's
    # members left out for one reason are one row "N of its members: <reason>"; entries_in counts it)
    not_indexed: list[tuple[str, str, str]] = field(default_factory=list)
    member_groups: MemberGroups = field(default_factory=dict)  # (row path, state, reason) -> members, of both lists
    # The folders an older version's readers read (decision 0152): the next full sync reads their files again
    read_by_older: list[str] = field(default_factory=list)
    # (a row of `failed`) -> its ledger state (store/ledger.py), as the query that listed it gave it
    failed_states: dict[Row, str] = field(default_factory=dict)
    query_path: str = ""  # what encodes a query (models/onnx_query.describe_query_path)
    passage_path: str = ""  # what encodes passages (models/device_summary.describe_passage_path)
    # The vector index was still opening when this was taken (Library.status(wait_for_meaning=False)): the
    # vector figures and `consistent` are not known yet. Never set for `searchapp status`, which waits.
    index_opening: bool = False
    # False: this process was writing the library when this was taken (a sync's batch committed to the store, not yet
    # added to the index): the two are not compared then, as they may differ for that moment; `consistent` says True.
    consistency_checked: bool = True
    meaning_rate: Optional[float] = None  # passages/s the last sync measured here (sync/meaning_rate.py), or None
    # A shared library (library/shared.py): its address as shown, and the other machines' folders, (machine,
    # RootStatus): searched here too, synced and removed by their machine. `roots` are this machine's.
    address: Optional[str] = None
    elsewhere: list[tuple[str, RootStatus]] = field(default_factory=list)
    # Another process writing this library now ("process 4242 (searchapp index /docs)"), or None: during a first
    # sync the counts grow as it commits, and an empty library is one being filled, not a broken one.
    writer: Optional[str] = None
    members: dict[str, int] = field(default_factory=dict)  # status -> members of archives and mail (decision 0163)
    # Of the skipped files and members, those waiting for the OCR step (EntryCounts)
    files_ocr_pending: int = 0
    members_ocr_pending: int = 0
    # Of the skipped files and members, the empty ones: left out on purpose, counted in `left_out` by rule
    files_empty: int = 0
    members_empty: int = 0
    # The last sync, when it stopped before its end (sync/unsaid.py), with what it left out that no summary said;
    # None when it finished, or while a sync runs (its mark is its own)
    stopped: Optional[StoppedSync] = None
    # The entries left out on purpose, not listed in `failed`, by rule: {"secret": 3, "empty": 2} (decision 0177)
    left_out: dict[str, int] = field(default_factory=dict)
    # (path, note, passages) of the indexed entries whose text the caps cut (words past the cut are never found),
    # the most passages first, at most CUT_SHOWN; `cut_count`: how many there are
    cut: list[tuple[str, str, int]] = field(default_factory=list)
    cut_count: int = 0
    # The indexed entries a connection string's password was hidden in (decision 0197): kept, the password not
    passwords_hidden: int = 0
    # A sync runs now (`writer`) whose OCR step reads the entries waiting for OCR (OCR on, an engine there): they
    # are on their way, not "not indexed" (not_indexed_counts, decision 0201); once it has ended, those still waiting
    # are counted not indexed again
    ocr_under_way: bool = False

    @property
    def not_document_types(self) -> dict[str, int]:
        """The files of this machine's folders that are no document, by suffix, as their last full syncs met them."""
        return _summed(r.not_document_types for r in self.roots)

    @property
    def left_out_by_rules(self) -> dict[str, int]:
        """The files of this machine's folders left out by a rule of [scan] (hidden, excluded), by rule."""
        return _summed(r.left_out_by_rules for r in self.roots)

    @property
    def folders_left_out(self) -> dict[str, int]:
        """The folders left out by a rule (not walked: the files in them are not met), by rule."""
        return _summed(r.folders_left_out for r in self.roots)

    def files_met(self) -> int:
        """Every file the folders' syncs met (decision 0180): the entries (`files`: indexed, skipped, failed, excluded)
        and the files never opened (not documents, left out by rules)."""
        return (sum(self.files.values()) + sum(self.not_document_types.values())
                + sum(self.left_out_by_rules.values()))

    def not_indexed_counts(self) -> tuple[int, int, int]:
        """(entries not indexed, of them members of archives and mail, entries waiting for OCR that the sync running
        now reads: counted apart, not in the first two) of the window's list, `not_indexed` (or `failed`, of a status
        made without it): mid-sync, the scans of the folder being read were counted not indexed a minute before
        the OCR step read them (a newcomer)."""
        rows = self.not_indexed or self.failed
        under_way = self.ocr_under_way and bool(self.not_indexed)
        waiting = ocr_waiting_in(rows, self.member_groups) if under_way else 0
        return (entries_in(rows, self.member_groups, under_way), members_in(rows, self.member_groups, under_way),
                waiting)

    def to_json(self) -> dict[str, Any]:
        return {
            "data_dir": self.data_dir,
            "roots": [r.__dict__ for r in self.roots],
            "files": sum(self.files.values()),
            "files_by_status": self.files,
            "members": sum(self.members.values()),
            "members_by_status": self.members,
            "files_ocr_pending": self.files_ocr_pending,  # of files_by_status' skipped (and members')
            "members_ocr_pending": self.members_ocr_pending,
            "files_empty": self.files_empty,  # of files_by_status' skipped (and members'): in left_out's "empty"
            "members_empty": self.members_empty,
            "files_by_state": self.ledger,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "meaning": {"embedded": self.embedded, "total": self.chunks,
                        "percent": meaning_percent(self.embedded, self.chunks),
                        "passages_per_s": self.meaning_rate,
                        "left_s": _rounded(meaning_left_s(self.chunks - self.embedded, self.meaning_rate))},
            "consistent": self.consistent,
            "consistency_checked": self.consistency_checked,
            "failed": [self._failed_json(row) for row in self.failed],
            "left_out": self.left_out,
            "cut": [{**member_fields(p), "key": p, "note": note, "passages": n} for p, note, n in self.cut],
            "cut_count": self.cut_count,
            "passwords_hidden": self.passwords_hidden,
            "not_documents": sum(self.not_document_types.values()),
            "not_document_types": self.not_document_types,
            "left_out_by_rules": self.left_out_by_rules,
            "files_met": self.files_met(),
            "folders_left_out": self.folders_left_out,
            "models": {"bi_encoder": self.bi_encoder, "reranker": self.reranker},
            "device": self.device,
            "query_path": self.query_path,
            "passage_path": self.passage_path,
            "notes": self.notes,
            "reindex_needed": self.reindex_needed,
            "read_by_older_readers": self.read_by_older,
            "writer": self.writer,
            "stopped_sync": None if self.stopped is None else asdict(self.stopped),
        }

    def _failed_json(self, row: Row) -> dict[str, Any]:
        """A row of `failed` as every JSON output names an entry (docs/formats.md): `path` as shown (`a.zip ›
        x.docx`), `container` and `member`, and the library's own name beside it as `key` (`a.zip//x.docx`); a
        grouped row's members as shown (`members`) and their keys (`member_keys`), in the same order. "state": what
        `status --files STATE` finds it by; "status": the entry's own (skipped or failed)."""
        path, status, reason = row
        out: dict[str, Any] = {**member_fields(path), "key": path, "status": status, "state": self.failed_states[row],
                               "reason": reason}
        members = self.member_groups.get(row)
        if members is not None:
            out.update(members=[display_path(m) for m in members], member_keys=members)
        return out


def _shelf_note(db: Store) -> Optional[str]:
    """What the shelf keeps (decision 0187), said so a person knows what the library holds of files gone: a
    desktop library's alone (a shared library's server shelves nothing)."""
    count = getattr(db, "shelved_count", None)
    n = int(count()) if count is not None else 0
    return (f"{counted(n, 'vector', grouped=True)} of passages deleted from git trees kept for up to {SHELF_DAYS} "
            "days, so a branch switched back is not embedded again (decision 0187; `remove` of the folder takes "
            "them)") if n else None


def _older_note(folders: list[str]) -> Optional[str]:
    if not folders:
        return None
    n = len(folders)
    return (f"{'this folder was' if n == 1 else f'{n} folders were'} read by an older version's readers: the next "
            "sync (`searchapp index`) reads their files again, with this version's (passages that come out the "
            "same keep their vectors)")


def reindex_notice(reader: Store) -> Optional[str]:
    """"reindex in progress: N% of passages embedded" while a reindex (here or in another process) has not
    finished, else None. A reindex drops every vector and syncs again: words come back first (phase 1), then
    meaning (phase 2); N is the passages with a vector of those before the reindex began, or of those stored
    now if there are more."""
    before = reader.get_meta(REINDEX_META)
    if not before or not before.isdigit() or int(before) == 0:
        return None
    embedded, total = meaning_progress(reader)
    done = min(99, 100 * embedded // max(total, int(before)))  # chunking may change the total: never 100
    return (f"reindex in progress: {done}% of passages embedded (meaning: {done}% of passages); meaning "
            "search finds only those, word search every passage stored so far (an interrupted reindex finishes "
            "with `searchapp reindex` or `searchapp index`)")


def meaning_note(embedded: int, total: int, rate: Optional[float] = None, who: Optional[str] = None
                 ) -> Optional[str]:
    """For `status`: passages still without a vector, outside a reindex (whose notice says it), how long they
    take at the rate the last sync measured, and who embeds them (`who`; by default `searchapp index`)."""
    if embedded >= total:
        return None
    left = left_note(total - embedded, rate)
    return (f"meaning: {meaning_percent(embedded, total)}% of passages ({total - embedded} still to embed"
            + (f", {left}" if left else "") + "; searchable by words already; "
            + (who or "`searchapp index` embeds the rest") + ")")


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 1)


def ocr_under_way(config: Config, writer: Optional[Holder]) -> bool:
    """Whether the entries waiting for OCR are read by the sync running now (`writer`): its OCR step, after the words
    and their meaning, reads every one (up to OCR_FILES_PER_SYNC), unless OCR is off or no engine is there."""
    return writer is not None and bool(config.scan.ocr) and ocr_unavailable_reason() is None


def ocr_status_note(config: Config, counts: Mapping[str, int], under_way: bool = False) -> Optional[str]:
    """A status line when files wait for OCR: why (no engine), or that the next sync (`under_way`: the one running
    now) reads them. The indexed PDFs whose pages wait are counted apart (decision 0155: they are not among the
    files not indexed)."""
    waiting, pages = counts.get("ocr_pending", 0), counts.get(PAGES_WAITING, 0)
    if not waiting and not pages:
        return None
    who = " and ".join(part for part in (f"{waiting} file(s)" if waiting else "",
                                      f"{pages} indexed file(s) with pages without text (`searchapp status --files "
                                      f"{PAGES_WAITING}`)" if pages else "") if part)
    if not config.scan.ocr:
        return f"{who} wait for OCR, which is turned off (scan.ocr = false)"
    reason = ocr_unavailable_reason()
    if reason:
        return f"{who} wait for OCR: {reason}"
    return f"{who} wait for OCR: the " + ("sync running now reads them after the words" if under_way else
                                          "next sync reads them")


class IndexIds(Protocol):
    """What status reads of the vector index: a VectorIndex, or the ids of its file (SavedIds)."""

    def __len__(self) -> int: ...

    def ids(self) -> np.ndarray: ...


class InStore:
    """The vectors are an index of the store itself (a shared library: pgvector's HNSW over the passages table):
    it holds every stored vector by construction, and pgvector refuses NaN and infinity, so none is unusable."""


IN_STORE = InStore()


@dataclass(frozen=True)
class SavedIds:
    """The live ids of an index file read without building the graph (IndexKeeper.current_ids), sorted."""

    sorted_ids: np.ndarray

    def __len__(self) -> int:
        return len(self.sorted_ids)

    def ids(self) -> np.ndarray:
        return self.sorted_ids


def build_status(config: Config, data_dir: str, db: Store, index: Optional[IndexIds | InStore],
                 index_notice: Optional[str], *, index_opening: bool = False,
                 integrity: Optional[Callable[[], bool]] = None, owner: Optional[str] = None,
                 writer: Optional[Holder] = None, embedder: Optional[str] = None,
                 writing_here: bool = False) -> LibraryStatus:
    """`db`: a reader; `index`: the vector index brought up to date with it, or the ids of its file when that is
    current (SavedIds), or None (no vectors yet, or `index_opening`: it is still opening in the background), or
    IN_STORE (the store's own index: no id is read); `owner`: a shared library's machine, whose files alone the
    lists of files not indexed hold (as `roots` do there);
    `integrity`: gives SQLite's quick_check verdict, asked last (it may be running on another thread meanwhile;
    None: run it now; see library/resources/integrity.py); `writer`: the process writing the library now;
    `embedder`: who embeds the passages still waiting, when not `searchapp index` (a shared library's other
    machines); `writing_here`: this process is writing the library now (a sync mid-batch): the index and the store
    are not compared (consistency_checked False)."""
    from ...models.device_summary import describe_device  # no torch without CUDA

    rows, roots = _roots(db, data_dir)
    embedded, chunks = meaning_progress(db)
    meta = db.meta()
    keep = library_keep(config.models.pooling, meta, bool(embedded or chunks))
    identity = _identity(config, keep)
    vectors, unusable, consistent = _vectors_check(db, index, embedded)
    rate = remembered_rate(db)
    # How passages were embedded is a question only once some were (a first sync still reading words has none).
    notes = [n for n in (index_notice, passage_context_note(config, meta) if embedded else None,
                         reindex_notice(db) or meaning_note(embedded, chunks, rate, embedder or writer_embeds(writer)))
             if n]
    reindex_needed = settings_mismatch(config, meta) if chunks else None
    ledger = state_counts(db)
    under_way = ocr_under_way(config, writer)
    # An unplugged drive's folder waits until it is back: the window would say at every start that it reads it again
    older = read_by_older_readers(db, [r for r, shown in zip(rows, roots, strict=True) if not shown.missing])
    notes += [n for n in (ocr_status_note(config, _waiting(db, ledger, owner), under_way),
                          _kept_note(config, keep, identity), _older_note(older), _shelf_note(db)) if n]
    if len(unusable):
        notes.append(_unusable_note(len(unusable)))
        reindex_needed = reindex_needed or notes[-1]
    failed, failed_states, not_indexed, member_groups = _not_indexed(db, owner)
    entries = db.file_counts()
    cut, cut_count = cut_entries(db, owner, CUT_SHOWN)
    stopped = stopped_sync(db, owner=owner) if writer is None else None
    if stopped is not None:
        notes.insert(0, stopped_note(stopped))
    return LibraryStatus(
        stopped=stopped,
        writer=None if writer is None else str(writer),
        ocr_under_way=under_way,
        index_opening=index_opening,
        data_dir=data_dir,
        roots=roots,
        files=entries.files,
        members=entries.members,
        files_ocr_pending=entries.files_ocr_pending,
        members_ocr_pending=entries.members_ocr_pending,
        files_empty=entries.files_empty,
        members_empty=entries.members_empty,
        chunks=chunks,
        vectors=vectors,
        consistent=(db.integrity_ok() if integrity is None else integrity()) and (bool(consistent) or writing_here),
        consistency_checked=not writing_here,
        failed=failed,
        failed_states=failed_states,
        read_by_older=older,
        bi_encoder=_bi_encoder_status(config, meta, identity),
        reranker=_reranker_status(config),
        device=describe_device(config.models.device, config.models.threads),
        notes=notes,
        embedded=embedded,
        meaning_rate=rate,
        reindex_needed=reindex_needed,
        ledger=ledger,
        not_indexed=not_indexed,
        left_out=excluded_by_rule(db, owner),
        cut=cut,
        cut_count=cut_count, passwords_hidden=noted_count(db, HIDDEN_NOTE, owner),  # decision 0197
        member_groups=member_groups,
        query_path=_query_path(config, data_dir, identity),
        passage_path=_passage_path(config, identity),
    )


def _waiting(db: Store, ledger: dict[str, int], owner: Optional[str]) -> dict[str, int]:
    """The states whose scans the OCR note says wait for this machine's next sync: a shared library's other
    machines' scans are theirs to read ("the next sync reads them" was said to a desktop whose sync reads none of
    them: a tester with no scans was told of another desk's 85 waiting)."""
    return ledger if owner is None else state_counts(db, owner)


def _roots(db: Store, data_dir: str) -> tuple[list[RootRow], list[RootStatus]]:
    """The library's folders, as stored and as status says them (a move stopped halfway marked on its new place)."""
    rows = db.roots()
    halfway = moves_halfway(Path(data_dir), [r.path for r in rows])
    return rows, [_root_status(db, r, halfway.get(r.path)) for r in rows]


def _not_indexed(db: Store, owner: Optional[str]) -> tuple[list[Row], dict[Row, str], list[Row], MemberGroups]:
    """The entries that failed, grouped and by state, and those not indexed, with the members of each container
    among them: status's lists of what was not read."""
    failed, failed_groups, failed_states = group_in_states(
        [(state, (f.path, f.status, f.error or "")) for state, f in problem_files_in_state(db, owner)])
    not_indexed, member_groups = not_indexed_entries(db, owner=owner)
    return failed, failed_states, not_indexed, {**failed_groups, **member_groups}


def _vectors_check(db: Store, index: Optional[IndexIds | InStore], embedded: int) -> tuple[int, np.ndarray, bool]:
    """(vectors, ids of vectors not finite, whether the index and the store agree): the store's own index (IN_STORE)
    is the store's, nothing to compare."""
    if isinstance(index, InStore):
        return embedded, np.empty(0, dtype=np.int64), True
    return _index_check(db, index, embedded)


def _unusable_note(n: int) -> str:
    return (f"{n} passages have vectors that are not finite (NaN/inf, from a model that failed); "
            "dense search leaves them out until `searchapp reindex` embeds them again with a working model")


def _passage_path(config: Config, identity: Optional[ModelIdentity]) -> str:
    """What encodes passages (models/device_summary.describe_passage_path), and on a CPU what a small meaning
    pass takes instead, for a model that reads passages as it reads queries (sync_encoder.py, decision 0164)."""
    from ...models.device_summary import LAST_LAYER_POOLINGS, describe_passage_path  # no torch without CUDA
    from ..resources.model_set import ModelSet
    from ..resources.sync_encoder import LEAN_PASSAGES

    m = config.models
    path = describe_passage_path(
        m.device, m.precision, m.threads,
        fused=identity is not None and identity.plain_bert and identity.pooling in LAST_LAYER_POOLINGS)
    # The sync's own judge of a GPU (SyncEncoder._lean): device nodes, where the line above asks CUDA's driver, so a
    # GPU that torch here cannot use (WSL's /dev/dxg, ROCm's /dev/kfd, CUDA_VISIBLE_DEVICES="") says no lean pass.
    if (identity is None or " on " in path or not path.startswith("torch") or ModelSet(config).may_use_gpu()
            or identity.query_prompt or identity.passage_prompt):
        return path
    return f"{path}; up to {LEAN_PASSAGES} waiting: the query path, without loading torch"


def _root_status(db: Store, r: RootRow, moving_from: Optional[str] = None) -> RootStatus:
    """One folder as `status` shows it: its counts (files and members apart: decision 0163; the files never opened:
    decision 0180), whether it is missing, where a move to it stopped halfway from."""
    counts = db.root_counts(r.id)
    gone = root_missing(db, r)
    met = met_unopened(db, r.id)
    return RootStatus(r.path, counts.files, counts.passages, r.last_sync, missing=gone is not None,
                      state="missing" if gone else "ok", reason=gone, members=counts.members,
                      not_documents=sum(met["not_documents"].values()), not_document_types=met["not_documents"],
                      left_out_by_rules=met["left_out_by_rules"], folders_left_out=met["folders_left_out"],
                      moving_from=moving_from)


def _summed(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for key, n in c.items():
            out[key] = out.get(key, 0) + n
    return dict(sorted(out.items()))


def by_rule_counts(counts: Mapping[str, int]) -> str:
    """"secret: 3 files, empty: 2 files": the entries left out on purpose, by rule, the most first."""
    return ", ".join(f"{rule}: {counted(n, 'file')}" for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def unopened_counts(not_documents: Mapping[str, int], left_out_by_rules: Mapping[str, int],
                    folders: Mapping[str, int]) -> str:
    """The files met and never opened, as `index` and `status` say them (decision 0180): "3 not documents (.exe,
    .png 2), 2 left out by rules (hidden 2), 1 folder not walked (skip_dirs)"; "" when there are none."""
    def listed(counts: Mapping[str, int]) -> str:
        by_count = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(k if n == 1 else f"{k} {n:,}" for k, n in by_count[:8])
        return shown + (", …" if len(by_count) > 8 else "")

    parts = []
    if not_documents:
        n = sum(not_documents.values())
        parts.append(f"{n:,} not document{'s' if n != 1 else ''} ({listed(not_documents)})")
    if left_out_by_rules:
        parts.append(f"{sum(left_out_by_rules.values()):,} left out by rules ({listed(left_out_by_rules)})")
    if folders:
        n = sum(folders.values())
        parts.append(f"{n:,} folder{'s' if n != 1 else ''} not walked ({listed(folders)}: the files in "
                     f"{'them' if n != 1 else 'it'} are not counted)")
    return ", ".join(parts)


def _index_check(db: Store, index: Optional[IndexIds], embedded: int) -> tuple[int, np.ndarray, bool]:
    """(vectors in the index, stored passages whose vector is unusable, whether the index holds exactly the
    stored vectors less those)."""
    # One read of the index (its lock held for it): its count apart was a second read, and a sync of this process
    # adding a batch between the two made them disagree
    have = index.ids() if index is not None else None
    vectors = len(have) if have is not None else 0
    stored_ids = db.embedded_ids()  # passages waiting for a vector are not in the index yet, rightly
    # Both sorted and unique: NumPy's set routines told so skip sorting or hashing a million ids again (~0.4 s
    # a call at a million, per status).
    absent = np.setdiff1d(stored_ids, have, assume_unique=True) if have is not None else stored_ids[:0]
    unusable = _unusable_vectors(db, absent)
    # Rows with NaN/inf vectors are left out of the index on purpose: consistent when the index holds only stored
    # ids and as many as the stored ones less those (then it holds exactly them: each absent one is unusable).
    consistent = vectors + len(unusable) == embedded and (
        have is None or not len(np.setdiff1d(have, stored_ids, assume_unique=True)))
    return vectors, unusable, bool(consistent)


def _bi_encoder_status(config: Config, meta: Mapping[str, str], identity: Optional[ModelIdentity]) -> BiEncoderStatus:
    """The configured bi-encoder as `status` shows it: the pooling that runs (models.pooling, or for "auto" the
    model's declared one), what its files declare (prompts, normalization), and what the library was built with."""
    m = config.models
    conv = identity.conventions if identity is not None else None
    return {"spec": m.bi_encoder, "pooling": identity.pooling if identity is not None else m.pooling,
            "pooling_setting": m.pooling,
            "query_prompt": conv.query_prompt if conv else None,
            "passage_prompt": conv.passage_prompt if conv else None,
            "prompts_from": conv.prompts_from if conv else None,
            "declares_normalize": conv.normalize if conv else None,
            "library_model": meta.get("model"), "library_pooling": meta.get("pooling"),
            "library_passage_prompt": meta.get("passage_prompt"), "fingerprint": meta.get("model_fingerprint")}


def _identity(config: Config, keep: Optional[LibraryKeep] = None) -> Optional[ModelIdentity]:
    """The configured bi-encoder read from its files, no model loaded (None: not installed, or unreadable), as
    this library runs it (`keep`: sentence_conventions.library_keep)."""
    from ...models.identity import bi_encoder_identity

    keep = keep or LibraryKeep(config.models.pooling)
    try:
        return bi_encoder_identity(config.models.bi_encoder, pooling=keep.pooling, prompts=keep.prompts)
    except (ModelLoadError, OSError, ValueError):  # no model, or one status cannot read: nothing to say
        return None


def _kept_note(config: Config, keep: LibraryKeep, running: Optional[ModelIdentity]) -> Optional[str]:
    """One line when this library runs as it was built before models' own pooling and prompts were read, and
    the model declares others: what it declares and that a reindex would use it (decision 0112)."""
    if not keep.kept or running is None:
        return None
    declared = _identity(config)
    if declared is None:
        return None
    differ = []
    if declared.pooling != running.pooling:
        differ.append(f"{declared.pooling} pooling")
    if declared.query_prompt:
        differ.append(f"the query prompt {describe_prompt(declared.query_prompt)}")
    if declared.passage_prompt:
        differ.append(f"the passage prompt {describe_prompt(declared.passage_prompt)}")
    if not differ:
        return None
    return (f"the model declares {' and '.join(differ)}; this library, built before searchapp read them, keeps "
            f"{running.pooling} pooling and no prompts: `searchapp reindex` would use the model's")


def _query_path(config: Config, data_dir: str, identity: Optional[ModelIdentity]) -> str:
    """Which path encodes queries, found without loading a model ("" when the bi-encoder is not installed)."""
    from pathlib import Path

    from ...models.onnx_query import CACHE_DIR, describe_query_path

    if identity is None:
        return ""
    return describe_query_path(Path(data_dir) / CACHE_DIR, identity.fingerprint, config.models.pooling)


def _reranker_status(config: Config) -> dict[str, Optional[str]]:
    """Whether the configured cross-encoder's weights are here, found without loading them."""
    from ...models.resolve import resolve_model

    m = config.models
    rer: dict[str, Optional[str]] = {"spec": m.reranker or None, "path": None, "available": "no", "message": None,
                                     "refused": None}
    if m.reranker:
        try:
            rer["path"] = str(resolve_model(m.reranker, kind="reranker").path)
            rer["available"] = "yes"
        except ModelLoadError as exc:
            rer["message"] = str(exc)
            if not isinstance(exc, ModelNotFoundError):  # found but refused: pickles only, custom code
                rer["refused"] = str(exc)
    return rer


def _unusable_vectors(db: Store, absent: np.ndarray) -> np.ndarray:
    """Ids of stored passages whose vectors are NaN/inf (left out of the index): among `absent`, those stored
    with a vector the index lacks, the ones Store.vectors does not return. Cheap: only those are read."""
    if not len(absent):
        return absent
    finite_ids, _ = db.vectors(absent.tolist())
    return np.setdiff1d(absent, finite_ids)
