"""`search -` on a shared library asks a line again while its server is away a few seconds (decision 0171): a
restart of about 4 s failed 103 lines of a tester's 120 at once; a server gone for good fails each line at once."""

from __future__ import annotations

import io

import pytest

from searchapp.base.errors import ConnectionLost, StoreError
from searchapp.cli.commands import search as search_cmd


class _Server:
    """A searcher whose server is away for the next `away` requests."""

    def __init__(self, away: int) -> None:
        self.away, self.asked = away, 0

    def search(self, q: str, single: bool):
        self.asked += 1
        if self.away > 0:
            self.away -= 1
            raise ConnectionLost("lost the connection to the shared library db: server closed the connection",
                                 " (a command: run it again once the server is back)")
        return f"answer to {q}"


@pytest.fixture
def slept(monkeypatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr("time.sleep", waits.append)
    return waits


def test_a_line_is_asked_again_while_the_server_restarts(slept):
    server, retry, err = _Server(away=2), search_cmd._Retry(), io.StringIO()
    assert search_cmd._line_search(server, "roof", 7, retry, io.StringIO(), err) == "answer to roof"
    assert slept == list(search_cmd.RETRY_WAITS_S[:2]) and server.asked == 3
    assert err.getvalue().count("searchapp: line 7: lost the connection") == 2 and "asking again in 1 s" in err.getvalue()
    assert "run it again" not in err.getvalue()  # it asks again itself
    server.away = 1  # a later outage has every wait again: an answered line resets them
    assert search_cmd._line_search(server, "gutter", 8, retry, io.StringIO(), io.StringIO()) == "answer to gutter"
    assert slept[2:] == [search_cmd.RETRY_WAITS_S[0]]


def test_a_server_gone_for_good_fails_one_line_after_the_waits_and_the_next_at_once(slept):
    server, retry = _Server(away=100), search_cmd._Retry()
    with pytest.raises(ConnectionLost):
        search_cmd._line_search(server, "roof", 1, retry, io.StringIO(), io.StringIO())
    assert slept == list(search_cmd.RETRY_WAITS_S)
    with pytest.raises(ConnectionLost):
        search_cmd._line_search(server, "gutter", 2, retry, io.StringIO(), io.StringIO())
    assert len(slept) == len(search_cmd.RETRY_WAITS_S) and server.asked == len(search_cmd.RETRY_WAITS_S) + 2


def test_another_store_error_is_not_asked_again(slept):
    class Refused:
        def search(self, q: str, single: bool):
            raise StoreError("cannot reach the shared library db: password authentication failed")

    with pytest.raises(StoreError):
        search_cmd._line_search(Refused(), "roof", 1, search_cmd._Retry(), io.StringIO(), io.StringIO())
    assert slept == []


@pytest.mark.parametrize("said, again", [
    ('connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused\n\tIs the server running', True),
    ('connection to server at "db", port 5432 failed: timeout expired', True),
    ('connection to server on socket "/s" failed: FATAL:  database "x" does not exist', False),
    ('connection to server on socket "/s" failed: SCHWERWIEGEND:  Datenbank »x« existiert nicht', False),
    ('connection to server on socket "/s" failed: FATAL:  role "x" does not exist', False),
    ('connection to server on socket "/s" failed: FATAL:  the database system is starting up', True),
    ('connection to server on socket "/s" failed: FATAL:  sorry, too many clients already', True),
])
def test_a_failed_connect_is_asked_again_only_where_the_server_could_answer_later(said, again):
    """A reviewer's: "FATAL" read as English only: a German server's "database does not exist" was asked again
    for 15 s, and "too many clients" never. libpq's connect errors carry no SQL state: the text tells."""
    from searchapp.store.postgres.pg_store import _no_server

    assert _no_server(Exception(said), "") is again
    assert _no_server(Exception(said), " (the password file refused it)") is False  # a hint: a refusal
