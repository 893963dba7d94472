"""The warm index's protocol (library/warm/protocol.py) and socket helpers, without a library."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.library.warm import protocol, sockets


def full_hit(**over) -> Hit:
    return Hit(chunk_id=7, path="/r/a.zip//in/b.pdf", page=3, start=10, end=90, text="text \x07 ›",
               scores=StageScores(0.5, 2.25, 0.75, -1.5, 0.18), ranks=StageRanks(2, 1, 1, 3, 1),
               more=[Hit(8, "/r/a.zip//in/b.pdf", 4, 100, 150, "more", order_label="match")],
               repeats=[(200, 280, 5), (300, 380, None)], available=False, ocr=True, order_label="relevance",
               date_ns=1_700_000_000_000_000_000, common_to=3, copies=["/r/copy.pdf"], **over)


def request(**over) -> dict:
    """What a served command asks WarmServer.search (cli/commands/search.warm_request): built in the serving
    process from the command argparse read there, never received as such."""
    return {"config": "k", "context": {}, "query": "q", "k": None, "mode": None, "candidates": None, "group": None,
            "literal": False, "rerank": None, "check_empty": True, "filters": None, **over}


def command(**over) -> dict:
    return {"v": 1, "op": "command", "argv": ["search", "-"], "data_dir": "/d", "data_dir_given": True, "env": {},
            "context": {}, "tty": False, **over}


@pytest.mark.parametrize("bad", [
    {"v": 2}, {"op": "exec"}, {"op": "search"}, {"argv": "search q"}, {"argv": ["search", 5]}, {"env": {"A": 1}},
    {"tty": "yes"}, {"data_dir_given": None}, {"line": "volcano"}, {"line": {"n": 0, "text": "q", "said": False}},
    {"line": {"n": True, "text": "q", "said": False}}, {"line": {"n": 1, "text": 5, "said": False}},
    {"line": {"n": 1, "text": "q", "said": "no"}}, {"line": {"n": 1, "text": "q"}},
])
def test_one_op_for_a_search_and_a_request_of_the_wrong_shape_is_refused(bad):
    """A search comes only as a command (op "search", the second way in, is gone); a line of `search -` is
    numbered from 1, with its text and whether the run said its notices."""
    protocol.check_request(command())
    protocol.check_request(command(line={"n": 3, "text": "volcano\n", "said": True}))
    protocol.check_request({"v": 1, "op": "ping"})
    with pytest.raises(protocol.WireError):
        protocol.check_request(command(**bad))


def test_the_settings_key_ignores_only_the_data_dir(tmp_path):
    from searchapp.base.config import load_config

    a, b = load_config(tmp_path / "a", env={}), load_config(tmp_path / "b", env={})
    assert protocol.config_key(a) == protocol.config_key(b)
    assert protocol.config_key(a) != protocol.config_key(a.replace(search={"k": 3}))


def test_a_server_answers_only_its_own_settings_by_the_settings_themselves(tmp_path):
    """The key is the settings' canonical JSON; the sha256 older clients sent is no longer a second way in."""
    import hashlib
    import json

    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.warm.server import WarmServer

    cfg = load_config(tmp_path, env={})
    key = protocol.config_key(cfg)
    assert json.loads(key)["search"]["k"] == 10  # the settings themselves: equal keys are equal settings
    with Library(cfg) as lib:  # never started: its search is called as the listening thread would
        server = WarmServer(lib)
        with pytest.raises(protocol.Refused) as no:
            server.search(request(config=key, query="   "))
        assert no.value.reason == "empty"  # past the settings check
        for other in (protocol.config_key(cfg.replace(search={"k": 3})), hashlib.sha256(key.encode()).hexdigest()):
            with pytest.raises(protocol.Refused) as no:
                server.search(request(config=other, query="   "))
            assert no.value.reason == "config"


def test_a_query_reads_the_folder_and_time_zone_only_with_fields_or_dates():
    assert not protocol.needs_context(request(query="plain words"))
    assert protocol.needs_context(request(query="budget in:reports"))
    assert not protocol.needs_context(request(query="budget in:reports", literal=True))
    assert protocol.needs_context(request(filters={"within": [], "types": [], "after": "2026-01-01", "before": None}))


def test_a_long_data_dir_still_gets_its_socket(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = deep / protocol.SOCKET_NAME
    assert len(os.fsencode(str(path))) > 108  # longer than sun_path holds
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with sockets.address(path) as where:
        server.bind(where)
    server.listen(1)
    assert path.exists()  # the socket file lies in the folder itself

    def answer():
        conn, _ = server.accept()
        with conn:
            conn.sendall(b"hello\n")

    t = threading.Thread(target=answer)
    t.start()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c, sockets.address(path) as where:
        c.connect(where)
        assert sockets.read_line(c, 100, time.monotonic() + 5) == b"hello"
        assert sockets.peer_uid(c) in (os.geteuid(), None)
    t.join()
    server.close()


def test_a_line_past_its_limit_or_time_is_refused():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"x" * 50)
        with pytest.raises(sockets.LineTooLong):
            sockets.read_line(b, 20, time.monotonic() + 5)
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"no newline")
        with pytest.raises(TimeoutError):
            sockets.read_line(b, 100, time.monotonic() + 0.2)
