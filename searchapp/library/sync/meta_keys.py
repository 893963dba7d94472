"""What a sync writes in the library's meta table for `status` to read (library/report/): a reindex under way, and
the passage context the stored vectors were embedded with. Here, below report/, so the writer and the reader share
one spelling of each."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterable, Optional

from ...base.config import Config

if TYPE_CHECKING:
    from ...ingest.scan import ScanResult
    from ...store import RootRow, Store

__all__ = ["REINDEX_META", "CONTEXT_META", "READERS_META", "MET_META", "MOVED_META", "passage_context",
           "record_passage_context", "record_readers", "readers_recorded", "read_by_older_readers", "record_met", "met_unopened",
           "record_moves", "recorded_move"]

REINDEX_META = "reindex_from"  # passages before a reindex began; "" (or absent) when none is under way
CONTEXT_META = "chunk_context"  # "title", "none", or "mixed" once passages of both kinds exist
READERS_META = "readers"  # "readers:<root id>": the readers a folder's last full sync read it with (decision 0152)
# "met:<root id>": the files a folder's last full sync met and never opened, as JSON {"not_documents": {".png": 3},
# "left_out_by_rules": {"hidden": 2}, "folders_left_out": {"skip_dirs": 1}} (decision 0180)
MET_META = "met"
# The entries the last syncs found renamed or moved (their bytes found again under another name), as JSON
# {old path: [sha256, new path or null]}, the newest MOVES_KEPT: `explain OLD` says where it went (decision 0192)
MOVED_META = "moved"
MOVES_KEPT = 1_000


def record_readers(store: Store, root_id: int) -> None:
    """A full sync of the folder `root_id` read every file an older reader had read: it holds this version's
    reading now."""
    from ...ingest.extractors import readers_fingerprint

    with store.atomic():
        store.set_meta(f"{READERS_META}:{int(root_id)}", readers_fingerprint())


def readers_recorded(store: Store, root_id: int) -> bool:
    """Whether the folder `root_id`'s last full sync read it with this version's readers (record_readers)."""
    from ...ingest.extractors import readers_fingerprint

    return store.get_meta(f"{READERS_META}:{int(root_id)}") == readers_fingerprint()


def record_met(store: Store, root_id: int, scanned: ScanResult) -> None:
    """What a full sync of the folder `root_id` met and never opened (`scanned`'s counts: the files that are no
    documents, by suffix; the files and the folders left out by rules): kept for `status`, which has no other record
    of them (they have no entry)."""
    with store.atomic():
        store.set_meta(f"{MET_META}:{int(root_id)}", json.dumps(
            {"not_documents": scanned.not_documents, "left_out_by_rules": scanned.left_out_by_rules,
             "folders_left_out": scanned.folders_left_out}, sort_keys=True))


def met_unopened(store: Store, root_id: int) -> dict[str, dict[str, int]]:
    """The counts record_met kept of the folder's last full sync ("not_documents", "left_out_by_rules",
    "folders_left_out"), each empty where none was recorded (a library written before decision 0180: its next full
    sync records them)."""
    raw = store.get_meta(f"{MET_META}:{int(root_id)}")
    try:
        met = json.loads(raw) if raw else {}
        return {key: {str(k): int(v) for k, v in met.get(key, {}).items()} for key in _MET_KEYS}
    except (ValueError, TypeError, AttributeError):  # written by no version of ours: as if none was
        return {key: {} for key in _MET_KEYS}


_MET_KEYS = ("not_documents", "left_out_by_rules", "folders_left_out")


def read_by_older_readers(store: Store, roots: Iterable[RootRow]) -> list[str]:
    """The folders (of `roots`) whose files an older version's readers read: the next full sync reads them again
    (decision 0152). One whose full sync recorded other readers; or, none recorded, one holding an entry read
    before readers had versions (a library written before 0152). A folder this version began to read and never
    finished (a cancelled first sync) is not one: its entries have this version's readers."""
    from ...ingest.extractors import readers_fingerprint
    from ...store.ledger import read_before_versions

    now = readers_fingerprint()
    older = []
    for r in roots:
        mark = store.get_meta(f"{READERS_META}:{r.id}")
        if mark != now and (mark is not None or read_before_versions(store, r.id)):
            older.append(r.path)
    return older


def passage_context(config: Config) -> str:
    """What the bi-encoder reads before each passage under `config`: "title" or "none"."""
    return "title" if config.chunking.title_context else "none"


def record_passage_context(store: Store, config: Config, had_passages: bool, embedded: int) -> None:
    """Meta `chunk_context`: what the stored passages were embedded with ("title", "none", or "mixed" once
    passages of both kinds exist). Unlike a model change this one is soft: both kinds of vector live in one
    space, so the library stays usable and `status` suggests a reindex (report/settings_check.passage_context_note).
    `had_passages`: the library had passages before this sync; `embedded`: passages this sync stored to be
    embedded with the current settings. The desktop's sync and a shared library's write it alike."""
    context = passage_context(config)
    with store.atomic():
        if not had_passages:
            store.set_meta(CONTEXT_META, context)
        elif embedded and store.get_meta(CONTEXT_META) != context:
            store.set_meta(CONTEXT_META, "mixed")


def record_moves(store: Store, moves: Iterable[tuple[str, Optional[str], Optional[str]]]) -> None:
    """Keep the (old path, sha256, new path when known) of entries a sync found renamed or moved, the newest
    MOVES_KEPT of all syncs: the library keeps no other trace of a path it held (`explain` of a renamed file said
    "cannot read" while the sync had just said "1 renamed or moved")."""
    known = [(old, sha, new) for old, sha, new in moves if sha]
    if not known:
        return
    kept = _moves(store)
    for old, sha, new in known:
        kept.pop(old, None)  # the newest last
        kept[old] = (sha, new)
    with store.atomic():
        store.set_meta(MOVED_META, json.dumps(dict(list(kept.items())[-MOVES_KEPT:])))


def recorded_move(store: Store, path: str) -> Optional[tuple[str, Optional[str]]]:
    """(sha256, new path or None) of the entry at `path` a sync found renamed or moved (record_moves), or None."""
    return _moves(store).get(path)


def _moves(store: Store) -> dict[str, tuple[str, Optional[str]]]:
    raw = store.get_meta(MOVED_META)
    try:
        kept = json.loads(raw) if raw else {}
        return {str(k): (str(v[0]), None if v[1] is None else str(v[1])) for k, v in kept.items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):  # written by no version of ours
        return {}
