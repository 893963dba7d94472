"""The warm index: a long-lived process answers `searchapp search` over a private socket in the data dir, and the
command line searches directly whenever that answer cannot be trusted — with the same output either way."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.warm_run import run_command
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main
from searchapp.library.warm import protocol
from searchapp.library.warm.ping import ping
from searchapp.library.warm import exchange as exchange_module
from searchapp.library.warm.exchange import exchange as ask_line
from searchapp.library.warm.server import WarmServer

TEXTS = {
    "volcano.md": "The volcano erupted and molten rock flowed down to the sea.",
    "bread.txt": "A recipe for sourdough bread with a long cold proof.",
    "tax.txt": "The tax return for 2024 is due in April; keep the receipts.",
    "garden.md": "Tomatoes need sun, water and a stake; prune the side shoots.",
    "notes.txt": "Minutes of the board meeting: the annual budget was approved.",
}


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("warm"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


def open_lib(data: Path, encoder, **overrides):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    return Library(load_config(data, env={}, overrides=overrides or None), encoder=encoder)


@pytest.fixture
def served(lib_dir):
    # The server loads its model from the settings, as `searchapp watch` does: so does the direct search it is
    # compared with (a model loaded with other thread settings differs in the 7th digit).
    lib = open_lib(lib_dir, None)
    assert lib.serve(commands=run_command) is None
    yield lib
    lib.close()
    assert not (lib_dir / protocol.SOCKET_NAME).exists()  # removed when the server stops


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def search_json(capsys, data: Path, *argv: str) -> tuple[dict, str]:
    code, out, err = cli(capsys, "--data-dir", str(data), "search", *argv, "--json")
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out), err


def comparable(data: dict) -> dict:
    """A search's JSON without what only says how or how fast it was answered."""
    return {k: v for k, v in data.items() if k not in ("served_by", "timings")}


def differences(a: dict, b: dict) -> list:
    """What differs between two search JSONs, key by key (for the failure message)."""
    out = [(k, a.get(k), b.get(k)) for k in set(a) | set(b)
           if k not in ("hits", "served_by", "timings") and a.get(k) != b.get(k)]
    for i, (x, y) in enumerate(zip(a.get("hits", []), b.get("hits", []), strict=False)):
        out += [(i, k, x.get(k), y.get(k)) for k in set(x) | set(y) if x.get(k) != y.get(k)]
    return out


CASES = [
    ("volcano rock",),
    ("sourdough", "--mode", "lexical"),
    ("budget meeting", "--mode", "dense"),
    ("the tax", "--group", "passage", "--k", "3"),
    ("receipts", "--type", "txt"),
    ('"cold proof" -volcano',),
    ("type:md sun",),
    ("annual OR sea", "--literal"),
    ("zzzz-nothing-matches",),
]


def test_a_served_search_prints_what_a_direct_one_prints(served, lib_dir, capsys, monkeypatch):
    for case in CASES:
        warm, err = search_json(capsys, lib_dir, *case)
        assert warm["served_by"] == "warm", (case, err)
        direct, _ = search_json(capsys, lib_dir, *case, "--direct")
        assert direct["served_by"] == "direct"
        assert comparable(warm) == comparable(direct), (case, differences(warm, direct))
        # and the text a person reads, byte for byte (stderr's notes too)
        code_w, out_w, err_w = cli(capsys, "--data-dir", str(lib_dir), "search", *case)
        monkeypatch.setenv("SEARCHAPP_NO_WARM", "1")
        code_d, out_d, err_d = cli(capsys, "--data-dir", str(lib_dir), "search", *case)
        monkeypatch.delenv("SEARCHAPP_NO_WARM")
        assert (code_w, out_w, err_w) == (code_d, out_d, err_d), case
    assert served._server.served >= 2 * len(CASES)


def test_search_lines_from_stdin_are_served_alike(served, lib_dir, capsys, monkeypatch):
    import io

    lines = "volcano\n\nthe\nbread proof\n"
    out, said = {}, {}
    for way in ("warm", "direct"):
        if way == "direct":
            monkeypatch.setenv("SEARCHAPP_NO_WARM", "1")
        monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
        code, text, err = cli(capsys, "--data-dir", str(lib_dir), "search", "-", "--json")
        assert code == 0, err
        rows = [json.loads(r) for r in text.splitlines()]
        assert len(rows) == 4 and {r["served_by"] for r in rows} == {way}
        out[way], said[way] = [comparable(r) for r in rows], err
    assert out["warm"] == out["direct"]
    # each line asked on its own, the run's notes alike: the search's notice once, a line's own note numbered
    assert said["warm"] == said["direct"] and said["warm"].count("reranking is disabled") == 1, said


def test_an_empty_query_is_the_same_error_either_way(served, lib_dir, capsys):
    code, out, err = cli(capsys, "--data-dir", str(lib_dir), "search", "   ")
    assert code == 2 and "Traceback" not in err and out == ""


def test_the_socket_is_private_and_one_process_serves(served, lib_dir, tiny_encoder):
    st = os.lstat(lib_dir / protocol.SOCKET_NAME)
    assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    other = open_lib(lib_dir, tiny_encoder)
    try:
        assert other.serve() == "another process serves this library"
    finally:
        other.close()
    assert ping(lib_dir) == os.getpid()  # the first still serves


def test_status_says_which_process_serves(served, lib_dir, capsys):
    code, out, err = cli(capsys, "--data-dir", str(lib_dir), "status", "--json")
    assert code == 0 and json.loads(out)["warm_pid"] == os.getpid()
    code, out, err = cli(capsys, "--data-dir", str(lib_dir), "status")
    assert f"warm index: searches are answered by process {os.getpid()}" in out
    served.stop_serving()
    code, out, err = cli(capsys, "--data-dir", str(lib_dir), "status", "--json")
    assert code == 0 and json.loads(out)["warm_pid"] is None


def test_a_served_search_sees_a_file_another_process_indexed(served, lib_dir, capsys, tmp_path):
    new = tmp_path / "comet.txt"
    new.write_text("A comet with a glowing tail crossed the night sky over the observatory.\n", encoding="utf-8")
    before, _ = search_json(capsys, lib_dir, "glowing comet tail")
    assert before["served_by"] == "warm" and not any(h["path"] == str(new) for h in before["hits"])
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(lib_dir), "index", str(new)],
                          capture_output=True, text=True, timeout=600)
    try:
        assert proc.returncode == 0, proc.stderr
        for mode in SEARCH_MODES:
            after, _ = search_json(capsys, lib_dir, "glowing comet tail", "--mode", mode)
            assert after["served_by"] == "warm"
            paths = [h["path"] for h in after["hits"]]
            # Only the new file has these words, so it leads wherever words count; the tiny encoder's meaning is
            # random weights, so the dense side is asked only to have it among its hits (all 6 files: k is 10).
            assert (str(new) in paths) if mode == "dense" else paths[0] == str(new), (mode, paths)
    finally:
        served.remove_folder(new)


def test_other_settings_are_searched_directly(lib_dir, tiny_encoder, capsys):
    lib = open_lib(lib_dir, tiny_encoder, search={"k": 3})  # the server runs with k = 3, the command line not
    assert lib.serve(commands=run_command) is None
    try:
        res, err = search_json(capsys, lib_dir, "volcano")
        assert res["served_by"] == "direct" and "warm index" not in err  # not a fault: nothing said
        assert lib._server.served == 0
    finally:
        lib.close()


def test_a_query_that_reads_paths_or_dates_is_served_only_from_the_same_folder_and_time_zone(
        served, lib_dir, capsys, monkeypatch):
    # as if the serving process had started in another folder (relative `in:` paths) or time zone (dates)
    monkeypatch.setattr("searchapp.library.warm.server.context", lambda: {"cwd": "/elsewhere", "tz": []})
    assert search_json(capsys, lib_dir, "volcano rock")[0]["served_by"] == "warm"
    for case in (("in:docs volcano",), ("volcano after:2020-01-01",), ("volcano", "--after", "2020-01-01")):
        res, err = search_json(capsys, lib_dir, *case)
        assert res["served_by"] == "direct" and "warm index" not in err, case
    assert search_json(capsys, lib_dir, "in:docs volcano", "--literal")[0]["served_by"] == "warm"  # no syntax read


# -- a dead or hostile socket ------------------------------------------------------------------------------------
def direct_result(capsys, data: Path, query: str = "volcano rock") -> dict:
    res, _ = search_json(capsys, data, query, "--direct")
    return comparable(res)


def test_a_killed_servers_socket_file_is_searched_around_then_replaced(lib_dir, tiny_encoder, capsys):
    path = lib_dir / protocol.SOCKET_NAME
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: what a killed server leaves
    os.chmod(path, 0o600)
    try:
        res, err = search_json(capsys, lib_dir, "volcano rock")
        assert res["served_by"] == "direct" and "warm index" not in err  # just searched directly, nothing said
        assert comparable(res) == direct_result(capsys, lib_dir)
        lib = open_lib(lib_dir, tiny_encoder)
        try:
            assert lib.serve(commands=run_command) is None  # the lock was free: the file was a dead server's, replaced
            res, _ = search_json(capsys, lib_dir, "volcano rock")
            assert res["served_by"] == "warm"
        finally:
            lib.close()
    finally:
        if path.exists():
            path.unlink()


class FakeServer:
    """Something listening on warm.sock that answers every request with `reply` (bytes), or not at all."""

    def __init__(self, path: Path, reply: bytes | None, mode: int = 0o600, hold: float = 1.5) -> None:
        self.path, self.reply, self.hold = path, reply, hold  # hold: how long a connection not answered stays open
        self._closing = threading.Event()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        os.chmod(path, mode)
        self.sock.listen(4)
        self.asked = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self.asked += 1
                conn.recv(1 << 16)
                if self.reply is None:
                    self._closing.wait(self.hold)
                else:
                    try:
                        conn.sendall(self.reply)
                    except OSError:
                        pass

    def close(self) -> None:
        self._closing.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes accept()
        except OSError:
            pass
        self.thread.join(timeout=10)
        self.sock.close()
        self.path.unlink(missing_ok=True)


def good_reply() -> dict:
    return {"v": 1, "ok": True, "stdout": "{}\n", "stderr": "", "code": 0}


GARBAGE = {
    "not JSON": b"\x00\xffgarbage {{{\n",
    "another version": protocol.encode({**good_reply(), "v": 2}),
    "a list": b"[1, 2, 3]\n",
    "output that is not text": protocol.encode({**good_reply(), "stdout": ["{}"]}),
    "a line's notice state that is not a bool": protocol.encode({**good_reply(), "said": "yes"}),
    "too deep": b"[" * 100_000 + b"\n",
    "no newline, then closed": b'{"v": 1, "ok": true',
    "too large": b'{"v": 1, "pad": "' + b"x" * 2_000 + b'"}\n',
    "no answer in time": None,
}


@pytest.mark.parametrize("name", list(GARBAGE))
def test_a_garbage_reply_is_said_once_and_searched_directly(name, lib_dir, capsys, monkeypatch):
    if name == "too large":
        monkeypatch.setattr(exchange_module, "MAX_REPLY", 1_000)
    monkeypatch.setattr(exchange_module, "ANSWER_SECONDS", 0.5)
    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, GARBAGE[name])
    try:
        res, err = search_json(capsys, lib_dir, "volcano rock")
        assert fake.asked == 1
    finally:
        fake.close()
    assert res["served_by"] == "direct"
    assert comparable(res) == direct_result(capsys, lib_dir)
    notes = [line for line in err.splitlines() if "warm index" in line]
    assert len(notes) == 1 and notes[0].endswith("searching directly"), err
    assert "Traceback" not in err


def test_a_socket_others_can_reach_is_not_used(lib_dir, capsys):
    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, protocol.encode(good_reply()), mode=0o666)
    try:
        res, err = search_json(capsys, lib_dir, "volcano rock")
    finally:
        fake.close()
    assert res["served_by"] == "direct" and fake.asked == 0
    assert "can be reached by other users (mode 666)" in err


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a socket to another user needs root")
def test_another_users_socket_is_not_used(lib_dir, capsys):
    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, protocol.encode(good_reply()))
    os.chown(lib_dir / protocol.SOCKET_NAME, 65534, 65534)
    try:
        code, out, err = cli(capsys, "--data-dir", str(lib_dir), "search", "volcano rock", "--json")
    finally:
        fake.close()
    assert fake.asked == 0  # never connected to
    assert "warm index: " in err and "belongs to another user (uid 65534); ignored it; searching directly" in err
    # and the library itself refuses a data dir holding another user's file, as it always has (library/resources/data_dir.py)
    assert code == 2 and out == "" and "refusing to use it" in err and "Traceback" not in err


def test_a_fake_servers_good_reply_is_taken_as_is(lib_dir, capsys):
    # the other tests' fallbacks are not a client that never trusts the socket: a well-formed reply is used
    printed = '{"query": "magma chamber", "hits": [], "served_by": "warm"}\n'
    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, protocol.encode({**good_reply(), "stdout": printed, "stderr": "n\n",
                                                               "code": 3}))
    try:
        code, out, err = cli(capsys, "--data-dir", str(lib_dir), "search", "magma chamber", "--json")
    finally:
        fake.close()
    assert (code, out, err) == (3, printed, "n\n") and fake.asked == 1  # what to print, and the exit code


def history(data: Path) -> list[str]:
    from searchapp.base.config import load_config
    from searchapp.library.query.saved import SearchHistory

    return SearchHistory(load_config(data, env={})).queries()


def test_a_served_query_is_kept_in_the_history_and_a_problem_keeping_it_said_alike(served, lib_dir, capsys,
                                                                                   monkeypatch):
    res, _ = search_json(capsys, lib_dir, "lava flows seaward")
    assert res["served_by"] == "warm" and history(lib_dir)[0] == "lava flows seaward"
    db = lib_dir / "searches.sqlite"
    kept = db.read_bytes()
    try:
        db.write_bytes(b"not a database " * 100)  # damaged: nothing is recorded, and that is said
        asked = served._server.served
        code_w, out_w, err_w = cli(capsys, "--data-dir", str(lib_dir), "search", "volcano")
        assert served._server.served == asked + 1
        monkeypatch.setenv("SEARCHAPP_NO_WARM", "1")
        code_d, out_d, err_d = cli(capsys, "--data-dir", str(lib_dir), "search", "volcano")
    finally:
        db.write_bytes(kept)
    assert "searchapp: warning: search history not recorded" in err_w
    assert (code_w, out_w, err_w) == (code_d, out_d, err_d)


# -- the server's own caps ------------------------------------------------------------------------------------
def exchange(path: Path, payload: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(path))
        s.sendall(payload)
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf)


def test_the_server_refuses_bad_requests_and_keeps_serving(served, lib_dir, monkeypatch):
    path = lib_dir / protocol.SOCKET_NAME
    too_large = exchange(path, b"x" * (protocol.MAX_REQUEST + 10) + b"\n")
    assert too_large["ok"] is False and too_large["reason"] == "too-large"
    for payload in (b"not json\n", b"[" * 50_000 + b"\n", b'{"v": 1, "op": "exec", "code": "import os"}\n',
                    b'{"v": 2, "op": "ping"}\n', protocol.encode({"v": 1, "op": "search", "query": 5})):
        reply = exchange(path, payload)
        assert reply["ok"] is False and reply["reason"] == "bad-request", payload[:40]
    # a client that never finishes its line is dropped after the request's time; the next is answered
    monkeypatch.setattr("searchapp.library.warm.server.REQUEST_SECONDS", 0.3)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(path))
        s.sendall(b'{"v": 1, "op": "pi')
        s.settimeout(5)
        assert s.recv(10) == b""  # closed without a word
    assert exchange(path, b'{"v": 1, "op": "ping"}\n')["pid"] == os.getpid()


def test_a_server_does_not_start_beside_a_file_that_is_not_a_socket(lib_dir, tiny_encoder):
    lib = open_lib(lib_dir, tiny_encoder)
    try:
        (lib_dir / protocol.SOCKET_NAME).write_text("not a socket")
        server = WarmServer(lib)
        assert server.start() is False and "not a socket" in server.note
        assert not server.serving
    finally:
        (lib_dir / protocol.SOCKET_NAME).unlink()
        lib.close()


def test_the_warm_path_loads_no_numpy_hnswlib_or_torch(served, lib_dir):
    code = ("import sys; from searchapp.cli.main import main; rc = main(['--data-dir', sys.argv[1], 'search', "
            "'volcano', '--json']); heavy = [m for m in ('numpy', 'hnswlib', 'torch', 'transformers') "
            "if m in sys.modules]; print('HEAVY', heavy, file=sys.stderr); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, str(lib_dir)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["served_by"] == "warm"
    assert "HEAVY []" in proc.stderr, proc.stderr


# What a served search's command line starts without: SQLite (the server keeps the query in the history),
# hashlib (the settings key is the settings' JSON), logging (config's writing side and the history use it).
NOT_AT_START = ("sqlite3", "hashlib", "_hashlib", "logging")
START_CHECK = """
import json, sys
from searchapp.cli.main import main
codes = [main(["--data-dir", sys.argv[1], "search", "pumice stone", "--json"]),
         main(["--data-dir", sys.argv[1], "search", "pumice stone"])]  # the form a person reads, too
loaded = [m for m in %r if m in sys.modules]
from searchapp.store import cjk
print("@@" + json.dumps({"codes": codes, "loaded": loaded, "cjk_compiled": cjk._cjk_run.cache_info().currsize}))
""" % (NOT_AT_START,)


def test_a_served_search_starts_without_sqlite_hashlib_or_logging(served, lib_dir):
    proc = subprocess.run([sys.executable, "-c", START_CHECK, str(lib_dir)], capture_output=True, text=True,
                          timeout=300)
    lines = proc.stdout.splitlines()
    assert lines and lines[-1].startswith("@@"), proc.stderr
    report = json.loads(lines[-1][2:])
    assert report["codes"] == [0, 0], proc.stderr
    assert json.loads(lines[0])["served_by"] == "warm"
    assert report["loaded"] == [], f"a served search imported {report['loaded']}"
    assert report["cjk_compiled"] == 0  # an ASCII query needs no CJK pattern
    assert history(lib_dir)[0] == "pumice stone"  # kept all the same, by the server


# -- a real `searchapp watch` ------------------------------------------------------------------------------------
def start_watch(data: Path) -> subprocess.Popen:
    # File-system events, as a user's watch runs: `--poll` looks every 30 s, and waiting for its next look was
    # most of this file's time (test_watch.py tests the events and the polling fallback).
    proc = subprocess.Popen([sys.executable, "-m", "searchapp", "--data-dir", str(data), "watch", "--debounce", "0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:  # "watching N folder(s) (...); searches from the command line are answered here; ..."
        if line.startswith("watching"):
            assert "answered here" in line, line
            return proc
    raise AssertionError(f"watch ended: {proc.wait()} {proc.stderr.read()}")


def wait_until(pred, what: str, seconds: float = 120.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_searchapp_watch_answers_follows_its_folders_and_leaves_nothing_behind(
        tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    import signal

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    proc = start_watch(data)
    try:
        res, _ = search_json(capsys, data, "volcano rock")
        assert res["served_by"] == "warm" and Path(res["hits"][0]["path"]).name == "volcano.md"
        assert comparable(res) == direct_result(capsys, data)
        assert ping(data) == proc.pid
        # it runs a thin client's whole command too (cli/entry.py), printing what the command line prints
        from searchapp.cli import entry as fast

        assert fast.main(["--data-dir", str(data), "search", "volcano rock", "--json"]) == 0
        thin = json.loads(capsys.readouterr().out)
        assert thin["served_by"] == "warm" and comparable(thin) == comparable(res)
        reply, _ = ask_line(data / protocol.SOCKET_NAME, {
            "v": 1, "op": "command", "argv": ["search", "volcano"], "data_dir": str(data), "data_dir_given": False,
            "env": {}, "context": protocol.context(), "tty": False}, 30.0)
        assert reply["ok"] and reply["code"] == 0 and "volcano.md" in reply["stdout"], reply
        new = tmp_path / "docs" / "comet.txt"
        new.write_text("A comet with a glowing tail crossed the night sky.\n", encoding="utf-8")

        def found():
            r, _ = search_json(capsys, data, "glowing comet", "--mode", "lexical")
            return r["hits"] and Path(r["hits"][0]["path"]).name == "comet.txt" and r
        assert wait_until(found, "the watcher to index comet.txt")["served_by"] == "warm"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert not (data / protocol.SOCKET_NAME).exists()
        # A watch killed outright: test_a_watch_takes_over_serving_once_the_process_that_served_has_gone kills its
        # own (one process start less here: this watch's second start embedded comet.txt again, ~3 CPU s).
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


def test_a_watch_takes_over_serving_once_the_process_that_served_has_gone(
        tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    first = open_lib(data, None)
    assert first.serve(commands=run_command) is None
    proc = subprocess.Popen([sys.executable, "-m", "searchapp", "--data-dir", str(data), "watch", "--poll"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = next(x for x in proc.stdout if x.startswith("watching"))
        assert "answered here" not in line, line
        assert ping(data) == os.getpid()
        first.close()  # the window closes: the watch answers from now on
        line = proc.stdout.readline()
        assert line.endswith("searches from the command line are answered here now\n"), line
        assert ping(data) == proc.pid
        assert search_json(capsys, data, "volcano rock")[0]["served_by"] == "warm"
        # killed outright, the watch leaves its socket file: the next search goes around it, saying nothing
        proc.kill()
        proc.wait(timeout=60)
        assert (data / protocol.SOCKET_NAME).exists()
        res, err = search_json(capsys, data, "volcano rock")
        assert res["served_by"] == "direct" and "warm index" not in err
        assert comparable(res) == direct_result(capsys, data)
    finally:
        first.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


def test_a_served_search_says_the_missing_reranker_with_the_days_first_search(served, lib_dir, capsys):
    """The warm process records a query as it answers it: read after that, the history always held a search of
    today and the day's first search said nothing of the reranker (a reviewer's find). Read before, as directly."""
    assert cli(capsys, "--data-dir", str(lib_dir), "history", "clear")[0] == 0
    first, second = (cli(capsys, "--data-dir", str(lib_dir), "search", "volcano") for _ in range(2))
    assert first[0] == 0 and "reranking is disabled" in first[2], first
    assert second[0] == 0 and "reranking is disabled" not in second[2], second
    assert served._server.served >= 2  # both answered by the warm process
