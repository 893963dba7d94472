"""One folder in both engines, for the tests that compare them: a desktop library (SQLite) and a shared library (a
fresh database on the test server, tests/pg_server.py), each synced once with the same encoder and no reranker;
and what those tests compare of a lexical answer."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

__all__ = ["both_engines", "lexical_rows"]


@contextmanager
def both_engines(base: Path, docs: Path, encoder: Any, pg_server: Any) -> Iterator[tuple[Any, Any]]:
    """(SQLite library, shared library) over `docs`, both synced; closed after. Both must add the same files and
    passages, some."""
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.shared import SharedLibrary

    config = load_config(base / "library", env={}, overrides={"models": {"reranker": ""}})
    lite = Library(config, encoder=encoder)
    shared = SharedLibrary(config, pg_server.address(pg_server.new_database()), create=True, encoder=encoder)
    try:
        lite_rep, shared_rep = lite.add_folder(docs), shared.add_folder(docs)
        assert (shared_rep.added, shared_rep.chunks_added) == (lite_rep.added, lite_rep.chunks_added)
        assert shared_rep.chunks_added > 0  # a comparison over nothing proves nothing
        yield lite, shared
    finally:
        lite.close()
        shared.close()


def lexical_rows(result: Any) -> list[tuple[str, int, int, Any]]:
    """(file name, passage start, end, BM25) of every hit and its file's other passages."""
    return [(Path(x.path).name, x.start, x.end, x.scores.lexical) for h in result.hits for x in (h, *h.more)]
