"""The entries a library holds (the `files` table: a file or an archive's member, its stat, hash, state and
passage count): looked up, written, counted, forgotten. A mixin of Store (store/db.py); a file's passages go with
it (store/passage_records.py)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Optional, Sequence

from ..base.entry_dates import clamped_ns, storable_ns
from ..base.member_paths import MEMBER_SEP
from .rows import EntryCounts, FileRow
from .statements import Statements

__all__ = ["FileRecords", "FILE_COLS", "NEWER_COLUMNS", "file_cols", "stored_notes", "MAX_STORED_NOTES",
           "IS_MEMBER", "entry_counts", "entry_counts_sql"]

FILE_COLS = "id, root_id, path, size, mtime_ns, sha256, status, error, kind, n_chunks, ctime_ns, reader, ocr"
# The files table's columns an older library may lack where nothing may migrate it (decisions 0150, 0152)
NEWER_COLUMNS = ("ctime_ns", "notes", "reader")
MAX_STORED_NOTES = 20  # an entry's notes kept for `explain`: a workbook's or a deck's can run to thousands


def stored_notes(notes: Sequence[str]) -> Optional[str]:
    """An entry's notes as the files table keeps them (both engines): one a line, the first MAX_STORED_NOTES
    and then how many more there were (a note per sheet or slide of a large workbook or deck printed thousands
    of lines in `explain`); None when there are none."""
    kept = list(notes[:MAX_STORED_NOTES])
    if len(notes) > MAX_STORED_NOTES:
        kept.append(f"… and {len(notes) - MAX_STORED_NOTES:,} more")
    return "\n".join(kept) or None


def file_cols(missing: frozenset[str]) -> str:
    """FILE_COLS of a files table, NULL for each of the `missing` columns of an older one that a reader opens as it
    is (read-only, or a shared library's role that may not migrate it)."""
    cols = FILE_COLS
    for name in missing & {"ctime_ns", "reader"}:  # the NEWER_COLUMNS that FILE_COLS reads
        cols = cols.replace(name, f"NULL AS {name}")
    return cols


# Whether a row is a member of an archive or a mailbox: its key holds MEMBER_SEP (a parameter) after its first
# character, as base/member_paths.split_member reads it (a leading "//" is a POSIX root, not a separator). No index
# finds members (a container's sort among its folder's files), and none is needed where this is asked: the counts
# read every row of `files`, or of one root, anyway. PostgreSQL's is pg_store's (strpos for instr).
IS_MEMBER = "instr(substr(path, 2), ?) > 0"


EMPTY_REASON = "empty"  # the reason of a skipped entry of 0 bytes, or of whitespace alone (ledger.EMPTY)


def entry_counts(rows: Iterable[Sequence[Any]]) -> EntryCounts:
    """(status, is a member, waits for OCR, is empty, count) rows (entry_counts_sql's) as EntryCounts."""
    files: dict[str, int] = {}
    members: dict[str, int] = {}
    pending = [0, 0]  # files, members
    empty = [0, 0]
    for status, member, waits, blank, n in rows:
        counts = members if member else files
        counts[str(status)] = counts.get(str(status), 0) + int(n)
        if waits:
            pending[bool(member)] += int(n)
        if blank:
            empty[bool(member)] += int(n)
    return EntryCounts(files, members, *pending, *empty)


def entry_counts_sql(is_member: str) -> str:
    """The entries by status, member or not (`is_member`: the engine's test of a path, IS_MEMBER here), skipped
    waiting for OCR or not, and skipped as empty or not: the one statement both engines count by (entry_counts
    reads its rows)."""
    return (f"SELECT status, {is_member}, coalesce(status = 'skipped' AND ocr = 'pending', false), "  # noqa: S608 (constants)
            f"coalesce(status = 'skipped' AND error = '{EMPTY_REASON}', false), count(*) FROM files GROUP BY 1, 2, 3, 4")


class FileRecords(Statements):
    # The NEWER_COLUMNS the files table lacks (an older library read as it is): set by Store as it opens it.
    files_missing: frozenset[str] = frozenset()

    @property
    def file_cols(self) -> str:
        return file_cols(self.files_missing)
    if TYPE_CHECKING:  # store/passage_records.py's and store/db.py's, later in Store's method order
        def delete_chunks_of_file(self, file_id: int) -> list[int]: ...

        def atomic(self) -> ContextManager[None]: ...

    def files_of_root(self, root_id: int) -> dict[str, FileRow]:
        rows = self.conn.execute(f"SELECT {self.file_cols} FROM files WHERE root_id = ?", (root_id,))  # noqa: S608 (constants and ? only)
        return {r[2]: FileRow(*r) for r in rows}

    def has_files(self, root_id: int) -> bool:
        return self.conn.execute("SELECT 1 FROM files WHERE root_id = ? LIMIT 1", (root_id,)).fetchone() is not None

    def has_files_below(self, root_id: int, path: str) -> bool:
        """Whether the root holds a file strictly below `path` (then `path` was indexed as a folder). A member of
        `path` itself (`path//member`: a zip or mbox indexed on its own) is not below it: `path` is a file."""
        below = path.rstrip(os.sep) + os.sep
        after = chr(ord(os.sep) + 1)
        # two ranges around the members' `path//`: names under `path/` sorting before the separator, and after it
        return self.conn.execute(
            "SELECT 1 FROM files WHERE root_id = ? AND ((path >= ? AND path < ?) OR (path >= ? AND path < ?)) LIMIT 1",
            (root_id, below, below + os.sep, below + after, below[:-1] + after)).fetchone() is not None

    def files_under(self, root_id: int, path: str) -> dict[str, FileRow]:
        """Files of a root at `path` or below it (a range scan on the path index, not a full listing)."""
        below = path.rstrip(os.sep) + os.sep
        rows = self.conn.execute(
            f"SELECT {self.file_cols} FROM files WHERE root_id = ? AND (path = ? OR (path >= ? AND path < ?))",  # noqa: S608 (constants and ? only)
            (root_id, path, below, below[:-1] + chr(ord(os.sep) + 1)),  # the next character after the separator
        )
        return {r[2]: FileRow(*r) for r in rows}

    def file_by_path(self, path: str) -> Optional[FileRow]:
        r = self.conn.execute(f"SELECT {self.file_cols} FROM files WHERE path = ?", (path,)).fetchone()  # noqa: S608 (constants and ? only)
        return FileRow(*r) if r else None

    def files_by_path(self, paths: Iterable[str]) -> dict[str, FileRow]:
        """path -> row of those of `paths` that are stored (one statement per 500, not one per path)."""
        rows = self.select_in(f"SELECT {self.file_cols} FROM files WHERE path IN ({{}})", dict.fromkeys(paths))  # noqa: S608 (constants and ? only)
        return {r.path: r for r in (FileRow(*t) for t in rows)}

    def problem_files(self) -> list[FileRow]:
        rows = self.conn.execute(f"SELECT {self.file_cols} FROM files WHERE status != 'indexed' ORDER BY status, path")  # noqa: S608 (constants and ? only)
        return [FileRow(*r) for r in rows]

    def upsert_file(self, root_id: int, path: str, size: int, mtime_ns: int, sha256: Optional[str],
                    status: str, error: Optional[str], kind: Optional[str], n_chunks: int,
                    embed_title: Optional[str] = None, *, ctime_ns: Optional[int] = None,
                    notes: Sequence[str] = (), reader: Optional[int] = None) -> int:
        """`embed_title`: what the bi-encoder reads before each passage (for passages embedded later);
        `ctime_ns`: FileRow.ctime_ns; `notes`: what reading it left out (Document.notes), for `explain`;
        `reader`: FileRow.reader."""
        file_id = int(self.conn.execute(
            """INSERT INTO files(root_id, path, size, mtime_ns, sha256, status, error, kind, n_chunks, indexed_at,
                                 embed_title, ctime_ns, notes, reader)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                 mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, status = excluded.status,
                 error = excluded.error, kind = excluded.kind, n_chunks = excluded.n_chunks,
                 indexed_at = excluded.indexed_at, embed_title = excluded.embed_title, ctime_ns = excluded.ctime_ns,
                 notes = excluded.notes
               RETURNING id""",  # the row's id, inserted or updated: no second look-up
            (root_id, path, size, clamped_ns(mtime_ns), sha256, status, error, kind, n_chunks, time.time(), embed_title,
             ctime_ns, stored_notes(notes), reader),
        ).fetchone()[0])
        # After the row, by a statement of its own: the row's new bytes made the files_reader_unknown trigger forget
        # the reader (migrations.py), as it must when a version that knows no readers writes them.
        self.execute("UPDATE files SET reader = ? WHERE id = ?", (reader, file_id))
        return file_id

    def set_file_stat(self, file_id: int, size: int, mtime_ns: int, ctime_ns: Optional[int] = None) -> None:
        self.set_file_stats([(file_id, size, mtime_ns, ctime_ns)])

    def set_file_stats(self, rows: Sequence[tuple[int, int, int, Optional[int]]]) -> None:
        """set_file_stat of many entries kept as they were, (file id, size, mtime, ctime) each, in one transaction:
        after a `chmod -R` every file of a folder has a new ctime, and one commit each would cost seconds."""
        with self.atomic():
            self.conn.executemany("UPDATE files SET size = ?, mtime_ns = ?, ctime_ns = ? WHERE id = ?",
                                  [(size, clamped_ns(mtime), ctime, i) for i, size, mtime, ctime in rows])

    def set_file_readers(self, rows: Sequence[tuple[int, Optional[int], Sequence[str], Optional[int]]]) -> None:
        """(file id, reader, notes, own date) of entries read again by a newer reader that gave the very same
        passages (decision 0152): only their rows change, in one transaction. A date of None keeps the stored one."""
        with self.atomic():
            self.conn.executemany("UPDATE files SET reader = ?, notes = ?, date_ns = coalesce(?, date_ns) WHERE id = ?",
                                  [(reader, stored_notes(notes), storable_ns(date), i) for i, reader, notes, date in rows])

    def delete_file(self, file_id: int) -> list[int]:
        ids = self.delete_chunks_of_file(file_id)
        self.execute("DELETE FROM files WHERE id = ?", (file_id,))
        return ids

    def forget_files(self) -> None:
        """Drop every file and passage (roots stay): the next sync indexes everything again."""
        self.execute("DELETE FROM chunks")
        self.execute("DELETE FROM chunk_spans")  # the trigger would too, row by row
        self.execute("DELETE FROM files")
        self.execute("DELETE FROM shelved_vectors")  # every passage read again: nothing is kept for it (0187)

    def file_counts(self) -> EntryCounts:
        """The entries by status, the files on disk and the members of archives and mail apart (decision 0163)."""
        return entry_counts(self.conn.execute(entry_counts_sql(IS_MEMBER), (MEMBER_SEP,)).fetchall())

    def file_paths(self) -> dict[int, str]:
        """file id -> path of every stored entry."""
        return dict(self.conn.execute("SELECT id, path FROM files").fetchall())

    def file_hashes(self) -> list[tuple[int, str, str]]:
        """(file id, path, sha256) of every indexed file with passages and a hash, by path."""
        return self.conn.execute(
            "SELECT id, path, sha256 FROM files WHERE status = 'indexed' AND n_chunks > 0 AND sha256 IS NOT NULL "
            "ORDER BY path").fetchall()

    def file_sha256s(self, file_ids: Sequence[int]) -> dict[int, str]:
        """file id -> sha256 of the content, for those of `file_ids` that have one (exact copies share it)."""
        return dict(self.select_in("SELECT id, sha256 FROM files WHERE sha256 IS NOT NULL AND id IN ({})",
                                    file_ids))

    def paths_by_sha256(self, hashes: Iterable[str]) -> dict[str, list[str]]:
        """sha256 -> paths of the indexed files with that content, by path."""
        out: dict[str, list[str]] = {}
        for sha, path in self.select_in("SELECT sha256, path FROM files WHERE status = 'indexed' AND n_chunks > 0 "
                                         "AND sha256 IN ({}) ORDER BY path", dict.fromkeys(hashes)):
            out.setdefault(sha, []).append(path)
        return out
