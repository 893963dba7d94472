"""Every schema change of the library database, in order. `PRAGMA user_version` records how far a file got.

Append a new entry to MIGRATIONS for a change; never edit a released one.
"""

from __future__ import annotations

import sqlite3

from ..base.errors import StoreError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "OPENED_BY_OLDER", "migrate", "schema_steps"]

MIGRATIONS: list[str] = [
    # 1: roots, files, chunks (+ float32 vectors), meta, FTS5 over chunk text kept in sync by triggers.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE roots (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        added_at REAL NOT NULL,
        last_sync REAL
    );
    CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        root_id INTEGER NOT NULL REFERENCES roots(id),
        path TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT,
        status TEXT NOT NULL,          -- indexed | skipped | failed
        error TEXT,
        kind TEXT,
        n_chunks INTEGER NOT NULL DEFAULT 0,
        indexed_at REAL
    );
    CREATE INDEX files_root ON files(root_id);
    -- AUTOINCREMENT: a chunk id is also its vector-index label and must never be reused.
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        file_id INTEGER NOT NULL REFERENCES files(id),
        ordinal INTEGER NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        page INTEGER,
        text TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE INDEX chunks_file ON chunks(file_id);
    CREATE INDEX chunks_hash ON chunks(text_hash);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER chunks_au AFTER UPDATE OF text ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
    END;
    """,
    # CJK lexical search (see store/cjk.py): CJK text one character per token in a second FTS5 table, kept in
    # step with chunks by triggers. cjk_chars() is a function every Store registers on its connection.
    """
    CREATE VIRTUAL TABLE chunks_cjk USING fts5(chars, tokenize='unicode61 remove_diacritics 0');
    CREATE TRIGGER chunks_cjk_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_cjk(rowid, chars) SELECT new.id, g FROM (SELECT cjk_chars(new.text) AS g) WHERE g != '';
    END;
    CREATE TRIGGER chunks_cjk_ad AFTER DELETE ON chunks BEGIN
        DELETE FROM chunks_cjk WHERE rowid = old.id;
    END;
    CREATE TRIGGER chunks_cjk_au AFTER UPDATE OF text ON chunks BEGIN
        DELETE FROM chunks_cjk WHERE rowid = old.id;
        INSERT INTO chunks_cjk(rowid, chars) SELECT new.id, g FROM (SELECT cjk_chars(new.text) AS g) WHERE g != '';
    END;
    INSERT INTO chunks_cjk(rowid, chars) SELECT id, g FROM (SELECT id, cjk_chars(text) AS g FROM chunks) WHERE g != '';
    """,
    # results-by-file: identical passages inside one file are stored (and embedded, indexed) once; the other
    # places the same text occurs are kept here so a preview can still show every occurrence.
    """
    CREATE TABLE chunk_spans (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id),
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        page INTEGER
    );
    CREATE INDEX chunk_spans_chunk ON chunk_spans(chunk_id);
    CREATE TRIGGER chunk_spans_ad AFTER DELETE ON chunks BEGIN
        DELETE FROM chunk_spans WHERE chunk_id = old.id;
    END;
    """,
    # Members and the per-file ledger (store/ledger.py): an entry's own date (a mail's Date header; NULL: its
    # mtime counts), and the OCR state of a file (NULL: no OCR; 'pending' | 'done', set by the OCR step).
    """
    ALTER TABLE files ADD COLUMN date_ns INTEGER;
    ALTER TABLE files ADD COLUMN ocr TEXT;
    """,
    # Words first, meaning in the background (store/vector_queue.py): a passage is committed with its text and
    # FTS rows before it has a vector. "No vector yet" is a zero-length BLOB: the column is NOT NULL and SQLite
    # cannot relax that without copying every chunk and re-creating the FTS triggers and the AUTOINCREMENT
    # sequence (chunk ids must never be reused). The partial index finds those passages without a scan; the
    # title a file's passages are embedded with is kept so the bi-encoder's input can be built again later.
    """
    ALTER TABLE files ADD COLUMN embed_title TEXT;
    CREATE INDEX chunks_unembedded ON chunks(file_id) WHERE length(vector) = 0;
    """,
    # The pages of a PDF whose text came from OCR ("2,5"), so only their passages are labelled OCR; NULL with
    # ocr = 'done' means all of the entry (an image, or a PDF OCR'd before this column existed).
    """
    ALTER TABLE files ADD COLUMN ocr_pages TEXT;
    """,
    # A file's st_ctime_ns when it was last read (decision 0150): an edit that keeps size and mtime is still seen.
    # NULL: not known yet (the next sync that finds the file unchanged records it); 0: read again next sync.
    # notes: what its reading left out ("text truncated at …", "2 paragraph(s) left out, not prose: …"), one a
    # line, for `explain`: a person whose words are not found learns why.
    """
    ALTER TABLE files ADD COLUMN ctime_ns INTEGER;
    ALTER TABLE files ADD COLUMN notes TEXT;
    """,
    # The version of the reader an entry's text was read with (decision 0152): a newer one reads it again.
    # NULL: read before versions were kept, read again by the next sync. And an entry recorded as skipped or
    # failed for another reason while it waited for OCR (an image that grew too large) was left waiting: the
    # ledger counted it ocr_pending and the OCR step read it again; such a sync now clears it, and this the ones
    # left before.
    # A searchapp of the version before, still running while this one is installed (a window, a watch), writes an
    # edited file's new text without knowing this column: the trigger forgets the row's reader when its bytes
    # change and its reader does not, so this version reads it again (upsert_file writes the reader after the row).
    """
    ALTER TABLE files ADD COLUMN reader INTEGER;
    UPDATE files SET ocr = NULL WHERE ocr = 'pending' AND status != 'indexed' AND coalesce(error, '') != 'waiting for OCR';
    CREATE TRIGGER files_reader_unknown AFTER UPDATE OF sha256 ON files
        WHEN new.sha256 IS NOT old.sha256 AND new.reader IS old.reader BEGIN
        UPDATE files SET reader = NULL WHERE id = new.id;
    END;
    """,
    # The shelf (store/shelf.py, decision 0187): the vectors of passages a sync deleted from a file of a git working
    # tree, by their model input's hash, with the folder they were of and when. An older version ignores it (it
    # shelves nothing, finds nothing there); a model it changed is pruned by this one's next sync, and never reused
    # meanwhile (the shelf's identity). A folder it removes takes its shelved vectors with it by the trigger: a
    # root's id is a rowid, taken again by the next folder added, so a prune by ids no longer in `roots` kept them
    # as the new folder's. `path`: the entry they were of, so that one excluded later, or found to hold a secret,
    # takes its earlier versions' vectors with it (Shelf.unshelve_entry).
    """
    CREATE TABLE shelved_vectors (
        text_hash TEXT PRIMARY KEY,
        vector BLOB NOT NULL,
        root_id INTEGER NOT NULL,
        shelved_at REAL NOT NULL,
        path TEXT
    );
    CREATE INDEX shelved_vectors_at ON shelved_vectors(shelved_at);
    CREATE INDEX shelved_vectors_root ON shelved_vectors(root_id);
    CREATE INDEX shelved_vectors_path ON shelved_vectors(path);
    CREATE TRIGGER shelved_vectors_root_gone AFTER DELETE ON roots BEGIN
        DELETE FROM shelved_vectors WHERE root_id = old.id;
    END;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)

# Schemas the version before may still open and write (decision 0153): a column it does not know and a trigger that
# mends what it writes. PRAGMA user_version says the oldest schema whose searchapp may open the file (a searchapp
# refuses a file whose user_version is above its own), meta `schema` the steps taken.
OPENED_BY_OLDER = {8: 7, 9: 7}
STEPS_META = "schema"


def schema_steps(conn: sqlite3.Connection) -> int:
    """The migration steps this file has taken (its user_version, or meta `schema` where that says more)."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version >= 1:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (STEPS_META,)).fetchone()
        if row is not None and str(row[0]).isdigit():
            return max(version, int(row[0]))
    return version


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to SCHEMA_VERSION; each step is one transaction. Returns the version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"this library was written by a newer searchapp (schema {version}, this version knows {SCHEMA_VERSION}); upgrade searchapp"
        )
    for step in range(min(schema_steps(conn), SCHEMA_VERSION), SCHEMA_VERSION):
        try:
            # One script, one transaction: a failed step leaves the file at the previous version.
            conn.executescript(f"BEGIN;\n{MIGRATIONS[step]}\n"  # noqa: S608 (constants and this code's step numbers)
                               f"INSERT OR REPLACE INTO meta(key, value) VALUES ('{STEPS_META}', '{int(step) + 1}');\n"
                               f"PRAGMA user_version = {OPENED_BY_OLDER.get(step + 1, step + 1)};\nCOMMIT;")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(f"schema migration {step + 1} failed: {exc}") from exc
    return SCHEMA_VERSION
