"""The shared library's store: PostgreSQL with pgvector behind the Store methods the sync and the search call.

The words pass (library/sync/words_pass.py, batches.py), the meaning pass (meaning_pass.py) and the search
pipeline (library/search/pipeline.run_search) take a Store and call a few dozen of its methods; PgStore answers
the same calls with the same meaning, so those layers run unchanged (decision 0119). Every statement takes its
values as parameters. Each batch is one transaction (`atomic`): a connection lost mid-batch rolls it back on the
server, and what the caller gets is one StoreError line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shlex
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from ...base.entry_dates import clamped_ns, storable_ns
from ...base.errors import ConfigError, ConnectionLost, NoSharedLibrary, StoreError
from ...base.member_paths import MEMBER_SEP
from ..file_records import entry_counts, entry_counts_sql, file_cols, stored_notes
from ..vector_queue import queue_order
from ..rows import ChunkRow, EntryCounts, FileRow, NewChunk, RootCounts, RootRow
from ...base.library_address import shown
from .pg_lexical import PgLexical
from .pg_scope import PgScope
from .pg_words_ahead import WordsAhead
from .schema import FILES_COLUMNS_SINCE, MIGRATIONS, OPENED_BY_OLDER, SCHEMA_VERSION, TABLES, hnsw_index
from .sql_shim import ShimConnection

if TYPE_CHECKING:
    import psycopg

__all__ = ["PgStore", "machine_name", "MACHINE_ENV"]

MACHINE_ENV = "SEARCHAPP_MACHINE"  # the name this desktop's roots are kept under (default: the host name)
# meta: the oldest schema whose searchapp may open this library (one refuses a library above its own), and the
# steps its tables have taken where a searchapp of an older schema may still open it (OPENED_BY_OLDER, decision 0153)
_SCHEMA_KEY = "shared_schema"
_STEPS_KEY = "shared_schema_steps"
_CREATE_LOCK = 4_4_0119  # advisory lock key: two first opens do not create the tables at once
MIGRATING_TO_6 = "bringing the shared library to schema 6; searches on other desktops wait until it is done"
# What a migration says first: schema 6 rewrites postings under the strongest lock, every reader waits (0133)
_MIGRATION_WARNINGS = {6: MIGRATING_TO_6}


def _backfill_cjk(store: "PgStore") -> None:
    from .pg_cjk import backfill_cjk  # the character postings of the passages already here

    backfill_cjk(store)


# A migration's step in Python, after its statements
_MIGRATION_STEPS: dict[int, Callable[["PgStore"], None]] = {6: _backfill_cjk}

log = logging.getLogger(__name__)


# file_records.IS_MEMBER in PostgreSQL's words (strpos for instr): a member's key holds MEMBER_SEP, a parameter,
# after its first character (decision 0163).
_IS_MEMBER = "strpos(substr(path, 2), %s) > 0"
RUN_AGAIN = " (a command: run it again once the server is back)"  # a lost connection's advice to one that stops
_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}


def machine_name() -> str:
    given = os.environ.get(MACHINE_ENV)
    if given and not given.strip():
        # Its folders would be kept under a name no one can read or type back: refused as a bad setting is.
        raise ConfigError(f"${MACHINE_ENV} is blank: set it to this machine's name, or unset it to use the host "
                          f"name ({socket.gethostname() or 'none'})")
    return given or socket.gethostname() or "this machine"


def _clean(text: str) -> str:
    """PostgreSQL text holds no NUL character (SQLite's does): one becomes U+FFFD, so offsets stay as they are."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def _words_of(texts: list[str]) -> tuple[Any, Any]:
    """(the texts' postings, their CJK terms): what insert_chunks_of writes of words."""
    from .tokens import cjk_passage_terms, passage_postings

    return passage_postings(texts), cjk_passage_terms(texts)


def as_array(value: Any) -> np.ndarray:
    """A vector as psycopg hands it over (pgvector's Vector, or an array) as float32 (dim,)."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)


def _vector_text(vec: np.ndarray) -> str:
    """pgvector's text form; each float32 printed in a form that reads back as the very same float32."""
    return "[" + ",".join(repr(float(x)) for x in np.asarray(vec, dtype=np.float32)) + "]"


WRITER_LOCK = 4_4_0120  # a root's writer lock is (WRITER_LOCK, root id): pg_locks' classid, objid while a sync runs

class PgStore(PgLexical, PgScope):
    """One connection to a shared library. `create`: make the tables if missing (commands that write)."""

    # Store's: the passages the sync of this machine's roots removes are its roots' alone (their writer lock), so
    # those above the mark were written by it, whatever other machines write meanwhile
    sync_mark: Optional[int] = None

    # A sync's full batch is committed on a writer thread while the next one is read (sync/batches.py): the server
    # ingests one batch while this client cuts the next. Its calls wait on _lock, so they stay one at a time.
    writes_beside = True

    def __init__(self, address: str, *, create: bool = False, machine: Optional[str] = None) -> None:
        self.address = address
        self.machine = machine or machine_name()
        self.path = shown(address)  # what messages name as the library (not a Path: "//" must stay)
        self.conn = self.db = ShimConnection(self)  # store/ledger.py's portable helpers (sql_shim.py)
        self._lock = threading.RLock()  # one statement or transaction at a time on this connection
        self.schema_version = SCHEMA_VERSION  # the opened library's (_check_version)
        self.writing_roots: Optional[list[int]] = None  # the roots this session's writer holds (try_root_locks)
        self._depth = 0  # transactions open (atomic): never a new connection inside one
        self._closed = False
        self._sibling: Optional["PgStore"] = None  # a second connection for parallel reads (sibling())
        # A hybrid search's words, read beside its meaning on a connection of their own
        self.words_ahead = WordsAhead(lambda: PgStore(self.address, machine=self.machine))
        self._prepared: list[tuple[list[str], Any]] = []  # postings made ahead of their batch (prepare_words)
        self._prepared_lock = threading.Lock()  # the sync's thread adds, its writer thread takes
        self._vector_count: Optional[tuple[int, int]] = None  # (generation, passages with a vector): vector_count
        self._statement: Optional[str] = None  # what `rows` runs: a refused one says which right the role lacks
        self._pg = self._connect()
        try:
            if create:
                self._create()
            self._check_version()
            with self._guard():
                self._registered()
        except BaseException:
            self._pg.close()
            raise

    def _registered(self) -> None:
        from pgvector.psycopg import register_vector

        register_vector(self._pg)

    # -- the connection ---------------------------------------------------------------------------------------
    def _connect(self) -> "psycopg.Connection[tuple[Any, ...]]":
        try:
            import pgvector.psycopg  # noqa: F401 (registered once connected)
            import psycopg
        except ImportError:
            raise StoreError("a shared library needs psycopg and pgvector: pip install 'searchapp[shared]'") from None
        try:
            given = psycopg.conninfo.conninfo_to_dict(self.address)
            # A server gone without a word (a cut cable, a sleeping NAS): TCP keepalives end the wait within about
            # a minute, not the kernel's two hours, so a window's reads do not queue behind a dead one. The
            # address's own settings come first.
            extra: dict[str, Any] = {k: v for k, v in _KEEPALIVES.items() if k not in given}
            # UTF-8 whatever PGCLIENTENCODING or the role says: the postings' terms travel as UTF-8 bytes (a binary
            # COPY, pg_postings.py), which the server would read in the client's encoding otherwise.
            return psycopg.connect(self.address, autocommit=True, connect_timeout=10, application_name="searchapp",
                                   client_encoding="UTF8", **extra)
        except psycopg.Error as exc:
            from .pg_password import password_hint  # a password asked for and not found, or refused: which and why

            hint = password_hint(str(exc), self.address)
            raise (ConnectionLost if _no_server(exc, hint) else StoreError)(
                f"cannot reach the shared library {self.path}: {_first_line(exc)}{hint}") from None

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """psycopg's errors as one StoreError line each (exit 3); the sync's per-file boundary lets a
        StoreError stop the sync, as it does SQLite's own errors."""
        import psycopg

        writing, statement = False, None  # read under the lock: another thread's request may follow at once
        try:
            with self._lock:
                if self._depth == 0 and not self._closed and (self._pg.closed or self._pg.broken):
                    if self.writing_roots is not None:  # its root locks went with the session: a new one has none
                        raise StoreError(f"lost the connection to the shared library {self.path} while syncing: "
                                         "nothing of the batch in flight was kept; sync again")
                    self._reconnect()
                # A transaction of a writer (it holds root locks): what it wrote is lost with the connection. A
                # search's read transaction (pgvector's ef setting) has nothing to lose.
                writing = self._depth > 0 and self.writing_roots is not None
                self._statement = None  # a COPY or executemany below: a write
                try:
                    yield
                finally:
                    statement = self._statement
        except psycopg.errors.InsufficientPrivilege as exc:
            raise self._denied(exc, statement) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            if not _connection_gone(exc, self._pg):  # a statement timeout, a disk full, a deadlock: no lost line
                raise StoreError(f"shared library error ({self.path}): {_first_line(exc)}") from None
            kept = "nothing of the batch in flight was kept, and " if writing else ""
            raise ConnectionLost(f"lost the connection to the shared library {self.path}: {_first_line(exc)}; {kept}"
                                 "the next request connects again", RUN_AGAIN) from None
        except psycopg.Error as exc:
            raise StoreError(f"shared library error ({self.path}): {_first_line(exc)}") from None

    def _denied(self, exc: BaseException, statement: Optional[str]) -> "RoleDenied":
        """The one line for the `statement` the role may not run: a read refused means no search works either, so
        only a refused write says that searches do."""
        why = _first_line(exc)
        if _reads(statement):
            return RoleDenied(f"this database role may not read the shared library {self.path}: {why}; the "
                              "library's owner lets it: GRANT SELECT ON ALL TABLES IN SCHEMA public TO the role", why)
        return RoleDenied(f"this database role may not write the shared library {self.path} (searches work; a sync "
                          f"needs write rights): {why}", why)

    def _reconnect(self) -> None:
        """A connection lost earlier (its request got one StoreError line, and nothing of its transaction was
        kept): the next request, outside any transaction, connects again (decision 0125). Never inside a
        transaction: its first statements ran on the lost connection, so the rest must not run on a new one."""
        self._pg = self._connect()
        self._registered()

    def rows(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> list[tuple[Any, ...]]:
        """`binary`: the server sends the results in binary form, for many numbers or vectors: a vector is its
        floats as they are (pgvector's loader reads them with NumPy), not text parsed float by float."""
        with self._guard():
            cur = self._pg.cursor(binary=binary)
            self._statement = sql
            try:
                cur.execute(sql, params)  # sql: a constant of this package
                return cur.fetchall() if cur.description is not None else []
            finally:
                cur.close()

    def one(self, sql: str, params: Sequence[Any] = ()) -> Optional[tuple[Any, ...]]:
        got = self.rows(sql, params)
        return got[0] if got else None

    def try_root_locks(self, root_ids: Sequence[int]) -> Optional[int]:
        """Take the writer lock of each root (session advisory locks (WRITER_LOCK, root id), which the server drops
        with the session, so a machine killed mid-sync leaves none behind); the root another session holds, with
        those taken here let go again, or None when all are held here now. Also scopes the meaning pass to these
        roots (`pending_order`)."""
        taken: list[int] = []
        for rid in root_ids:
            got = self.one("SELECT pg_try_advisory_lock(%s, %s::int4)", (WRITER_LOCK, int(rid)))
            if not (got and got[0]):
                self.release_root_locks(taken)
                return int(rid)
            taken.append(int(rid))
        self.writing_roots = taken
        return None

    def roots_written_elsewhere(self, root_ids: Sequence[int]) -> bool:
        """Whether another session holds the writer lock of one of these roots now (a sync of them is running):
        pg_locks shows a two-key advisory lock as (classid, objid) with objsubid 2."""
        if not root_ids:
            return False
        got = self.one("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted"
                       " AND classid::bigint = %s AND objid::bigint = ANY(%s) AND pid <> pg_backend_pid()",
                       (WRITER_LOCK, [int(r) for r in root_ids]))
        return bool(got and got[0])

    def release_root_locks(self, root_ids: Sequence[int]) -> None:
        self.writing_roots = None
        for rid in root_ids:
            self.rows("SELECT pg_advisory_unlock(%s, %s::int4)", (WRITER_LOCK, int(rid)))

    def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._guard(), self._pg.cursor() as cur:
            cur.executemany(sql, rows)

    def select_in(self, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        """Rows of `sql` (SQLite's form: one `IN ({})` slot, `?` placeholders) for `values`: one array
        parameter, however many."""
        from .sql_shim import to_psycopg

        values = list(values)
        if not values:
            return iter(())
        return iter(self.rows(to_psycopg(sql.replace("IN ({})", "= ANY(?)")), (values,)))

    def close(self) -> None:
        self._closed = True
        self.words_ahead.close()
        if self._sibling is not None:
            self._sibling.close()
        with contextlib.suppress(Exception):
            self._pg.close()

    def sibling(self) -> "PgStore":
        """A second connection to the same library, made once and closed with this one: reads that run beside
        this connection's (PgVectorIndex.neighbours), each on its own server backend."""
        if self._sibling is None:
            self._sibling = PgStore(self.address, machine=self.machine)
        return self._sibling

    def transaction_depth(self) -> int:
        """Transactions open on this connection (1: the outermost); read inside `atomic`, where the lock is held."""
        return self._depth

    def share_snapshot(self) -> str:
        """Make this transaction REPEATABLE READ (it must not have run a query yet) and export its snapshot, for
        another connection's `use_snapshot`: both then read the very same rows."""
        self.rows("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        row = self.one("SELECT pg_export_snapshot()")
        if row is None:
            raise StoreError(f"shared library error ({self.path}): no snapshot to share")
        return str(row[0])

    def use_snapshot(self, snapshot: str) -> None:
        """Read, in this transaction (before any query), what the transaction that exported `snapshot` reads."""
        from psycopg import sql

        with self._guard():
            self._pg.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            # A utility statement takes no bound parameter: the server's snapshot name is quoted as a literal.
            self._pg.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))

    @contextlib.contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction (nested: a savepoint). Whatever ends it early rolls all of it back."""
        with self._guard(), self._pg.transaction():
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1

    def _create(self) -> None:
        """Make the tables if missing and bring an older library's up to this version (MIGRATIONS), in one
        transaction; a library made by a newer searchapp is left as it is (_check_version refuses it)."""
        version: Optional[int] = -1  # not read yet
        try:
            with self.atomic():
                self.rows("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
                version = self._stored_version()
                if version is not None and (version < 1 or version >= SCHEMA_VERSION):
                    return  # current, newer or not ours: _check_version says which
                if version is not None and not self.may_migrate():
                    return  # a role that may not alter its tables reads it as it is; its owner upgrades it (0144)
                self.rows("CREATE EXTENSION IF NOT EXISTS vector")
                existing = version is not None  # a new library's steps hold no other desktop: nothing to say
                if version is None:
                    for statement in TABLES.split(";"):
                        if statement.strip():
                            self.rows(statement)
                    version = 1
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    if existing and step in _MIGRATION_WARNINGS:
                        log.warning(_MIGRATION_WARNINGS[step])
                    for statement in MIGRATIONS[step]:
                        self.rows(statement)
                    if step in _MIGRATION_STEPS:
                        _MIGRATION_STEPS[step](self)
                self.set_meta(_SCHEMA_KEY, str(OPENED_BY_OLDER.get(SCHEMA_VERSION, SCHEMA_VERSION)))
                self.set_meta(_STEPS_KEY, str(SCHEMA_VERSION))
        except StoreError as exc:
            if "vector" in str(exc) and "extension" in str(exc):
                # Not its owner: pgvector is not a trusted extension, and an owner's CREATE EXTENSION is refused
                # ("Must be superuser"), as a tester following the old advice was
                raise StoreError(f"the database of {self.path} lacks pgvector: a superuser of the server creates it "
                                 f"there once, e.g. sudo -u postgres psql -d {shlex.quote(self._pg.info.dbname)} -c "
                                 "'CREATE EXTENSION vector' (docs/shared-library.md)") from None
            if version is None and isinstance(exc, RoleDenied):  # no library yet, and no right to make its tables
                raise StoreError(f"the shared library cannot be created in {self.path}: this database role may not "
                                 f"create tables there ({exc.why}); grant CREATE on schema "
                                 "public to the role, or make it the database's owner") from None
            raise

    def upgrade(self) -> None:
        """Bring a library opened without `create` up to this version (a write that needs the newer tables), as
        its first writer would."""
        self._create()
        self._check_version()

    def _stored_version(self) -> Optional[int]:
        """The schema version this library was made with; None: no library here yet; 0: a `meta` table that is
        not ours."""
        have = self.one("SELECT to_regclass('meta') IS NOT NULL")
        if not have or not have[0]:
            return None
        version = self.get_meta(_SCHEMA_KEY)
        return self._steps(int(version)) if version is not None and version.isdigit() else 0

    def _steps(self, version: int) -> int:
        """The steps the tables have taken: `version` (the schema the library says may open it), or more."""
        steps = self.get_meta(_STEPS_KEY)
        return max(version, int(steps)) if steps is not None and steps.isdigit() else version

    def _check_version(self) -> None:
        have = self.one("SELECT to_regclass('meta') IS NOT NULL")
        if not have or not have[0]:
            raise NoSharedLibrary(f"no shared library at {self.path} yet: `searchapp --library {self.path} index "
                                  "FOLDER` makes one")
        version = self.get_meta(_SCHEMA_KEY)
        if version is None or not version.isdigit():
            raise StoreError(f"{self.path} holds tables that are not a searchapp shared library")
        if int(version) > SCHEMA_VERSION:
            raise StoreError(f"the shared library {self.path} was made by a newer searchapp (schema {version}, this "
                             f"one reads {SCHEMA_VERSION}): update searchapp on this machine; nothing was changed")
        self.schema_version = self._steps(int(version))  # an older one is read as it is until a writer migrates it

    # -- meta -------------------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Optional[str]:
        row = self.one("SELECT value FROM meta WHERE key = %s", (key,))
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.rows("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                  "excluded.value", (key, value))

    def claim_meta(self, key: str, value: str) -> str:
        """`key`'s value: `value` when no one had set it (set now, in one statement: two first claims at once
        never both win), else the one already there."""
        for _ in range(2):  # a row deleted between the two statements: claimed again
            if self.one("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING RETURNING "
                        "value", (key, value)) is not None:
                return value
            held = self.get_meta(key)
            if held is not None:
                return held
        raise StoreError(f"the shared library {self.path} changed its meta table twice while it was read")

    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.rows("SELECT key, value FROM meta")}

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def vector_count(self) -> int:
        """Passages with a vector (the vector index's len, asked twice by every search by meaning): counted once
        per write generation, which every committed batch that writes vectors or passages bumps, since a count(*)
        reads every passage (5 ms at 20k passages on a 2-core EPYC, growing with the library). The generation is
        read first: a batch committed between the two reads is counted, and counted again at the next call."""
        generation = self.generation()
        if self._vector_count is None or self._vector_count[0] != generation:
            row = self.one("SELECT count(*) FROM chunks WHERE vector IS NOT NULL")
            self._vector_count = (generation, int(row[0]) if row else 0)
        return self._vector_count[1]

    def bump_generation(self) -> int:
        row = self.one("INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET "
                       "value = (meta.value::bigint + 1)::text RETURNING value")
        return int(row[0]) if row else 0

    # -- roots (this machine's) -------------------------------------------------------------------------------
    def add_root(self, path: str) -> int:
        row = self.one("INSERT INTO roots(machine, path, added_at) VALUES (%s, %s, %s) ON CONFLICT (machine, path) "
                       "DO UPDATE SET path = excluded.path RETURNING id", (self.machine, path, time.time()))
        assert row is not None
        return int(row[0])

    def roots(self) -> list[RootRow]:
        return [RootRow(*r) for r in self.rows(
            "SELECT id, path, added_at, last_sync FROM roots WHERE machine = %s ORDER BY path", (self.machine,))]

    def all_roots(self) -> list[tuple[str, RootRow]]:
        """(machine, root) of every machine's roots: what `status` lists."""
        return [(m, RootRow(*r)) for m, *r in self.rows(
            "SELECT machine, id, path, added_at, last_sync FROM roots ORDER BY machine, path")]

    def root_by_path(self, path: str) -> Optional[RootRow]:
        r = self.one("SELECT id, path, added_at, last_sync FROM roots WHERE machine = %s AND path = %s",
                     (self.machine, path))
        return RootRow(*r) if r else None

    def touch_root(self, root_id: int) -> None:
        self.rows("UPDATE roots SET last_sync = %s WHERE id = %s", (time.time(), root_id))

    def delete_root(self, root_id: int) -> list[int]:
        """Delete one of this machine's roots with its files and passages (inside `atomic()`); the passage ids
        removed. Their postings go with them (schema.py's chunks_postings_gone trigger), their totals by the
        chunks_gone trigger."""
        ids = [int(r[0]) for r in self.rows("DELETE FROM chunks WHERE file_id IN (SELECT id FROM files WHERE "
                                            "root_id = %s) RETURNING id", (root_id,))]
        self.rows("DELETE FROM files WHERE root_id = %s", (root_id,))
        self.rows("DELETE FROM roots WHERE id = %s AND machine = %s", (root_id, self.machine))
        return ids

    def may_write(self) -> bool:
        """Whether this database role may write the library's files (a role with SELECT rights only searches)."""
        row = self.one("SELECT has_table_privilege('files', 'INSERT')")
        return bool(row and row[0])

    def may_migrate(self) -> bool:
        """Whether this role may bring the library's tables to this version: only their owner (or a member of
        the owner's role) may alter them; a role that only reads, or writes rows, may not."""
        row = self.one("SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c "
                       "WHERE c.oid = to_regclass('files')")
        return bool(row and row[0])

    def absorb_roots(self, into_id: int, from_ids: Sequence[int]) -> None:
        for rid in from_ids:
            self.rows("UPDATE files SET root_id = %s WHERE root_id = %s", (into_id, rid))
            self.rows("DELETE FROM roots WHERE id = %s", (rid,))

    # -- files ------------------------------------------------------------------------------------------------
    def _files(self, where: str, params: Sequence[Any]) -> list[FileRow]:
        return [FileRow(*r) for r in self.rows(f"SELECT {self.file_cols} FROM files WHERE {where}", params)]  # noqa: S608 (constants and %s only)

    def files_of_root(self, root_id: int) -> dict[str, FileRow]:
        return {f.path: f for f in self._files("root_id = %s", (root_id,))}

    def has_files(self, root_id: int) -> bool:
        return self.one("SELECT 1 FROM files WHERE root_id = %s LIMIT 1", (root_id,)) is not None

    def has_files_below(self, root_id: int, path: str) -> bool:
        below = path.rstrip(os.sep) + os.sep  # a member of `path` itself (`path//member`) is not below it
        return self.one("SELECT 1 FROM files WHERE root_id = %s AND starts_with(path, %s) AND NOT "
                        "starts_with(path, %s) LIMIT 1", (root_id, below, below + os.sep)) is not None

    def files_under(self, root_id: int, path: str) -> dict[str, FileRow]:
        below = path.rstrip(os.sep) + os.sep
        return {f.path: f for f in self._files("root_id = %s AND (path = %s OR starts_with(path, %s))",
                                                (root_id, path, below))}

    def some_files(self, root_id: int, path: str, n: int, max_bytes: int) -> list[tuple[str, int, str]]:
        """(path, size, sha256) of up to `n` indexed files on disk (no members) of at most `max_bytes`, of a root at
        `path` or below it, any machine's: what tells whether a folder here holds the same files
        (shared_paths.same_folder). Spread over the folder by a hash of their paths, not its first names (a
        template folder that sorts first is no sample of the rest)."""
        below = path.rstrip(os.sep) + os.sep
        return [(str(p), int(size), str(sha)) for p, size, sha in self.rows(
            "SELECT path, size, sha256 FROM files WHERE root_id = %s AND status = 'indexed' AND sha256 IS NOT NULL "
            "AND (path = %s OR starts_with(path, %s)) AND strpos(substr(path, 2), %s) = 0 AND size <= %s "
            "ORDER BY md5(path) LIMIT %s", (root_id, path, below, MEMBER_SEP, int(max_bytes), int(n)))]

    def others_with_content(self, hashes: Sequence[str]) -> list[tuple[str, str, str]]:
        """(machine, path, sha256) of the other machines' indexed files on disk (no members) with these contents:
        what tells whether a folder here is another machine's mounted at another path (shared_mounts.py)."""
        return [(str(m), str(p), str(sha)) for m, p, sha in self.rows(
            "SELECT machine, path, sha256 FROM files WHERE machine != %s AND status = 'indexed' "
            "AND sha256 = ANY(%s) AND strpos(substr(path, 2), %s) = 0", (self.machine, list(hashes), MEMBER_SEP))]

    def file_by_path(self, path: str) -> Optional[FileRow]:
        got = self._files("machine = %s AND path = %s", (self.machine, path))
        return got[0] if got else None

    def problem_files(self) -> list[FileRow]:
        """This machine's files not indexed (another machine's are that machine's to mend), as the store's."""
        return self._files("machine = %s AND status != 'indexed' ORDER BY status, path", (self.machine,))

    def files_by_path(self, paths: Iterable[str]) -> dict[str, FileRow]:
        return {f.path: f for f in self._files("machine = %s AND path = ANY(%s)", (self.machine, list(paths)))}

    @property
    def files_missing(self) -> frozenset[str]:
        """The files table's newer columns it lacks: an older library is read as it is by a role that may not
        migrate it (decision 0144)."""
        return frozenset(c for c, since in FILES_COLUMNS_SINCE.items() if self.schema_version < since)

    @property
    def file_cols(self) -> str:
        return file_cols(self.files_missing)

    def upsert_file(self, root_id: int, path: str, size: int, mtime_ns: int, sha256: Optional[str],
                    status: str, error: Optional[str], kind: Optional[str], n_chunks: int,
                    embed_title: Optional[str] = None, *, ctime_ns: Optional[int] = None,
                    notes: Sequence[str] = (), reader: Optional[int] = None) -> int:
        row = self.one(
            """INSERT INTO files(root_id, machine, path, size, mtime_ns, sha256, status, error, kind, n_chunks,
                                 indexed_at, embed_title, ctime_ns, notes, reader)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
               ON CONFLICT (machine, path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                 mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256, status = excluded.status,
                 error = excluded.error, kind = excluded.kind, n_chunks = excluded.n_chunks,
                 indexed_at = excluded.indexed_at, embed_title = excluded.embed_title, ctime_ns = excluded.ctime_ns,
                 notes = excluded.notes, reader = excluded.reader
               RETURNING id, reader""",
            (root_id, self.machine, path, size, clamped_ns(mtime_ns), sha256, status,
             None if error is None else _clean(error), kind, n_chunks, time.time(),
             None if embed_title is None else _clean(embed_title), ctime_ns, _clean(stored_notes(notes) or "") or None,
             reader))
        assert row is not None
        if row[1] != reader:  # new bytes under the reader the row had: the files_reader_unknown trigger (schema.py)
            # forgot it, as it must for a searchapp that knows no readers; this one read them, so it writes it after
            # (only then: a round trip more a file would slow every shared sync)
            self.rows("UPDATE files SET reader = %s WHERE id = %s", (reader, int(row[0])))
        return int(row[0])

    def set_file_stat(self, file_id: int, size: int, mtime_ns: int, ctime_ns: Optional[int] = None) -> None:
        self.set_file_stats([(file_id, size, mtime_ns, ctime_ns)])

    def set_file_stats(self, rows: Sequence[tuple[int, int, int, Optional[int]]]) -> None:
        """set_file_stat of many entries, in one statement (not one round trip and commit a file)."""
        self.rows("UPDATE files f SET size = v.s, mtime_ns = v.m, ctime_ns = v.c FROM unnest(%s::bigint[], "
                  "%s::bigint[], %s::bigint[], %s::bigint[]) AS v(i, s, m, c) WHERE f.id = v.i AND f.machine = %s",
                  ([r[0] for r in rows], [r[1] for r in rows], [clamped_ns(r[2]) for r in rows], [r[3] for r in rows],
                   self.machine))

    def set_file_readers(self, rows: Sequence[tuple[int, Optional[int], Sequence[str], Optional[int]]]) -> None:
        """set_file_readers of the desktop store, in one statement."""
        self.rows("UPDATE files f SET reader = v.r, notes = v.n, date_ns = coalesce(v.d, f.date_ns) "
                  "FROM unnest(%s::bigint[], %s::integer[], %s::text[], %s::bigint[]) "
                  "AS v(i, r, n, d) WHERE f.id = v.i AND f.machine = %s",
                  ([r[0] for r in rows], [r[1] for r in rows],
                   [_clean(stored_notes(r[2]) or "") or None for r in rows], [storable_ns(r[3]) for r in rows],
                   self.machine))

    def delete_file(self, file_id: int) -> list[int]:
        ids = self.delete_chunks_of_file(file_id)
        self.rows("DELETE FROM files WHERE id = %s", (file_id,))
        return ids

    def root_counts(self, root_id: int) -> RootCounts:
        row = self.one(f"SELECT count(*), count(*) FILTER (WHERE {_IS_MEMBER}), coalesce(sum(n_chunks), 0) FROM files "  # noqa: S608 (a constant and %s only)
                       "WHERE root_id = %s", (MEMBER_SEP, root_id))
        assert row is not None
        return RootCounts(int(row[0]) - int(row[1]), int(row[1]), int(row[2]))

    def file_counts(self) -> EntryCounts:
        return entry_counts(self.rows(entry_counts_sql(_IS_MEMBER), (MEMBER_SEP,)))

    def file_paths(self) -> dict[int, str]:
        return {int(i): str(p) for i, p in self.rows("SELECT id, path FROM files")}

    def quiet_counts(self) -> tuple[int, int]:
        """(files, members) left out on purpose or empty (store/ledger.py's QUIET_STATES): not problems."""
        got = {bool(m): int(n) for m, n in self.rows(
            f"SELECT {_IS_MEMBER}, count(*) FROM files WHERE status = 'excluded' "  # noqa: S608 (constants)
            "OR (status = 'skipped' AND error = 'empty') GROUP BY 1", (MEMBER_SEP,))}
        return got.get(False, 0), got.get(True, 0)

    def file_sha256s(self, file_ids: Sequence[int]) -> dict[int, str]:
        return {int(i): str(s) for i, s in self.rows(
            "SELECT id, sha256 FROM files WHERE sha256 IS NOT NULL AND id = ANY(%s)", (list(file_ids),))}

    def file_hashes(self) -> list[tuple[int, str, str]]:
        """(file id, path, sha256) of every indexed file with passages and a hash, by path (every machine's:
        `duplicates` finds copies across desktops)."""
        return [(int(i), str(p), str(h)) for i, p, h in self.rows(
            "SELECT id, path, sha256 FROM files WHERE status = 'indexed' AND n_chunks > 0 AND sha256 IS NOT NULL "
            "ORDER BY path")]

    def chunk_owners(self) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, their file ids) of every passage, by id, as two int64 arrays."""
        arr = np.array(self.rows("SELECT id, file_id FROM chunks ORDER BY id"), dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()

    def paths_by_sha256(self, hashes: Iterable[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for sha, path in self.rows("SELECT sha256, path FROM files WHERE status = 'indexed' AND n_chunks > 0 AND "
                                   "sha256 = ANY(%s) ORDER BY path", (list(dict.fromkeys(hashes)),)):
            out.setdefault(sha, []).append(path)
        return out

    # -- which machine indexed what (the path map: library/shared_paths.py) -----------------------------------
    def file_machines(self, file_ids: Optional[Sequence[int]] = None) -> dict[int, str]:
        """File id -> the machine that indexed it (of `file_ids`, or of every file)."""
        if file_ids is None:
            return {int(i): str(m) for i, m in self.rows("SELECT id, machine FROM files")}
        return {int(i): str(m) for i, m in self.rows("SELECT id, machine FROM files WHERE id = ANY(%s)",
                                                     ([int(i) for i in file_ids],))}

    def chunk_origins(self, chunk_ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Passage id -> (the machine that indexed its file, the file's path there)."""
        return {int(c): (str(m), str(p)) for c, m, p in self.rows(
            "SELECT c.id, f.machine, f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ANY(%s)",
            ([int(i) for i in chunk_ids],))}

    def path_machines(self, paths: Iterable[str]) -> dict[str, list[str]]:
        """Path -> the machines holding an entry at it, by name."""
        out: dict[str, list[str]] = {}
        for p, m in self.rows("SELECT path, machine FROM files WHERE path = ANY(%s) ORDER BY machine",
                              (list(dict.fromkeys(paths)),)):
            out.setdefault(str(p), []).append(str(m))
        return out

    def entry_of(self, machine: str, path: str) -> Optional[FileRow]:
        """`machine`'s entry at `path` (file_by_path's, for any machine)."""
        got = self._files("machine = %s AND path = %s", (machine, path))
        return got[0] if got else None

    def inconsistencies(self) -> list[str]:
        """What `status --check` finds wrong (library/shared_check.py): the kept totals (the words'; at schema 6
        the CJK characters' too) against a count, each file's passage count against its passages, the HNSW index
        once vectors are there. Each a scan of the passages: asked for, never on a search."""
        out = []
        # (since schema, the kept totals, their count over the passages, what they are)
        totals = ((2, self.lexical_totals, "count(*), coalesce(sum(n_tokens), 0)", "passage", "words", "word"),
                  (6, self.cjk_totals, "count(n_cjk), coalesce(sum(n_cjk), 0)", "CJK", "tokens", "CJK"))
        for since, kept_totals, counts, name, unit, scores in totals:
            if self.schema_version < since:
                continue
            kept = kept_totals()
            row = self.one(f"SELECT {counts} FROM chunks")  # noqa: S608 (a constant of the tuple above)
            counted = (int(row[0]), int(row[1])) if row else (0, 0)
            if kept != counted:
                out.append(f"the kept {name} totals ({kept[0]} passages, {kept[1]} {unit}) differ from a count "
                           f"({counted[0]}, {counted[1]}): {scores} scores are off")
        row = self.one("SELECT count(*) FROM files f LEFT JOIN (SELECT file_id, count(*) AS n FROM chunks GROUP BY "
                       "file_id) c ON c.file_id = f.id WHERE f.n_chunks <> coalesce(c.n, 0)")
        if row and row[0]:
            out.append(f"{row[0]} files list another number of passages than they hold")
        if self.dim() is not None:
            row = self.one("SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass('chunks_hnsw')")
            if not row or not row[0]:
                out.append("the vectors' HNSW index is " + ("missing" if not row else "not valid")
                           + ": searches by meaning read every vector")
        return out

    # -- passages ---------------------------------------------------------------------------------------------
    def insert_chunks(self, file_id: int, chunks: Sequence[NewChunk]) -> list[int]:
        return self.insert_chunks_of([(file_id, c) for c in chunks])

    def insert_chunks_of(self, rows: Sequence[tuple[int, NewChunk]]) -> list[int]:
        """(file id, passage) rows with their postings and repeats; ids in `rows`' order (taken from the
        sequence first, then written with COPY: one round trip per table, not one per row)."""
        if not rows:
            return []
        ids = sorted(int(r[0]) for r in self.rows("SELECT nextval('chunks_id_seq') FROM generate_series(1, %s)",
                                                   (len(rows),)))
        texts = [_clean(c.text) for _, c in rows]
        from .pg_cjk import write_cjk_postings
        from .pg_postings import write_postings

        postings, cjk = self._take_prepared(texts) or _words_of(texts)
        with self._guard(), self._pg.cursor() as cur:
            with cur.copy('COPY chunks (id, file_id, ordinal, start, "end", page, text, text_hash, n_tokens, vector, '
                          "n_cjk) FROM STDIN") as copy:
                for cid, (fid, c), text, n, k in zip(ids, rows, texts, postings.lengths.tolist(), cjk, strict=True):
                    copy.write_row((cid, fid, c.ordinal, c.start, c.end, c.page, text, c.text_hash, n,
                                    None if c.vector is None else _vector_text(c.vector), None if k is None else k[1]))
            write_cjk_postings(cur, ids, cjk)
            write_postings(cur, ids, postings)
        spans = [(cid, a, b, p) for cid, (_, c) in zip(ids, rows, strict=True) for a, b, p in c.repeats]
        self.run_many('INSERT INTO chunk_spans(chunk_id, start, "end", page) VALUES (%s, %s, %s, %s)', spans)
        return ids

    def prepare_words(self, texts: Sequence[str]) -> None:
        """The postings of passages a coming `insert_chunks_of` will write, made now on the caller's thread and
        outside any transaction (sync/batches.py: while the batch before is written on the writer thread). Used
        only for exactly these texts in this order; two batches are kept at most."""
        cleaned = [_clean(t) for t in texts]
        made = _words_of(cleaned)
        with self._prepared_lock:
            self._prepared = [*self._prepared[-1:], (cleaned, made)]

    def _take_prepared(self, texts: list[str]) -> Any:
        with self._prepared_lock:
            for i, (cleaned, made) in enumerate(self._prepared):
                if cleaned == texts:
                    del self._prepared[i]
                    return made
        return None

    def delete_chunks_of_file(self, file_id: int) -> list[int]:
        return [int(r[0]) for r in self.rows("DELETE FROM chunks WHERE file_id = %s RETURNING id", (file_id,))]

    def chunk_repeats(self, ids: Sequence[int]) -> dict[int, list[tuple[int, int, Optional[int]]]]:
        out: dict[int, list[tuple[int, int, Optional[int]]]] = {}
        for cid, a, b, p in self.rows('SELECT chunk_id, start, "end", page FROM chunk_spans WHERE chunk_id = ANY(%s) '
                                      "ORDER BY start", (list(ids),)):
            out.setdefault(int(cid), []).append((a, b, p))
        return out

    def chunk_ids(self) -> np.ndarray:
        """Every passage's id, ascending (the store's)."""
        return np.fromiter((r[0] for r in self.rows("SELECT id FROM chunks ORDER BY id")), dtype=np.int64)

    def chunk_count(self) -> int:
        return self.lexical_totals()[0]

    def has_chunks(self) -> bool:
        return self.one("SELECT 1 FROM chunks LIMIT 1") is not None

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        rows = self.rows('SELECT c.id, c.file_id, f.path, c.ordinal, c.start, c."end", c.page, c.text, '
                         "coalesce(f.date_ns, f.mtime_ns) FROM chunks c JOIN files f ON f.id = c.file_id "
                         "WHERE c.id = ANY(%s)", (list(ids),))
        return {int(r[0]): ChunkRow(*r) for r in rows}

    def chunk_ids_where(self, where: tuple[str, list[Any]]) -> np.ndarray:
        """The ids (sorted int64) of every passage of the files (and pages) a filter allows: a fragment of
        store/scope.py (`f.` and `c.` columns, `?` values), run as it is with psycopg's placeholders."""
        from .sql_shim import to_psycopg

        sql = f"SELECT c.id FROM files f JOIN chunks c ON c.file_id = f.id WHERE {where[0]} ORDER BY c.id"  # noqa: S608 (scope.py's constants; values are parameters)
        return np.array([r[0] for r in self.rows(to_psycopg(sql), tuple(where[1]))], dtype=np.int64)

    def chunk_files(self, ids: Sequence[int]) -> dict[int, int]:
        return {int(a): int(b) for a, b in self.rows("SELECT id, file_id FROM chunks WHERE id = ANY(%s)", (list(ids),))}

    def chunk_ids_of_file(self, file_id: int, page: Optional[int] = None) -> list[int]:
        if page is None:
            return [int(r[0]) for r in self.rows("SELECT id FROM chunks WHERE file_id = %s ORDER BY ordinal",
                                                 (file_id,))]
        return [int(r[0]) for r in self.rows("SELECT id FROM chunks WHERE file_id = %s AND page = %s ORDER BY ordinal",
                                             (file_id, page))]

    # -- vectors (pgvector; NULL: waiting for the meaning pass) ----------------------------------------------
    def dim(self) -> Optional[int]:
        value = self.get_meta("shared_dim")
        return int(value) if value else None

    def vectors_by_hash(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for h, v in self.rows("SELECT DISTINCT ON (text_hash) text_hash, vector FROM chunks WHERE vector IS NOT NULL "
                              "AND text_hash = ANY(%s)", (list(dict.fromkeys(hashes)),), binary=True):
            vec = as_array(v)
            if np.isfinite(vec).all():
                out[str(h)] = vec
        return out

    def vectors(self, ids: Optional[Iterable[int]] = None, dim: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        if ids is None:
            rows = self.rows("SELECT id, vector FROM chunks WHERE vector IS NOT NULL ORDER BY id", binary=True)
        else:
            rows = self.rows("SELECT id, vector FROM chunks WHERE vector IS NOT NULL AND id = ANY(%s) ORDER BY id",
                             ([int(i) for i in ids],), binary=True)
        out_ids = np.array([r[0] for r in rows], dtype=np.int64)
        if not rows:
            return out_ids, np.zeros((0, dim or 0), dtype=np.float32)
        return out_ids, np.stack([as_array(r[1]) for r in rows])  # binary: 200 vectors in 4.5 ms, not 32 as text

    def vectors_of_file(self, file_id: int) -> int:
        """Passages of a file with their vector (store/ledger.entry_vectors asks this of a shared library)."""
        row = self.one("SELECT count(*) FROM chunks WHERE file_id = %s AND vector IS NOT NULL", (file_id,))
        return int(row[0]) if row else 0

    def files_embedded(self, file_ids: Sequence[int]) -> set[int]:
        """Those of `file_ids` whose every passage has its vector (store/word_stats.py's, on the desktop)."""
        return {int(r[0]) for r in self.rows("SELECT file_id FROM chunks WHERE file_id = ANY(%s) GROUP BY file_id "
                                             "HAVING bool_and(vector IS NOT NULL)", ([int(f) for f in file_ids],))}

    def pending_count(self) -> int:
        row = self.one("SELECT count(*) FROM chunks WHERE vector IS NULL")
        return int(row[0]) if row else 0

    def pending_by_machine(self) -> dict[str, int]:
        """machine -> its passages still without a vector: each machine's own sync embeds its files' passages, so
        a sync tells "yours to embed" from another machine's (the passages of a machine whose sync has not run)."""
        return {str(m): int(n) for m, n in self.rows(
            "SELECT f.machine, count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.vector IS NULL "
            "GROUP BY f.machine")}

    def pending_order(self) -> np.ndarray:
        """The passages the meaning pass embeds, every file's first ones first, newest file first (the desktop's
        queue_order): those of the roots this writer holds (another machine embeds its own roots' passages at
        the same time), all when it holds none."""
        where, params = self._pending_here()
        return np.array([r[0] for r in self.rows(
            f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where} {queue_order()}",  # noqa: S608 (constants)
            params)], dtype=np.int64)

    def pending_here_count(self) -> int:
        """How many passages pending_order holds: what this writer's meaning pass will embed (pending_count counts
        every machine's; a sync asks this to judge its own pass, sync_encoder.py)."""
        where, params = self._pending_here()
        row = self.one(f"SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where}",  # noqa: S608
                       params)
        return int(row[0]) if row else 0

    def _pending_here(self) -> tuple[str, tuple[Any, ...]]:
        """(SQL condition, its parameters) on chunks c joined to files f: waiting, and in this writer's roots."""
        if self.writing_roots is None:
            return "c.vector IS NULL", ()
        return "c.vector IS NULL AND f.root_id = ANY(%s)", (self.writing_roots,)

    def pending_of_files(self, keys: Sequence[str], per_file: int) -> np.ndarray:
        of: dict[str, list[int]] = {}
        for key, cid in self.rows("SELECT f.path, c.id FROM files f JOIN chunks c ON c.file_id = f.id WHERE "
                                  "f.machine = %s AND f.path = ANY(%s) AND c.vector IS NULL ORDER BY c.id",
                                  (self.machine, list(dict.fromkeys(keys)))):
            got = of.setdefault(key, [])
            if len(got) < per_file:
                got.append(int(cid))
        return np.array([c for k in dict.fromkeys(keys) for c in of.get(k, ())], dtype=np.int64)

    def pending_of_file_ids(self, file_ids: Iterable[int]) -> np.ndarray:
        """Store's: the ids of the waiting passages of the files `file_ids`."""
        return np.array([int(r[0]) for r in self.rows(
            "SELECT id FROM chunks WHERE vector IS NULL AND file_id = ANY(%s)", (list(dict.fromkeys(file_ids)),))],
            dtype=np.int64)

    def last_chunk_id(self) -> int:
        """Store's: every passage written later has a higher id (a sequence never gives one again)."""
        return int(self.rows("SELECT coalesce(max(id), 0) FROM chunks")[0][0])

    def pending_rows(self, ids: Iterable[int]) -> list[tuple[int, str, str, str]]:
        ids = [int(i) for i in ids]
        got = {int(a): (int(a), str(b), str(c), str(d)) for a, b, c, d in self.rows(
            "SELECT c.id, c.text_hash, c.text, coalesce(f.embed_title, '') FROM chunks c JOIN files f ON "
            "f.id = c.file_id WHERE c.vector IS NULL AND c.id = ANY(%s)", (ids,))}
        return [got[i] for i in ids if i in got]

    def pending_with_hashes(self, hashes: Iterable[str]) -> dict[int, str]:
        return {int(i): str(h) for i, h in self.rows(
            "SELECT id, text_hash FROM chunks WHERE vector IS NULL AND text_hash = ANY(%s)",
            (list(dict.fromkeys(hashes)),))}

    def set_vectors(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Fill waiting passages (inside `atomic()`). The first vectors fix the column's dimension and build its
        HNSW index in the same transaction."""
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if not len(ids):
            return
        if self.dim() is None:
            for statement in hnsw_index(int(vecs.shape[1])):
                self.rows(statement)
            self.set_meta("shared_dim", str(int(vecs.shape[1])))
        self.run_many("UPDATE chunks SET vector = %s WHERE id = %s AND vector IS NULL",
                      [(vecs[i], int(cid)) for i, cid in enumerate(ids)])


class RoleDenied(StoreError):
    """The database role lacks a right the statement needed (SQLSTATE 42501), said in one line; `why`: the
    server's own words."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


def _reads(sql: Optional[str]) -> bool:
    """Whether `sql` only reads: a SELECT that neither locks rows nor takes a sequence's next value (those need
    write rights, so a role refused them may still read)."""
    if sql is None:
        return False
    text = " ".join(sql.split()).upper()
    return text.startswith(("SELECT ", "WITH ")) and not any(w in text for w in (" FOR UPDATE", " FOR SHARE",
                                                                                 "NEXTVAL("))


# A server's own error as libpq writes it: its severity in the server's language, a colon and two spaces
# ("FATAL:  database … does not exist", "SCHWERWIEGEND:  …"); libpq's own (refused, timed out) has none
_SERVER_SAID = re.compile(r"\b[^\W\d_]+:  ")
# What a server answers while it cannot take a session yet: asking again in a while does (53300, 57P03)
_BUSY_SERVER = ("the database system is", "too many clients", "remaining connection slots")


def _no_server(exc: BaseException, hint: str) -> bool:
    """Whether a failed connect is worth asking again (decision 0171): no server answered (refused, timed out), or
    one answered that it cannot take a session yet (starting up, shutting down, too many clients). A server that
    answered and refused (a database or role that does not exist, a password, pg_hba) changes nothing asked again.
    libpq's connect errors carry no SQL state: told by the text, the severity's form whatever its language."""
    text = str(exc)
    return not hint and (not _SERVER_SAID.search(text) or any(busy in text for busy in _BUSY_SERVER))


def _connection_gone(exc: BaseException, conn: Any) -> bool:
    """Whether a request's error lost the connection (the server gone, restarting, the backend ended): its SQL
    state says a connection exception (08…) or an operator's intervention (57P…), or it has none and the
    connection is broken."""
    state = str(getattr(exc, "sqlstate", None) or "")
    if state.startswith(("08", "57P")):
        return True
    return not state and bool(getattr(conn, "broken", False) or getattr(conn, "closed", False))


def _first_line(exc: BaseException) -> str:
    """The error's first line, without psycopg's "connection failed: " before libpq's own "connection to server at
    … failed: …" (a newcomer read "connection failed: connection to server … failed")."""
    text = str(exc).strip() or type(exc).__name__
    line = text.splitlines()[0]
    return line.removeprefix("connection failed: ") if line.startswith("connection failed: connection ") else line
