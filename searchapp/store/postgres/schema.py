"""The shared library's tables in PostgreSQL (decision 0119), created on the first open that may write.

The same rows as the SQLite library (store/migrations.py), with what sharing needs: a root and a file belong to
the machine that indexes them (`machine`), so two desktops may each index a folder at the same path; words are
a postings table (term, passage, how often, the passage's length) read as FTS5's BM25; a passage's vector is
pgvector's `vector`, NULL while it waits for the meaning pass, searched through an HNSW index by cosine once
the library knows its dimension (the first vector written). Each schema change raises SCHEMA_VERSION; a
library made by a newer searchapp is refused with one line, never changed.
"""

from __future__ import annotations

__all__ = ["SCHEMA_VERSION", "TABLES", "hnsw_index"]

SCHEMA_VERSION = 1

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


def hnsw_index(dim: int) -> list[str]:
    """The statements that fix the vector column's dimension and build its HNSW index (cosine), run once, in
    the transaction of the first vectors. `dim` is an int checked by the caller: no value reaches SQL as text
    but this number."""
    d = int(dim)
    return [f"ALTER TABLE chunks ALTER COLUMN vector TYPE vector({d})",
            # The desktop index's graph (IndexConfig's defaults: m 16, ef_construction 200), not pgvector's 64.
            "CREATE INDEX IF NOT EXISTS chunks_hnsw ON chunks USING hnsw (vector vector_cosine_ops) "
            "WITH (m = 16, ef_construction = 200)"]
