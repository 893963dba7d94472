"""The shared library's tables in PostgreSQL (decision 0119), created on the first open that may write.

The same rows as the SQLite library (store/migrations.py), with what sharing needs: a root and a file belong to
the machine that indexes them (`machine`), so two desktops may each index a folder at the same path; words are
a postings table (term, passage, how often, the passage's length) read as FTS5's BM25; a passage's vector is
pgvector's `vector`, NULL while it waits for the meaning pass, searched through an HNSW index by cosine once
the library knows its dimension (the first vector written). Each schema change raises SCHEMA_VERSION; a
library made by a newer searchapp is refused with one line, never changed.
"""

from __future__ import annotations

__all__ = ["SCHEMA_VERSION", "TABLES", "MIGRATIONS", "FILES_COLUMNS_SINCE", "OPENED_BY_OLDER", "hnsw_index"]

SCHEMA_VERSION = 9

TABLES = """
CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS roots (
    id bigserial PRIMARY KEY, machine text NOT NULL, path text NOT NULL,
    added_at double precision NOT NULL, last_sync double precision, UNIQUE (machine, path));
CREATE TABLE IF NOT EXISTS files (
    id bigserial PRIMARY KEY, root_id bigint NOT NULL REFERENCES roots(id), machine text NOT NULL,
    path text NOT NULL, size bigint NOT NULL, mtime_ns bigint NOT NULL, sha256 text, status text NOT NULL,
    error text, kind text, n_chunks integer NOT NULL DEFAULT 0, indexed_at double precision, embed_title text,
    date_ns bigint, ocr text, ocr_pages text, UNIQUE (machine, path));
CREATE INDEX IF NOT EXISTS files_root ON files(root_id);
CREATE INDEX IF NOT EXISTS files_sha ON files(sha256);
CREATE TABLE IF NOT EXISTS chunks (
    id bigserial PRIMARY KEY, file_id bigint NOT NULL REFERENCES files(id), ordinal integer NOT NULL,
    start integer NOT NULL, "end" integer NOT NULL, page integer, text text NOT NULL, text_hash text NOT NULL,
    n_tokens integer NOT NULL, vector vector);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(text_hash);
CREATE INDEX IF NOT EXISTS chunks_unembedded ON chunks(file_id) WHERE vector IS NULL;
CREATE TABLE IF NOT EXISTS postings (
    term text NOT NULL, chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    tf integer NOT NULL, dl integer NOT NULL, PRIMARY KEY (term, chunk_id) INCLUDE (tf, dl));
CREATE INDEX IF NOT EXISTS postings_chunk ON postings(chunk_id);
CREATE TABLE IF NOT EXISTS chunk_spans (
    chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE, start integer NOT NULL,
    "end" integer NOT NULL, page integer);
CREATE INDEX IF NOT EXISTS chunk_spans_chunk ON chunk_spans(chunk_id);
"""

# BM25 needs the passage count and the token total on every search; count(*) over a million passages is a
# scan, so they are kept per root (decision 0123) by triggers, in the very transaction that writes the
# passages, whatever statement does it (COPY, DELETE, a file moved to another root). Per root, not one row:
# two machines writing different roots at once never wait on each other's totals. Fired once per statement
# with its transition table, so a batch's COPY costs one grouped INSERT.
_TOTALS = [
    """CREATE TABLE IF NOT EXISTS chunk_totals (
        root_id bigint PRIMARY KEY REFERENCES roots(id) ON DELETE CASCADE,
        n_rows bigint NOT NULL, n_tokens bigint NOT NULL)""",
    """CREATE OR REPLACE FUNCTION searchapp_totals_add(root bigint, rows bigint, tokens bigint) RETURNS void
       LANGUAGE sql AS $$
         INSERT INTO chunk_totals(root_id, n_rows, n_tokens) VALUES (root, rows, tokens)
         ON CONFLICT (root_id) DO UPDATE SET n_rows = chunk_totals.n_rows + excluded.n_rows,
           n_tokens = chunk_totals.n_tokens + excluded.n_tokens $$""",
    """CREATE OR REPLACE FUNCTION searchapp_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(f.root_id, g.n, g.t) FROM (SELECT file_id, count(*) AS n,
           sum(n_tokens) AS t FROM added GROUP BY file_id) g JOIN files f ON f.id = g.file_id;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION searchapp_chunks_gone() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(f.root_id, -g.n, -g.t) FROM (SELECT file_id, count(*) AS n,
           sum(n_tokens) AS t FROM gone GROUP BY file_id) g JOIN files f ON f.id = g.file_id;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION searchapp_file_moved() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(r.root, r.sign * g.n, r.sign * g.t)
           FROM (SELECT count(*) AS n, coalesce(sum(n_tokens), 0) AS t FROM chunks WHERE file_id = NEW.id) g,
                (VALUES (OLD.root_id, -1), (NEW.root_id, 1)) AS r(root, sign) WHERE g.n > 0;
         RETURN NULL;
       END $$""",
    "DROP TRIGGER IF EXISTS chunks_added ON chunks",
    """CREATE TRIGGER chunks_added AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
       FOR EACH STATEMENT EXECUTE FUNCTION searchapp_chunks_added()""",
    "DROP TRIGGER IF EXISTS chunks_gone ON chunks",
    """CREATE TRIGGER chunks_gone AFTER DELETE ON chunks REFERENCING OLD TABLE AS gone
       FOR EACH STATEMENT EXECUTE FUNCTION searchapp_chunks_gone()""",
    "DROP TRIGGER IF EXISTS file_moved ON files",
    """CREATE TRIGGER file_moved AFTER UPDATE OF root_id ON files FOR EACH ROW
       WHEN (OLD.root_id IS DISTINCT FROM NEW.root_id) EXECUTE FUNCTION searchapp_file_moved()""",
    # A library made before the totals: counted once, here, in the migration's transaction.
    """INSERT INTO chunk_totals(root_id, n_rows, n_tokens) SELECT f.root_id, count(*), sum(c.n_tokens)
       FROM chunks c JOIN files f ON f.id = c.file_id GROUP BY f.root_id
       ON CONFLICT (root_id) DO NOTHING""",
]

# Search history and saved searches, kept with the library (decision 0124); each desktop's own (`owner`: the
# machine name its roots are kept under), as a desktop library keeps them beside its own file.
_SEARCHES = [
    """CREATE TABLE IF NOT EXISTS history (
        id bigserial PRIMARY KEY, owner text NOT NULL, query text NOT NULL, mode text NOT NULL,
        at double precision NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS history_owner ON history(owner, id)",
    """CREATE TABLE IF NOT EXISTS saved (
        owner text NOT NULL, name text NOT NULL, query text NOT NULL, mode text NOT NULL, k integer NOT NULL,
        literal boolean NOT NULL DEFAULT false, created_at double precision NOT NULL, opened_at double precision,
        checked_generation bigint, new_hits integer NOT NULL DEFAULT 0, hits integer NOT NULL DEFAULT 0,
        PRIMARY KEY (owner, name))""",
    """CREATE TABLE IF NOT EXISTS saved_seen (
        owner text NOT NULL, name text NOT NULL, path text NOT NULL, PRIMARY KEY (owner, name, path),
        FOREIGN KEY (owner, name) REFERENCES saved(owner, name) ON DELETE CASCADE)""",
]

# Paths compare byte for byte, as SQLite's BINARY does: a folder filter reads the range [folder/, folder0)
# (store/scope.py), which a language collation (en_US: punctuation ignored at first) would not keep in order.
_PATHS = [
    'ALTER TABLE roots ALTER COLUMN path TYPE text COLLATE "C"',
    'ALTER TABLE files ALTER COLUMN path TYPE text COLLATE "C"',
]

# Undo for Remove (decision 0135): the rows of a machine's last removed folder, kept for its minute in copies of
# the tables (LIKE: the same columns in the same order, so a row goes back as it came; a later migration that adds
# a column to files, chunks, postings or chunk_spans adds it to its copy too). One removal per machine (the key);
# no foreign keys, so a restore checks what took the rows' places since (pg_removed.py).
_REMOVED = [
    """CREATE TABLE IF NOT EXISTS removed_roots (
        machine text PRIMARY KEY, root_id bigint NOT NULL, path text COLLATE "C" NOT NULL,
        added_at double precision NOT NULL, last_sync double precision, removed_at double precision NOT NULL,
        model_fingerprint text)""",
    "CREATE TABLE IF NOT EXISTS removed_files (LIKE files)",
    "CREATE INDEX IF NOT EXISTS removed_files_root ON removed_files(root_id)",
    "CREATE TABLE IF NOT EXISTS removed_chunks (LIKE chunks)",
    "CREATE INDEX IF NOT EXISTS removed_chunks_file ON removed_chunks(file_id)",
    "CREATE TABLE IF NOT EXISTS removed_postings (LIKE postings)",
    "CREATE INDEX IF NOT EXISTS removed_postings_chunk ON removed_postings(chunk_id)",
    "CREATE TABLE IF NOT EXISTS removed_spans (LIKE chunk_spans)",
    "CREATE INDEX IF NOT EXISTS removed_spans_chunk ON removed_spans(chunk_id)",
    # cjk_postings' copy (the table itself comes with a later version): used once that table is there
    """CREATE TABLE IF NOT EXISTS removed_cjk_postings (term text COLLATE "C" NOT NULL, chunk_id bigint NOT NULL,
        tf integer NOT NULL, dl integer NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS removed_cjk_postings_chunk ON removed_cjk_postings(chunk_id)",
]

# The query language and CJK text (decision 0133). A term compares byte for byte (the "C" collation), as FTS5's
# terms do, so `word*` reads the primary key's btree as the range [word, word's successor) instead of testing
# every term. CJK text gets the desktop's character table as postings (tokens.cjk_passage_terms: each character
# and each pair of characters side by side), with its own passage count and token total kept per root beside
# the words' (chunks.n_cjk: the passage's length in that table, NULL where the desktop keeps no row for it).
_CJK = [
    'ALTER TABLE postings ALTER COLUMN term TYPE text COLLATE "C"',
    "ALTER TABLE chunks ADD COLUMN IF NOT EXISTS n_cjk integer",
    "ALTER TABLE IF EXISTS removed_chunks ADD COLUMN IF NOT EXISTS n_cjk integer",  # its copy (decision 0135)
    """CREATE TABLE IF NOT EXISTS cjk_postings (
        term text COLLATE "C" NOT NULL, chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        tf integer NOT NULL, dl integer NOT NULL, PRIMARY KEY (term, chunk_id) INCLUDE (tf, dl))""",
    "CREATE INDEX IF NOT EXISTS cjk_postings_chunk ON cjk_postings(chunk_id)",
    "ALTER TABLE chunk_totals ADD COLUMN IF NOT EXISTS n_cjk_rows bigint NOT NULL DEFAULT 0",
    "ALTER TABLE chunk_totals ADD COLUMN IF NOT EXISTS n_cjk_tokens bigint NOT NULL DEFAULT 0",
    """CREATE OR REPLACE FUNCTION searchapp_totals_add(root bigint, rows bigint, tokens bigint, cjk_rows bigint,
         cjk_tokens bigint) RETURNS void LANGUAGE sql AS $$
         INSERT INTO chunk_totals(root_id, n_rows, n_tokens, n_cjk_rows, n_cjk_tokens)
         VALUES (root, rows, tokens, cjk_rows, cjk_tokens)
         ON CONFLICT (root_id) DO UPDATE SET n_rows = chunk_totals.n_rows + excluded.n_rows,
           n_tokens = chunk_totals.n_tokens + excluded.n_tokens,
           n_cjk_rows = chunk_totals.n_cjk_rows + excluded.n_cjk_rows,
           n_cjk_tokens = chunk_totals.n_cjk_tokens + excluded.n_cjk_tokens $$""",
    """CREATE OR REPLACE FUNCTION searchapp_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(f.root_id, g.n, g.t, g.cn, g.ct) FROM (SELECT file_id, count(*) AS n,
           sum(n_tokens) AS t, count(n_cjk) AS cn, coalesce(sum(n_cjk), 0) AS ct FROM added GROUP BY file_id) g
           JOIN files f ON f.id = g.file_id;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION searchapp_chunks_gone() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(f.root_id, -g.n, -g.t, -g.cn, -g.ct) FROM (SELECT file_id, count(*) AS n,
           sum(n_tokens) AS t, count(n_cjk) AS cn, coalesce(sum(n_cjk), 0) AS ct FROM gone GROUP BY file_id) g
           JOIN files f ON f.id = g.file_id;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION searchapp_file_moved() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM searchapp_totals_add(r.root, r.sign * g.n, r.sign * g.t, r.sign * g.cn, r.sign * g.ct)
           FROM (SELECT count(*) AS n, coalesce(sum(n_tokens), 0) AS t, count(n_cjk) AS cn,
                        coalesce(sum(n_cjk), 0) AS ct FROM chunks WHERE file_id = NEW.id) g,
                (VALUES (OLD.root_id, -1), (NEW.root_id, 1)) AS r(root, sign) WHERE g.n > 0;
         RETURN NULL;
       END $$""",
    "DROP FUNCTION IF EXISTS searchapp_totals_add(bigint, bigint, bigint)",
]

# Postings owned by the store, not checked by foreign keys (decision 0136): the per-row check against chunks was
# half the server's time of a words pass (each of a passage's ~80 rows looked its passage up). Postings are only
# written with their passages, in the same transaction, under ids just taken from the sequence; their deletion,
# which ON DELETE CASCADE did one passage at a time, is one statement-level trigger over the deleted passages,
# whatever statement deletes them (a file re-read, a removal, a reindex). `= ANY(ARRAY(...))`, not `IN (SELECT ...)`:
# the planner reads the latter as a semi-join of unknown yield and scans all postings for one file's passages
# (a fresh table has no statistics), where the array reads postings_chunk.
_OWNED_POSTINGS = [
    "ALTER TABLE postings DROP CONSTRAINT IF EXISTS postings_chunk_id_fkey",
    "ALTER TABLE cjk_postings DROP CONSTRAINT IF EXISTS cjk_postings_chunk_id_fkey",
    """CREATE OR REPLACE FUNCTION searchapp_postings_gone() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM postings WHERE chunk_id = ANY(ARRAY(SELECT id FROM gone));
         DELETE FROM cjk_postings WHERE chunk_id = ANY(ARRAY(SELECT id FROM gone));
         RETURN NULL;
       END $$""",
    "DROP TRIGGER IF EXISTS chunks_postings_gone ON chunks",
    """CREATE TRIGGER chunks_postings_gone AFTER DELETE ON chunks REFERENCING OLD TABLE AS gone
       FOR EACH STATEMENT EXECUTE FUNCTION searchapp_postings_gone()""",
]

# Every shared sync and live update asks which of its roots' files wait for OCR (ledger.pending_ocr_files, decision
# 0138); without an index that reads every machine's files: ~150 ms at 2 x 200k files, ~3 ms with this partial one
# (tests/benchmarks/bench_shared_ocr_check.py), which holds only the few waiting rows.
_OCR_WAITING = ["CREATE INDEX IF NOT EXISTS files_ocr_pending ON files(root_id, mtime_ns DESC) WHERE ocr = 'pending'"]

# The statements that bring a library from version N-1 to N, run in order by the first writer that opens it
# (one transaction with the version's own update).
# A file's st_ctime_ns when last read (decision 0150) and what its reading left out (`explain`'s notes): the
# desktop's migration of the same columns. Its removal's copy gets them too, in the same order: a Remove keeps and
# restores rows with SELECT *.
_CTIME = ["ALTER TABLE files ADD COLUMN IF NOT EXISTS ctime_ns bigint",
          "ALTER TABLE removed_files ADD COLUMN IF NOT EXISTS ctime_ns bigint",
          "ALTER TABLE files ADD COLUMN IF NOT EXISTS notes text",
          "ALTER TABLE removed_files ADD COLUMN IF NOT EXISTS notes text"]

# The version of the reader an entry's text was read with (decision 0152): a newer one reads it again. NULL: read
# before versions were kept. The removal's copy gets it too, last, as in files. And the entries left waiting for
# OCR although recorded as skipped or failed for another reason (the desktop's migration says more).
# A searchapp of schema 8 may still open it (OPENED_BY_OLDER): what it writes of a file's new bytes without the
# reader makes the trigger forget the reader, so this version reads the file again.
_READER = ["ALTER TABLE files ADD COLUMN IF NOT EXISTS reader integer",
           "ALTER TABLE removed_files ADD COLUMN IF NOT EXISTS reader integer",
           "UPDATE files SET ocr = NULL WHERE ocr = 'pending' AND status <> 'indexed' "
           "AND coalesce(error, '') <> 'waiting for OCR'",
           """CREATE OR REPLACE FUNCTION searchapp_reader_unknown() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                IF NEW.sha256 IS DISTINCT FROM OLD.sha256 AND NEW.reader IS NOT DISTINCT FROM OLD.reader THEN
                  NEW.reader := NULL;
                END IF;
                RETURN NEW;
              END $$""",
           "DROP TRIGGER IF EXISTS files_reader_unknown ON files",
           """CREATE TRIGGER files_reader_unknown BEFORE UPDATE OF sha256 ON files
              FOR EACH ROW EXECUTE FUNCTION searchapp_reader_unknown()"""]

# The schema since which the files table has each of file_records.NEWER_COLUMNS (_CTIME, _READER)
FILES_COLUMNS_SINCE = {"ctime_ns": 8, "notes": 8, "reader": 9}

# Schemas a searchapp of an older one may still open and write (decision 0153): schema 9's column and trigger
OPENED_BY_OLDER = {9: 8}

MIGRATIONS: dict[int, list[str]] = {2: _TOTALS, 3: _SEARCHES, 4: _PATHS, 5: _REMOVED, 6: _CJK,
                                    7: _OWNED_POSTINGS + _OCR_WAITING, 8: _CTIME, 9: _READER}


def hnsw_index(dim: int) -> list[str]:
    """The statements that fix the vector column's dimension and build its HNSW index (cosine), run once, in
    the transaction of the first vectors. `dim` is an int checked by the caller: no value reaches SQL as text
    but this number."""
    d = int(dim)
    return [f"ALTER TABLE chunks ALTER COLUMN vector TYPE vector({d})",
            # The desktop index's graph (IndexConfig's defaults: m 16, ef_construction 200), not pgvector's 64.
            "CREATE INDEX IF NOT EXISTS chunks_hnsw ON chunks USING hnsw (vector vector_cosine_ops) "
            "WITH (m = 16, ef_construction = 200)"]
