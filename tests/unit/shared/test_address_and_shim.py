"""The shared library's address rules and the `?` -> `%s` placeholder shim (no server needed)."""

from __future__ import annotations

import pytest

from searchapp.base.errors import ConfigError
from searchapp.base.library_address import checked_address, library_address, shown
from searchapp.store.postgres.sql_shim import to_psycopg


def test_placeholders_outside_quotes_only():
    assert to_psycopg("UPDATE files SET ocr = ? WHERE id = ?") == "UPDATE files SET ocr = %s WHERE id = %s"
    assert to_psycopg("SELECT '?', \"a?\" FROM t WHERE x = ?") == "SELECT '?', \"a?\" FROM t WHERE x = %s"
    assert to_psycopg("SELECT 5 % 2, '%' WHERE y LIKE ?") == "SELECT 5 %% 2, '%%' WHERE y LIKE %s"


@pytest.mark.parametrize("address", ["postgresql://bob:hunter2@db/lib", "postgresql://db/lib?password=hunter2",
                                     "postgresql://db/lib?sslmode=require&PASSWORD=x"])
def test_a_password_in_the_address_is_refused(address):
    with pytest.raises(ConfigError, match="holds a password") as err:
        checked_address(address)
    assert "hunter2" not in str(err.value)


def test_a_password_in_the_address_says_where_it_is_written(monkeypatch):
    """A newcomer told "the shared library address holds a password" did not know which of --library, the
    environment and config.toml to take it out of."""
    monkeypatch.setenv("SEARCHAPP_LIBRARY", "postgresql://bob:hunter2@db/lib")
    with pytest.raises(ConfigError, match=r"^\$SEARCHAPP_LIBRARY: the shared library address holds a password"):
        library_address(None)


def test_the_address_comes_from_the_flag_then_the_environment(monkeypatch):
    monkeypatch.setenv("SEARCHAPP_LIBRARY", "postgresql://env-host/lib")
    assert library_address("postgresql://flag-host/lib") == "postgresql://flag-host/lib"
    assert library_address(None) == "postgresql://env-host/lib"
    monkeypatch.delenv("SEARCHAPP_LIBRARY")
    assert library_address(None) is None
    with pytest.raises(ConfigError, match="takes a postgresql:// address"):
        library_address("/home/me/library")


@pytest.mark.parametrize("typed", ["postgressql://bob:hunter2@db/lib", "bob:hunter2@db/lib",
                                   "host=db password=hunter2 dbname=lib", "host=db PASSWORD = 'hunter2' dbname=lib"])
def test_a_mistyped_address_is_named_without_its_password(typed, monkeypatch):
    """Not an address at all: the line that says so names what was typed, and where, but never its password."""
    monkeypatch.setenv("SEARCHAPP_LIBRARY", typed)
    with pytest.raises(ConfigError, match=r"^\$SEARCHAPP_LIBRARY takes a postgresql:// address") as err:
        library_address(None)
    assert "hunter2" not in str(err.value) and "db" in str(err.value)


def test_shown_names_no_options():
    assert shown("postgresql://bob@db.example:5433/team?sslmode=verify-full") == "postgresql://bob@db.example:5433/team"


def test_shown_names_a_service_not_a_socket():
    """The docs' service address: its host and database are in the service file; status and errors said
    "postgresql://local socket/", the one thing it is not, and dropped the name to look up."""
    assert shown("postgresql:///?service=team") == "postgresql:///?service=team"
    assert shown("postgresql://bob@/?service=team&sslmode=require") == "postgresql://bob@/?service=team"
    assert shown("postgresql://bob@/lib?host=/run/sock") == "postgresql://bob@local socket/lib"


def test_shown_keeps_a_port_out_of_range_or_not_a_number():
    """The error that follows (libpq's) is about the port: the address it names keeps it."""
    assert shown("postgresql://team@127.0.0.1:99999/searchapp") == "postgresql://team@127.0.0.1:99999/searchapp"
    assert shown("postgresql://team@[::1]:99999/searchapp") == "postgresql://team@[::1]:99999/searchapp"
    assert shown("postgresql://team@db:abc/searchapp") == "postgresql://team@db:abc/searchapp"


def test_without_the_shared_extra_one_line(monkeypatch):
    import sys

    from searchapp.base.errors import StoreError
    from searchapp.store.postgres.pg_store import PgStore

    monkeypatch.setitem(sys.modules, "psycopg", None)  # not installed
    with pytest.raises(StoreError, match=r"needs psycopg and pgvector: pip install 'searchapp\[shared\]'"):
        PgStore("postgresql://team@server/lib")


@pytest.mark.parametrize("raw, said", [
    ('connection failed: connection to server at "127.0.0.1", port 5 failed: Connection refused',
     'connection to server at "127.0.0.1", port 5 failed: Connection refused'),  # psycopg's prefix, said once
    ("connection failed: no password supplied", "connection failed: no password supplied"),  # its only words
    ("server closed the connection unexpectedly\n\tThis probably means", "server closed the connection unexpectedly"),
])
def test_a_connection_error_is_said_in_its_first_line_once(raw, said):
    from searchapp.store.postgres.pg_store import _first_line

    assert _first_line(Exception(raw)) == said
