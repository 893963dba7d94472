"""A library a team shares: the same app on PostgreSQL with pgvector (issue 44, decision 0119).

`searchapp --library postgresql://…` keeps roots, files, passages, words (a postings table read as BM25 with
FTS5's own tokenization) and vectors (pgvector HNSW, cosine) in PostgreSQL. The sync (library/sync) and the
search pipeline (library/search/pipeline.run_search) run unchanged over `PgStore`, which answers the Store
methods they call. Nothing here is imported unless a shared library is asked for: psycopg is an optional
extra (`pip install searchapp[shared]`)."""
