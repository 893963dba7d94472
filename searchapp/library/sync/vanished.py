"""The entries a sync finds gone, and which of them moved: a deleted entry whose very bytes the same sync added
under another name (a file renamed, or moved to another folder the library holds) is said as one change, never as
an addition and a removal (SyncReport.said; not to be confused with moved.py, a whole folder moved on disk and
followed by `searchapp moved`). The deleted entries of every root a sync reads are purged only once all of them are read
(Vanished): a file moved from one indexed folder to another is found again in the second, its passages' meaning
reused by their hashes, before the first lets them go (a newcomer's 5 KB file was embedded again, and a big PDF
would be, when the folder it left was synced first)."""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from typing import Optional

import numpy as np

from ...base.member_paths import split_member
from ...ingest.extractors.members import named_container
from ...store import FileRow, Store
from ...store.ledger import EMPTY
from .contract import IndexWriter, SyncReport
from .git_trees import GitTrees
from .meta_keys import record_moves
from .ocr_waits import WAITING

__all__ = ["Moves", "Vanished", "delete_entries"]


class Moves:
    """The bytes of the entries a sync adds, to count the deleted entries found again under another name (moved).
    Kept as the first 8 bytes of each sha256 (8 bytes an entry: a first sync of a million files resumed holds 8 MB,
    not the hex strings), looked at only where something was deleted."""

    def __init__(self) -> None:
        self._added = array("Q")
        self._spent: Counter[int] = Counter()  # additions that failed after all, or already matched a deletion
        self._containers: set[str] = set()  # the old paths of the archives and mail found moved (members_with)
        # Additions whose text the OCR step gives (a scan renamed): (key, path, already in _added), until `settle`
        self._waiting: list[tuple[int, str, bool]] = []
        self._waiting_keys: set[int] = set()
        # New entries not indexed (skipped, failed) whose bytes were read: (key, status, reason) -> their paths, a
        # path given back (`not_indexed_twins`) when a deleted entry left the same way is found to be it moved
        self._not_indexed: dict[tuple[int, str, str], list[str]] = {}
        # The files on disk holding the members added, by their bytes: a member found again in the same file is
        # renumbered (a mailbox with one message deleted numbers every later one anew), not moved
        self._member_in: dict[int, list[str]] = {}

    @staticmethod
    def _key(sha: Optional[str]) -> Optional[int]:
        try:
            return int(sha[:16], 16) if sha and len(sha) >= 16 else None
        except ValueError:  # not a hex digest: never a twin
            return None

    def add(self, sha: Optional[str], path: str = "") -> None:
        key = self._key(sha)
        if key is not None:
            self._added.append(key)
            outer, member = split_member(path)
            if member is not None:
                self._member_in.setdefault(key, []).append(sys.intern(outer))

    def wait(self, sha: Optional[str], path: str, *, added: bool) -> None:
        """An addition whose text (all of it, or its scanned pages') the OCR step gives after the words pass;
        `added`: counted by `add` already (a PDF's text layer was indexed)."""
        key = self._key(sha)
        if key is not None:
            self._waiting.append((key, path, added))
            self._waiting_keys.add(key)
            outer, member = split_member(path)
            if member is not None and not added:  # a scan in a mailbox, renumbered: `renumbered` asks (`add` did)
                self._member_in.setdefault(key, []).append(sys.intern(outer))

    def holds(self, row: FileRow) -> bool:
        """Whether an addition waiting for OCR has the bytes of the deleted entry `row`: one with passages whose
        meaning it may reuse, or one that was itself waiting (a scan renamed while no OCR engine reads it): kept
        until `settle`, which knows whether the OCR step gave the addition text."""
        return _waits_or_indexed(row) and self._key(row.sha256) in self._waiting_keys

    def settle(self, store: Store, held: list[FileRow]) -> Counter[int]:
        """After the OCR step: the waiting additions of the bytes of `held` (the entries kept for them) that it gave
        text are additions like any other; the others need no look (a first sync of 5,000 scans holds nothing).
        Returns the bytes of those still waiting, one count each: the twins of held entries that waited too."""
        keys = {self._key(row.sha256) for row in held}
        mine = [(key, path) for key, path, added in self._waiting if key in keys and not added]
        now = store.files_by_path(path for _, path in mine) if mine else {}
        still: Counter[int] = Counter()
        for key, path in mine:
            row = now.get(path)
            if row is not None and self._key(row.sha256) == key:
                if row.status == "indexed":
                    self._added.append(key)
                elif row.error == WAITING:
                    still[key] += 1
        self._waiting.clear()
        self._waiting_keys.clear()
        return still

    def drop(self, sha: Optional[str]) -> None:
        """An addition that failed after all: its bytes are not in the library."""
        key = self._key(sha)
        if key is not None:
            self._spent[key] += 1

    def add_not_indexed(self, sha: Optional[str], status: str, reason: str, path: str) -> None:
        """A new entry skipped or failed for `reason`, its bytes `sha` read: a deleted entry left out the same way
        with the same bytes is that one renamed or moved (`not_indexed_twins`)."""
        key = self._key(sha)
        if key is not None:
            self._not_indexed.setdefault((key, status, reason), []).append(path)

    def not_indexed_twins(self, gone: list[FileRow]) -> list[tuple[FileRow, str]]:
        """The deleted entries of `gone` not indexed whose bytes, state and reason a new entry has, each with that
        entry's path (each new entry used once). The reason too: the same bytes left out for another reason now (a
        file now too large, a reader that fails it) are news, listed as newly not indexed."""
        found = []
        for row in gone:
            if row.status in ("skipped", "failed") and (key := self._key(row.sha256)) is not None:
                paths = self._not_indexed.get((key, row.status, row.error or ""))
                if paths:
                    found.append((row, paths.pop()))
        return found

    def twins(self, gone: list[FileRow]) -> list[FileRow]:
        """The deleted entries of `gone` whose bytes are among the additions, each addition used once (over every
        call)."""
        rows = [(row, key) for row in gone if _waits_or_indexed(row) and (key := self._key(row.sha256)) is not None]
        if not rows or not self._added:
            return []
        added = np.frombuffer(self._added, dtype=np.uint64)
        left = Counter(added[np.isin(added, np.array([key for _, key in rows], dtype=np.uint64))].tolist())
        left.subtract(self._spent)
        moved = []
        for row, key in rows:
            if left[key] > 0:
                left[key] -= 1
                self._spent[key] += 1  # never the twin of another deleted entry (asked again later)
                moved.append(row)
        return moved

    def renumbered(self, moved: list[FileRow]) -> int:
        """How many of the entries `moved` are members found again in the file that held them, under another name:
        a mail's number, when a message before it was deleted (said as unchanged, not as "63 renamed or moved"
        for one message deleted)."""
        count = 0
        for row in moved:
            outer, member = split_member(row.path)
            found_in = self._member_in.get(self._key(row.sha256) or -1) if member is not None else None
            if found_in and outer in found_in:
                found_in.remove(outer)  # each addition once
                count += 1
        return count

    def members_with(self, moved: list[FileRow]) -> int:
        """How many of the entries `moved` are members whose archive or mail moved too (over every call: a member
        held for the OCR step is asked about after its container): said within their container's one move."""
        # The containers among them, told by the stored rows, not by their files (gone: a Thunderbird Inbox, which
        # only its bytes tell a mailbox, was "6 renamed or moved" for one file); not every file of a big move
        holders = {split_member(row.path)[0] for row in moved if split_member(row.path)[1] is not None}
        self._containers.update(row.path for row in moved if row.path in holders or named_container(row.path))
        return sum(1 for row in moved if (split := split_member(row.path))[1] is not None
                   and split[0] in self._containers)


class Vanished:
    """The entries found deleted by each root's sync of one sync (words_pass.sync_root) in `store`, purged together
    once every root has been read; `moves`: the additions of all those roots. One whose bytes an addition waiting
    for OCR has (a scan renamed: its text comes from the OCR cache after the words pass) is held until the OCR step
    is done (`settle`), so its passages' meaning is reused too and the rename is said as one."""

    def __init__(self, store: Store, index: IndexWriter) -> None:
        self.store, self.index = store, index
        self.moves = Moves()
        self._rows: list[FileRow] = []
        self._held: list[FileRow] = []

    def found(self, rows: list[FileRow]) -> None:
        self._rows += rows

    def held(self) -> list[int]:
        """The ids of the entries held for the OCR step: their files are gone, and `settle` deletes them, counting
        the moves. The step leaves them alone: one still waiting itself (a PDF's text layer indexed, its scanned
        page not read yet) was removed there as gone, "1 added, 1 removed", before `settle` counted the rename."""
        return [row.id for row in self._held]

    def purge(self, rep: SyncReport) -> None:
        """Delete the entries found (their passages, vectors and words), counted in `rep` with the moves among
        them, but those held for the OCR step. Deleted files go last, so a moved file's passages were found by
        hash and reused before."""
        rows, self._rows = self._rows, []
        held = [self.moves.holds(row) for row in rows]
        self._held += [row for row, h in zip(rows, held, strict=True) if h]
        self._delete([row for row, h in zip(rows, held, strict=True) if not h], rep)

    def settle(self, rep: SyncReport) -> None:
        """After the OCR step (or a stop before it): the entries held for it deleted, counted as `purge` counts;
        not those gone meanwhile (the OCR step removes a waiting entry whose file is gone: counted there)."""
        rows, self._held = self._held, []
        waiting = self.moves.settle(self.store, rows)
        if rows:
            still = self.store.files_by_path(row.path for row in rows)
            rows = [row for row in rows if row.path in still and still[row.path].id == row.id]
            rep.renumbered += self.moves.renumbered(_count_waiting_moves(rows, waiting, rep))
            self._delete(rows, rep)

    def _delete(self, rows: list[FileRow], rep: SyncReport) -> None:
        if rows:
            moved = self.moves.twins(rows)
            rep.moved += len(moved)
            rep.renumbered += self.moves.renumbered(moved)
            found = self.moves.not_indexed_twins(rows)
            # an archive's members that moved with it are said within its one move, read or left out alike
            rep.moved_members += self.moves.members_with(moved + [row for row, _ in found])
            _count_not_indexed_moves(found, rep)
            # where each went, for `explain` of its old path (the new path is known here for those not indexed)
            record_moves(self.store, [(row.path, row.sha256, None) for row in moved]
                         + [(row.path, row.sha256, to) for row, to in found])
            delete_entries(self.store, self.index, rows, rep)


def _waits_or_indexed(row: FileRow) -> bool:
    """An entry with passages, or one whose only text is to come from OCR: its bytes, found again, are a move."""
    return row.status == "indexed" or row.error == WAITING


def _count_waiting_moves(rows: list[FileRow], waiting: Counter[int], rep: SyncReport) -> list[FileRow]:
    """Count the entries of `rows` that waited for OCR and whose bytes an addition still waiting has as moved: a
    scan renamed while nothing reads it is one move, not a removal beside a new file waiting. (`twins` does not
    take them again: bytes still waiting are none of the additions it matches.) Returns those entries."""
    moved = []
    for row in rows:
        key = Moves._key(row.sha256)
        if row.error == WAITING and key is not None and waiting[key] > 0:
            waiting[key] -= 1
            rep.moved += 1
            rep.moved_not_indexed += 1
            rep.moved_waiting += 1
            moved.append(row)
    return moved


def _count_not_indexed_moves(found: list[tuple[FileRow, str]], rep: SyncReport) -> None:
    """Entries not indexed found again elsewhere, left out the same way: a move, not a removal, and not news (the
    sync listed their new paths as newly not indexed: a renamed folder's 12 password-protected and textless
    files were said as 12 removed and "12 files newly not indexed")."""
    if not found:
        return
    rep.moved += len(found)
    rep.moved_not_indexed += len(found)
    rep.moved_failed += sum(1 for row, _ in found if row.status == "failed")
    rep.moved_quiet += sum(1 for row, _ in found if row.status == "excluded" or row.error == EMPTY)
    moved_to = Counter(path for _, path in found)
    rep.problems = _not_moved(rep.problems, moved_to)
    rep.no_words = _not_moved(rep.no_words, moved_to)
    rep.left_out = _not_moved(rep.left_out, moved_to)  # a key left out, renamed: left out still, no news


def _not_moved(listed: list[tuple[str, str]], moved_to: Counter[str]) -> list[tuple[str, str]]:
    """The (path, reason) of `listed` but those whose path an entry moved to (each counted off once)."""
    kept = []
    for path, reason in listed:
        if moved_to[path] > 0:
            moved_to[path] -= 1
        else:
            kept.append((path, reason))
    return kept


def delete_entries(store: Store, index: IndexWriter, rows: list[FileRow], rep: SyncReport) -> None:
    """Delete the entries `rows` of files gone (their passages, vectors and words) in one transaction, counted in
    `rep` as removed: a sync's deleted files (Vanished), a scan deleted while the OCR step ran (ocr/step.py). The
    vectors of a file gone from a git tree go on the shelf (store/shelf.py, decision 0187): a desktop library's."""
    removed: list[int] = []
    shelve = getattr(store, "shelve_vectors", None)  # a shared library's server keeps no one's deleted files
    trees = GitTrees()
    with store.atomic():
        for row in rows:
            if shelve is not None and row.status == "indexed" and trees.gone_from(row.path):
                shelve(row.id, row.root_id)
            elif shelve is not None:  # excluded, or gone from no git tree: its earlier versions' meaning goes too
                store.unshelve_entry(row.id)
            removed += store.delete_file(row.id)
        store.bump_generation()
    if removed:
        index.remove(removed)
    rep.removed += len(rows)
    rep.chunks_removed += len(removed)
