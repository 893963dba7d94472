"""The per-file ledger: every stored entry's state, derived from its row (status, error, ocr), and what
`explain` reads about one entry. Functions over a Store, so db.py stays as it is.

States: indexed, ocr_done (text came from OCR: all of it, or the PDF pages listed in files.ocr_pages),
ocr_pending (waiting for the background OCR step: no text indexed yet), ocr_pages_pending (indexed by its text
layer, its pages without text waiting for the OCR step: indexed, not "not indexed", decision 0155), no_text (read, but no text found), skipped (by policy, with
its reason), failed (an error, with its reason), empty (0 bytes, or whitespace alone), excluded (a secret, by its
name or its text: decision 0177). A file left out by `[scan] exclude`, `skip_dirs` or as hidden has no row:
`explain` says so from the scan's rules ("excluded").
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

from ..base.entry_dates import storable_ns
from ..base.member_paths import member_order
from .db import Store
from .file_records import EMPTY_REASON
from .rows import FileRow
from .scope import at_or_below

__all__ = ["STATES", "NOT_INDEXED", "QUIET_STATES", "EMPTY", "state_counts", "files_in_state", "problem_files_in_state",
           "excluded_by_rule", "left_out_by_rule", "cut_entries", "CUT_NOTE", "noted_count", "left_out_since", "read_before_versions", "read_again_where_text_holds",
           "read_again_where_passages_hold", "read_again_where_named", "read_again_where_reason",
           "set_entry_date", "set_ocr_state",
           "entry_text", "entry_vectors", "pending_ocr_files", "ocr_done_before", "ocr_done_paths", "ocr_done_pages", "files_by_id"]

STATES = ("indexed", "ocr_done", "ocr_pending", "ocr_pages_pending", "no_text", "skipped", "failed", "empty",
          "excluded")
EMPTY = EMPTY_REASON  # the reason of a skipped entry of 0 bytes, or of whitespace alone: its state is `empty`
# Left out on purpose, not for a problem a person could mend (decision 0177): an empty file, and an entry a rule
# excluded (a secret's name or text, ingest/secrets.py). Counted and listed by `status --files STATE`, said apart.
QUIET_STATES = ("empty", "excluded")
# What "not indexed" means, for the window and `status` alike (decision 0155): no text of the entry is searchable.
# A PDF whose text layer is indexed while its pages without text wait for OCR (ocr_pages_pending) is indexed: it
# is found by its words. It is listed beside the entries not indexed, in a state of its own, and counted apart.
NOT_INDEXED = "status != 'indexed'"

# The one definition of an entry's state, on both engines (a shared library runs these statements through
# store/postgres/sql_shim.py): every listing selects it beside its rows, none derives it again from status and reason.
_STATE_SQL = """CASE
    WHEN ocr = 'pending' AND status = 'indexed' THEN 'ocr_pages_pending'
    WHEN ocr = 'pending' THEN 'ocr_pending'
    WHEN status = 'indexed' AND ocr = 'done' THEN 'ocr_done'
    WHEN status = 'indexed' THEN 'indexed'
    WHEN status = 'skipped' AND error = 'no text found' THEN 'no_text'
    WHEN status = 'skipped' AND error = 'empty' THEN 'empty'
    ELSE status END"""


def state_counts(store: Store, owner: Optional[str] = None) -> dict[str, int]:
    """State -> number of entries (files and members), every state listed (0 when none); `owner`: as
    files_in_state's."""
    counts = dict.fromkeys(STATES, 0)
    where, params = (" WHERE machine = ?", [owner]) if owner is not None else ("", [])
    sql = f"SELECT {_STATE_SQL} AS s, count(*) FROM files{where} GROUP BY s"  # noqa: S608 (constants and ? only)
    for state, n in store.conn.execute(sql, params):
        counts[state] = counts.get(state, 0) + int(n)
    return counts


def files_in_state(store: Store, state: Optional[str] = None, limit: int = 100_000,
                   owner: Optional[str] = None, under: Sequence[str] = ()) -> list[tuple[str, FileRow]]:
    """(state, row) of the entries in `state` (all when None), by path; at most `limit`. `owner`: a shared
    library's machine whose entries these are (every machine's when None); `under`: only those at or below one
    of these folders (or files; absolute, as stored), every entry when empty."""
    where, params = at_or_below(under, "path")
    if state is not None:
        where, params = f"{where} AND {_STATE_SQL} = ?", [*params, state]
    return _with_state(store, where, params, owner, "path", limit)


def problem_files_in_state(store: Store, owner: Optional[str] = None) -> list[tuple[str, FileRow]]:
    """(state, row) of the entries not indexed (NOT_INDEXED: skipped or failed) but those left out on purpose
    (QUIET_STATES), by state, then path: what `status` lists, each with the state `status --files STATE` finds it
    by, from this one CASE (its status and reason alone do not give it: files.ocr does). `owner`: as
    files_in_state's."""
    quiet = ", ".join(f"'{s}'" for s in QUIET_STATES)
    return _with_state(store, f"{NOT_INDEXED} AND {_STATE_SQL} NOT IN ({quiet})", [], owner, "s, path")


def excluded_by_rule(store: Store, owner: Optional[str] = None) -> dict[str, int]:
    """The entries left out on purpose, by the rule that left them out ("secret": 3, "empty": 2): an excluded
    entry's rule is the word its reason begins with ("secret: its name matches …")."""
    rows = _with_state(store, f"{_STATE_SQL} IN ({', '.join(repr(s) for s in QUIET_STATES)})", [], owner, "s, path")
    return left_out_by_rule((state, row.error) for state, row in rows)


# How an entry's stored notes say its text was cut by the cap on characters (ingest/text_caps.py bound_text's note)
CUT_NOTE = "text truncated at"


def cut_entries(store: Store, owner: Optional[str] = None, limit: int = 20) -> tuple[list[tuple[str, str, int]], int]:
    """((path, note, passages) of the indexed entries whose text the caps cut, the most passages first, at most
    `limit`; how many there are): what `status` names, so a word past the cut that is never found has its reason
    in sight (a newcomer's 48 MB log said it once, in the sync's output). One scan of the files table, as
    state_counts is; none before the notes were kept."""
    if "notes" in store.files_missing:
        return [], 0
    where, params = "status = 'indexed' AND notes LIKE ?", [f"%{CUT_NOTE}%"]
    if owner is not None:
        where += " AND machine = ?"
        params.append(owner)
    rows = store.conn.execute(f"SELECT path, notes, n_chunks FROM files WHERE {where}", params).fetchall()  # noqa: S608 (constants and ? only)
    rows.sort(key=lambda r: (-int(r[2] or 0), r[0]))
    return [(str(p), next(n for n in str(notes).splitlines() if CUT_NOTE in n), int(k or 0))
            for p, notes, k in rows[:max(0, limit)]], len(rows)


def noted_count(store: Store, note: str, owner: Optional[str] = None) -> int:
    """How many indexed entries' stored notes hold `note` (decision 0197's connection strings whose password was
    hidden): one scan of the files table, as cut_entries is; none before the notes were kept."""
    if "notes" in store.files_missing:
        return 0
    where, params = "status = 'indexed' AND notes LIKE ? ESCAPE '\\'", [f"%{_like_escaped(note)}%"]
    if owner is not None:
        where += " AND machine = ?"
        params.append(owner)
    return int(store.conn.execute(f"SELECT count(*) FROM files WHERE {where}", params).fetchone()[0])  # noqa: S608 (constants and ? only)


def left_out_by_rule(entries: Iterable[tuple[str, Optional[str]]]) -> dict[str, int]:
    """How many of the (state, reason) `entries` each rule left out on purpose: an empty entry's rule is "empty",
    an excluded one's the word its reason begins with ("secret: holds a private key …": "secret")."""
    counts: dict[str, int] = {}
    for state, reason in entries:
        if state in QUIET_STATES:
            rule = state if state != "excluded" else (reason or "").split(":", 1)[0].strip() or state
            counts[rule] = counts.get(rule, 0) + 1
    return counts


def left_out_since(store: Store, since: float, until: Optional[float], limit: int, owner: Optional[str] = None
                   ) -> tuple[list[tuple[str, FileRow]], int, int]:
    """(state, row) of the entries recorded not indexed at `since` or later and before `until` (files.indexed_at;
    None: up to now), waiting for OCR aside (not a failure: `status` says those apart), by path, at most `limit`;
    then how many of them failed, and how many there are in all. What a sync that stopped before its summary left
    out (library/sync/unsaid.py): a skip or a failure recorded already is not written again (decision 0145), so
    these are the ones no summary has listed. `owner`: a shared library's machine, whose entries alone are its
    syncs' (another machine's are written meanwhile by its own)."""
    quiet = ", ".join(f"'{s}'" for s in QUIET_STATES)  # left out on purpose (a secret, an empty file): no problem
    where = f"{NOT_INDEXED} AND {_STATE_SQL} NOT IN ({quiet}) AND indexed_at >= ? AND (ocr IS NULL OR ocr != 'pending')"
    params: list[Any] = [since]
    if until is not None:
        where += " AND indexed_at < ?"
        params.append(until)
    if owner is not None:
        where += " AND machine = ?"
        params.append(owner)
    # CASE, not sum(status = 'failed'): PostgreSQL sums no booleans (the shared engine asks this too)
    sql = f"SELECT sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), count(*) FROM files WHERE {where}"  # noqa: S608 (constants and ?)
    failed, n = store.conn.execute(sql, params).fetchone()
    return (_with_state(store, where, params, None, "path", limit) if n else []), int(failed or 0), int(n)


def _with_state(store: Store, where: str, params: list[Any], owner: Optional[str], order: str,
                limit: Optional[int] = None) -> list[tuple[str, FileRow]]:
    """(state, row) of the entries `where` says (SQL of constants and ?), of `owner`'s when given, in `order`."""
    sql = f"SELECT {_STATE_SQL} AS s, {store.file_cols} FROM files WHERE {where}"  # noqa: S608 (constants: the state CASE, the columns)
    if owner is not None:
        sql += " AND machine = ?"
        params = [*params, owner]
    sql += f" ORDER BY {order}"
    if limit is not None:
        sql += " LIMIT ?"
        params = [*params, int(limit)]
    rows = [(r[0], FileRow(*r[1:])) for r in store.conn.execute(sql, params)]
    # a mailbox's messages in their own order, not their numbers' as text (1, 10, 11, …, 2): the same order
    # otherwise, the state first where it was asked first
    by_state = order.startswith("s")
    return sorted(rows, key=lambda sr: (sr[0] if by_state else "", member_order(sr[1].path)))


def read_before_versions(store: Store, root_id: int) -> bool:
    """Whether the folder holds an entry a reader read that has no reader version (decision 0152: written before
    readers had versions; images and entries with an OCR state have none to have, nor an entry no reader reads (no
    kind: a zip's `code.bin`, "unsupported type"), and a failed one is read again anyway)."""
    return store.conn.execute(
        "SELECT 1 FROM files WHERE root_id = ? AND reader IS NULL AND status != 'failed' AND ocr IS NULL "
        "AND kind IS NOT NULL AND kind != 'image' LIMIT 1", (root_id,)).fetchone() is not None


def read_again_where_text_holds(store: Store, words: str, first_words: str) -> None:
    """Have the next sync read again the indexed entries whose stored passages hold `words` (case aside where the
    engine's LIKE ignores it), or whose first passage holds `first_words`, any case: their reader is set older
    than any (0), so the sync reads them as it reads those of an older reader (decision 0152), and a rule that
    now refuses them (decision 0177) takes their passages out. The same text read again keeps its passages."""
    store.db.execute(
        "UPDATE files SET reader = 0 WHERE status = 'indexed' AND id IN (SELECT file_id FROM chunks WHERE "
        "text LIKE ? OR (ordinal = 0 AND lower(text) LIKE ?))", (f"%{words}%", f"%{first_words.lower()}%"))


def _like_escaped(text: str) -> str:
    """`text` as a LIKE pattern's literal part: its `%`, `_` and `\\` are not wildcards (ESCAPE '\\', on both engines)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def read_again_where_passages_hold(store: Store, marks: Sequence[str], holds: Callable[[str], bool]) -> int:
    """Have the next sync read again (as read_again_where_text_holds) the indexed entries with a stored passage
    holding one of `marks` (LIKE, each a parameter: case aside where the engine's LIKE ignores it) for which
    `holds(passage)` is true: the query finds the few candidates, `holds` says which are (decision 0184's tokens:
    a passage about Asia holds "ASIA" for SQLite's LIKE, and no AWS key). The number of entries marked."""
    if not marks:
        return 0
    where = " OR ".join("c.text LIKE ? ESCAPE '\\'" for _ in marks)
    sql = ("SELECT c.file_id, c.text FROM chunks c JOIN files f ON f.id = c.file_id "  # noqa: S608 (constants and ? only)
           f"WHERE f.status = 'indexed' AND ({where})")
    ids = sorted({int(fid) for fid, text in store.conn.execute(sql, [f"%{_like_escaped(m)}%" for m in marks])
                  if holds(text)})
    _read_again(store, ids)
    return len(ids)


def read_again_where_named(store: Store, named: Callable[[str], bool], holds: Callable[[str, str], bool]) -> int:
    """Have the next sync read again (as read_again_where_text_holds) the indexed entries whose path `named`
    picks and one of whose stored passages `holds(path, passage)` is true (decision 0190: a setting's line is a
    credential only in a file named like a config file, a few in any library; no word marks them). The number of
    entries marked."""
    picked = {int(fid): path for fid, path in store.conn.execute("SELECT id, path FROM files WHERE status = 'indexed'")
              if named(path)}
    ids: set[int] = set()
    keys = sorted(picked)
    for i in range(0, len(keys), 500):  # SQLite caps the parameters of one statement
        part = keys[i:i + 500]
        sql = f"SELECT file_id, text FROM chunks WHERE file_id IN ({','.join('?' * len(part))})"  # noqa: S608 (? only)
        ids.update(int(fid) for fid, text in store.conn.execute(sql, part)
                   if int(fid) not in ids and holds(picked[int(fid)], text))
    _read_again(store, sorted(ids))
    return len(ids)


def read_again_where_reason(store: Store, reasons: Sequence[str]) -> int:
    """Have the next sync read again the entries excluded with one of `reasons` (a rule on a text that now
    refuses fewer: decision 0190's Firebase keys), as read_again_where_text_holds does. The number marked."""
    if not reasons:
        return 0
    sql = f"SELECT id FROM files WHERE status = 'excluded' AND error IN ({','.join('?' * len(reasons))})"  # noqa: S608 (? only)
    ids = sorted(int(fid) for (fid,) in store.conn.execute(sql, list(reasons)))
    _read_again(store, ids)
    return len(ids)


def _read_again(store: Store, ids: Sequence[int]) -> None:
    """Set these entries' reader older than any (0): the next sync reads them again (decision 0152's way)."""
    for i in range(0, len(ids), 500):  # SQLite caps the parameters of one statement
        part = ids[i:i + 500]
        store.db.execute(f"UPDATE files SET reader = 0 WHERE id IN ({','.join('?' * len(part))})", part)  # noqa: S608 (? only)


def set_entry_date(store: Store, file_id: int, date_ns: Optional[int]) -> None:
    """A date past int64 nanoseconds is stored as none (the entry keeps its file's date), never an error."""
    store.db.execute("UPDATE files SET date_ns = ? WHERE id = ?", (storable_ns(date_ns), file_id))


def set_ocr_state(store: Store, file_id: int, ocr: Optional[str], pages: Optional[Iterable[int]] = None) -> None:
    """The OCR step's hook: 'pending' when a file waits for OCR, 'done' when its text came from OCR, 'off' for a
    PDF with pages of no text layer read while OCR was off (sync/ocr_waits.py OCR_OFF); `pages`: with 'done', the
    PDF pages whose text OCR gave (None: all of the entry, an image)."""
    if ocr not in (None, "pending", "done", "off"):
        raise ValueError(f"unknown OCR state {ocr!r}")
    listed = ",".join(str(int(n)) for n in sorted(set(pages))) if ocr == "done" and pages is not None else None
    store.db.execute("UPDATE files SET ocr = ?, ocr_pages = ? WHERE id = ?", (ocr, listed, file_id))


def entry_state(store: Store, path: str, owner: Optional[str] = None) -> Optional[tuple[str, FileRow, Optional[int], Optional[str]]]:
    """(state, row, date_ns, ocr) of one stored entry, or None. `owner`: a shared library's machine whose entry
    it is (machines may each hold one at a path)."""
    sql = f"SELECT {_STATE_SQL}, {store.file_cols}, date_ns, ocr FROM files WHERE path = ?"  # noqa: S608 (constants: the state CASE, the columns)
    r = store.conn.execute(sql if owner is None else sql + " AND machine = ?",
                           (path,) if owner is None else (path, owner)).fetchone()
    return None if r is None else (r[0], FileRow(*r[1:-2]), r[-2], r[-1])


def entry_text(store: Store, file_id: int, max_chars: int = 300) -> tuple[str, int]:
    """(the first `max_chars` of the entry's stored passages, in order, the number of passages)."""
    rows = store.conn.execute("SELECT text FROM chunks WHERE file_id = ? ORDER BY ordinal", (file_id,)).fetchall()
    text = ""
    for (t,) in rows:
        if len(text) >= max_chars:
            break
        text += (" " if text else "") + t
    return text[:max_chars], len(rows)


def entry_notes(store: Store, file_id: int) -> list[str]:
    """What reading the entry left out, as its sync noted it ("text truncated at …"), one a line; none stored
    before the notes were kept (decision 0150's schema)."""
    if "notes" in store.files_missing:  # an older library read as it is
        return []
    r = store.conn.execute("SELECT notes FROM files WHERE id = ?", (file_id,)).fetchone()
    return r[0].splitlines() if r is not None and r[0] else []


def entry_vectors(store: Store, file_id: int) -> int:
    """Passages of the entry with a stored vector (a later two-phase sync may store words before vectors)."""
    own = getattr(store, "vectors_of_file", None)  # a shared library's: a waiting vector is NULL there, not b''
    if own is not None:
        return int(own(file_id))
    return int(store.conn.execute("SELECT count(*) FROM chunks WHERE file_id = ? AND length(vector) > 0",
                                  (file_id,)).fetchone()[0])


def pending_ocr_files(store: Store, limit: int, root_ids: Optional[Sequence[int]] = None) -> list[FileRow]:
    """Entries waiting for OCR (files.ocr = 'pending'), newest first; `root_ids`: those under these roots only (a
    shared library's sync reads its own machine's, of the roots it holds; every machine's wait there)."""
    if root_ids is not None and not root_ids:
        return []
    under = "" if root_ids is None else f" AND root_id IN ({','.join('?' * len(root_ids))})"
    rows = store.conn.execute(f"SELECT {store.file_cols} FROM files WHERE ocr = 'pending'{under} "  # noqa: S608 (constants and placeholders)
                              "ORDER BY mtime_ns DESC, path LIMIT ?", (*[int(r) for r in root_ids or ()], int(limit)))
    return [FileRow(*r) for r in rows]


def ocr_done_before(store: Store, reader: int, limit: int, root_ids: Sequence[int]) -> list[FileRow]:
    """Indexed PDFs some of whose text came from OCR, read by a PDF reader older than `reader` (or by one that
    kept no version), under the roots `root_ids`, newest first. PDFs only: an OCR'd image has no reader, and
    thousands of them would fill `limit` before a PDF."""
    if not root_ids:
        return []
    under = ",".join("?" * len(root_ids))
    rows = store.conn.execute(f"SELECT {store.file_cols} FROM files WHERE ocr = 'done' AND status = 'indexed' "  # noqa: S608 (constants and placeholders)
                              f"AND kind = 'pdf' AND (reader IS NULL OR reader < ?) AND root_id IN ({under}) "
                              "ORDER BY mtime_ns DESC, path LIMIT ?",
                              (int(reader), *[int(r) for r in root_ids], int(limit)))
    return [FileRow(*r) for r in rows]


def _page_set(listed: Optional[str]) -> Optional[frozenset[int]]:
    if not isinstance(listed, str):  # NULL: all of the entry (or a damaged value: label it all, as before)
        return None
    numbers = (n.strip() for n in listed.split(","))
    return frozenset(int(n) for n in numbers if n.isascii() and n.isdigit() and len(n) < 12)


def ocr_done_pages(store: Store, paths: Iterable[str]) -> dict[str, Optional[frozenset[int]]]:
    """Path -> the pages read by OCR (None: all of the entry) for those of `paths` whose text came (in part)
    from OCR."""
    wanted = list(dict.fromkeys(paths))[:10_000]
    rows = store.select_in("SELECT path, ocr_pages FROM files WHERE ocr = 'done' AND path IN ({})", wanted)
    return {path: _page_set(listed) for path, listed in rows}


def ocr_done_paths(store: Store, paths: Iterable[str]) -> set[str]:
    """Those of `paths` whose text came (in part) from OCR."""
    wanted = list(dict.fromkeys(paths))[:10_000]
    return {r[0] for r in store.select_in("SELECT path FROM files WHERE ocr = 'done' AND path IN ({})", wanted)}


def files_by_id(store: Store, ids: Iterable[int]) -> dict[int, FileRow]:
    """file id -> row of those of `ids` that are stored (one statement per 500, not one per id): a few rows,
    not every path of the library."""
    rows = store.select_in(f"SELECT {store.file_cols} FROM files WHERE id IN ({{}})", dict.fromkeys(ids))  # noqa: S608 (constants and ? only)
    return {r.id: r for r in (FileRow(*t) for t in rows)}
