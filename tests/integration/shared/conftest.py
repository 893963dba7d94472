"""The shared-library tests' server: one real PostgreSQL with pgvector per pytest process (tests/pg_server.py),
started by the first test that asks for it and stopped at the end; a database per test."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def pg_server():
    from pg_server import PgServer

    server = PgServer()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def pg_address(pg_server) -> str:
    """The address of a fresh, empty database with pgvector, on the test server's private socket."""
    return pg_server.address(pg_server.new_database())
