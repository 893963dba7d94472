"""The thin entry point (cli/entry.py): a search is sent whole to the process serving the library, which runs it
with the command line's own parser and printing (cli/warm_run.py). It must print exactly what the full command line
prints, decline whatever it cannot answer as asked (the full command line then runs it), and trust nothing it
receives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.base.terminal import BOLD
from searchapp.cli import entry as fast
from searchapp.cli.main import main as full_main
from searchapp.cli.warm_run import run_command
from searchapp.library.warm import protocol

TEXTS = {
    "volcano.md": "The volcano erupted and molten rock flowed down to the sea.",
    "bread.txt": "A recipe for sourdough bread with a long cold proof.",
    "tax.txt": "The tax return for 2024 is due in April; keep the receipts.",
    "garden.md": "Tomatoes need sun, water and a stake; prune the side shoots.",
}

CASES = [
    ("volcano rock",),
    ("sourdough", "--mode", "lexical"),
    ("the tax", "--group", "passage", "--k", "3"),
    ("receipts", "--type", "txt"),
    ('"cold proof" -volcano',),
    ("-volcano sun",),
    ("annual OR sea", "--literal"),
    ("zzzz-nothing-matches",),
]


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("thin"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


class Counting:
    """run_command, counting the commands it answered (a search the full command line asked is not one)."""

    def __init__(self) -> None:
        self.answered = 0

    def __call__(self, request, config, search):
        reply = run_command(request, config, search)
        self.answered += 1
        return reply


def serve(data: Path, commands=None):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    lib = Library(load_config(data, env={}))
    assert lib.serve(commands=commands) is None
    return lib


@pytest.fixture
def served(lib_dir):
    runner = Counting()
    lib = serve(lib_dir, runner)
    lib.runner = runner
    yield lib
    lib.close()
    assert not (lib_dir / protocol.SOCKET_NAME).exists()


def run(capsys, entry, *argv: str) -> tuple[int, str, str]:
    code = entry(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def direct(capsys, monkeypatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("SEARCHAPP_NO_WARM", "1")
    try:
        return run(capsys, full_main, *argv)
    finally:
        monkeypatch.delenv("SEARCHAPP_NO_WARM")


def comparable(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("served_by", "timings")}


def test_a_thin_command_prints_what_the_full_command_line_prints(served, lib_dir, capsys, monkeypatch):
    for case in CASES:
        before = served.runner.answered
        code, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", *case, "--json")
        assert served.runner.answered == before + 1, (case, err)  # the whole command was answered
        thin = json.loads(out)
        assert code == 0 and thin["served_by"] == "warm", (case, err)
        d_code, d_out, d_err = direct(capsys, monkeypatch, "--data-dir", str(lib_dir), "search", *case, "--json")
        assert json.loads(d_out)["served_by"] == "direct"
        assert (code, comparable(thin), err) == (d_code, comparable(json.loads(d_out)), d_err), case
        # and the text a person reads, byte for byte (stderr's notes too)
        text = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", *case)
        assert text == direct(capsys, monkeypatch, "--data-dir", str(lib_dir), "search", *case), case
        assert served.runner.answered == before + 2
    assert served._server.served >= 2 * len(CASES)


def test_marks_follow_the_clients_terminal_and_its_no_color(served, lib_dir, capsys, monkeypatch):
    request = {"v": 1, "op": "command", "argv": ["--data-dir", str(lib_dir), "search", "sourdough bread"],
               "data_dir": str(lib_dir), "data_dir_given": True, "env": {}, "context": protocol.context(), "tty": True}
    lib = served
    reply = lib._server.reply(request)
    assert reply["ok"] and reply["code"] == 0 and BOLD in reply["stdout"]
    # the full command line on a terminal prints the same bytes
    monkeypatch.setattr("searchapp.cli.commands.search.use_color", lambda stream, no_color=False: not no_color)
    _, out, _ = direct(capsys, monkeypatch, "--data-dir", str(lib_dir), "search", "sourdough bread")
    assert reply["stdout"] == out
    for env, argv in (({"NO_COLOR": "1"}, []), ({"TERM": "dumb"}, []), ({}, ["--no-color"])):
        plain = lib._server.reply({**request, "env": env, "argv": request["argv"] + argv})
        assert plain["ok"] and BOLD not in plain["stdout"] and "sourdough" in plain["stdout"].lower()
    assert BOLD not in lib._server.reply({**request, "tty": False})["stdout"]


def test_relative_folders_are_read_in_the_clients_folder(served, lib_dir, capsys, monkeypatch):
    monkeypatch.chdir(lib_dir.parent)  # the library is ./lib, its documents ./docs
    for argv in (["--data-dir", "lib", "search", "receipts", "--in", "docs", "--json", "--mode", "lexical"],
                 ["search", "receipts", "--data-dir=lib", "--in", "./docs/../docs", "--json", "--mode", "lexical"],
                 ["search", "in:docs receipts", "--json", "--data-dir", "lib", "--mode", "lexical"]):
        before = served.runner.answered
        code, out, err = run(capsys, fast.main, *argv)
        assert code == 0 and served.runner.answered == before + 1, (argv, err)
        thin = json.loads(out)
        assert thin["served_by"] == "warm"
        assert [h["path"] for h in thin["hits"]] == [str(lib_dir.parent / "docs" / "tax.txt")]
        assert comparable(thin) == comparable(json.loads(direct(capsys, monkeypatch, *argv)[1])), argv
    # an --in elsewhere finds nothing, served all the same
    _, out, _ = run(capsys, fast.main, "--data-dir", "lib", "search", "receipts", "--in", "lib", "--json")
    assert json.loads(out)["hits"] == [] and json.loads(out)["served_by"] == "warm"


def test_paths_are_read_in_the_clients_folder_and_home_not_the_servers(served, lib_dir, monkeypatch):
    monkeypatch.chdir("/")  # the serving process runs elsewhere than the client
    theirs = {**protocol.context(), "cwd": str(lib_dir.parent), "home": str(lib_dir.parent)}
    for argv in (["--data-dir", "lib", "search", "receipts", "--in", "docs"],
                 ["--data-dir", "~/lib", "search", "receipts", "--in", "~/docs"]):
        request = {"v": 1, "op": "command", "argv": argv + ["--mode", "lexical", "--json"], "env": {},
                   "data_dir": str(lib_dir), "data_dir_given": True, "context": theirs, "tty": False}
        reply = served._server.reply(request)
        assert reply["ok"], (argv, reply)
        assert [h["path"] for h in json.loads(reply["stdout"])["hits"]] == [str(lib_dir.parent / "docs" / "tax.txt")]
    assert served.runner.answered == 2
    # nothing found in a folder that is there for the client: no "no such folder here" from the server's folder
    empty = {"v": 1, "op": "command", "env": {}, "data_dir": str(lib_dir), "data_dir_given": True, "context": theirs,
             "tty": False, "argv": ["--data-dir", "lib", "search", "zeppelin", "--in", "docs", "--mode", "lexical"]}
    reply = served._server.reply(empty)
    assert reply["ok"] and "no such folder here" not in reply["stderr"], reply
    reply = served._server.reply({**empty, "argv": empty["argv"][:-4] + ["--in", "nope", "--mode", "lexical"]})
    assert f"--in {lib_dir.parent / 'nope'}: no such folder here" in reply["stderr"], reply
    similar = {"v": 1, "op": "command", "env": {}, "data_dir": str(lib_dir), "data_dir_given": True,
               "context": theirs, "tty": False,
               "argv": ["--data-dir", "lib", "similar", str(lib_dir.parent / "docs" / "bread.txt"), "--in", "~/docs",
                        "--json"]}
    reply = served._server.reply(similar)
    assert reply["ok"] and {Path(h["path"]).parent for h in json.loads(reply["stdout"])["hits"]} == {
        lib_dir.parent / "docs"}
    # dates are read in the client's time zone: another one than this process's is declined
    dated = {**similar, "argv": similar["argv"] + ["--after", "2020-01-01"]}
    assert served._server.reply(dated)["ok"]
    elsewhere = {**theirs, "tz": [theirs["tz"][0] + 3600, theirs["tz"][1] + 3600, 0, ["XYZ", "XYZ"]]}
    assert served._server.reply({**dated, "context": elsewhere})["reason"] == "context"


def test_the_data_dir_from_the_environment_is_served(served, lib_dir, capsys, monkeypatch):
    monkeypatch.setenv("SEARCHAPP_DATA_DIR", str(lib_dir))
    _, out, err = run(capsys, fast.main, "search", "volcano", "--json")
    assert json.loads(out)["served_by"] == "warm" and served.runner.answered == 1, err


def test_what_the_full_command_line_alone_reads_is_asked_by_it(served, lib_dir, capsys, monkeypatch):
    """The thin entry point sends no command only argparse can read (`search -`, `--`); the full command line
    asks with the same one op: each line of `search -` (the request's `line`), `--` as typed. `--direct` and
    commands a warm process never runs are not sent at all."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("volcano\nbread\n"))
    code, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "-", "--json")
    assert code == 0 and [json.loads(r)["served_by"] for r in out.splitlines()] == ["warm", "warm"]
    assert served.runner.answered == 2  # a line at a time
    for argv in (["search", "volcano", "--direct"], ["saved", "list"]):
        run(capsys, fast.main, "--data-dir", str(lib_dir), *argv)
    assert served.runner.answered == 2
    _, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "--json", "--", "-volcano")
    assert json.loads(out)["served_by"] == "warm" and served.runner.answered == 3
    assert json.loads(run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "volcano", "--direct",
                          "--json")[1])["served_by"] == "direct"


def test_declined_commands_run_in_full_and_say_things_once(served, lib_dir, capsys, monkeypatch):
    # a usage error: argparse's message once (from the full command line), nothing printed by the server
    with pytest.raises(SystemExit) as stop:
        fast.main(["--data-dir", str(lib_dir), "search", "q", "--mode", "bogus"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.count("invalid choice: 'bogus'") == 1 and err.count("usage:") == 1
    # help is the full command line's
    with pytest.raises(SystemExit):
        fast.main(["--data-dir", str(lib_dir), "search", "--help"])
    assert "--literal" in capsys.readouterr().out
    # an empty query: the same error either way
    assert run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "   ")[0] == 2
    # an option out of range: the full command line's error and exit code
    code, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "q", "--k", "0")
    assert code == 2 and "--k must be" in err and err.count("--k must be") == 1
    # other settings in the environment: searched directly, with them
    monkeypatch.setenv("SEARCHAPP_SEARCH__K", "2")
    code, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "the", "--json",
                         "--group", "passage")
    monkeypatch.delenv("SEARCHAPP_SEARCH__K")
    assert code == 0 and json.loads(out)["served_by"] == "direct" and len(json.loads(out)["hits"]) == 2
    # another config file: searched directly with it
    other = lib_dir.parent / "other.toml"
    other.write_text((lib_dir / "config.toml").read_text() + "[search]\nk = 1\n")
    _, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "--config", str(other), "search", "the",
                    "--json", "--group", "passage")
    assert json.loads(out)["served_by"] == "direct" and len(json.loads(out)["hits"]) == 1
    assert served.runner.answered == 0


def test_a_data_dir_argparse_reads_otherwise_is_not_answered_from_the_wrong_library(
        served, lib_dir, capsys, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    # `--data-d` is argparse's abbreviation of --data-dir; the thin client does not read it, so it asks the
    # library it does read (here: another one, served too), which must decline rather than answer for itself.
    other = build_tiny_library(tmp_path, {"x.txt": "volcano ash"}, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    runner = Counting()
    other_lib = serve(other, runner)
    try:
        monkeypatch.setenv("SEARCHAPP_DATA_DIR", str(other))
        code, out, err = run(capsys, fast.main, "search", "volcano", "--data-d", str(lib_dir), "--json")
        assert other_lib._server.served == 0
    finally:
        other_lib.close()
    res = json.loads(out)
    assert code == 0 and runner.answered == 0, err
    names = {Path(h["path"]).name for h in res["hits"]}
    assert names and names <= set(TEXTS), res["hits"]  # lib_dir's files, not x.txt
    assert res["served_by"] == "warm"  # asked again, as a search, by the full command line: at lib_dir


def test_a_server_that_runs_no_commands_is_not_asked_twice(lib_dir, capsys):
    """One op: a process that runs no commands answers no search either; the command line searches directly,
    saying nothing (not a fault), and asks once (the full command line does not ask again)."""
    lib = serve(lib_dir, None)
    try:
        _, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "volcano rock", "--json")
        assert json.loads(out)["served_by"] == "direct" and "warm index" not in err
        assert lib._server.served == 0
    finally:
        lib.close()


BAD_REPLIES = {
    "not JSON": b"\x00\xff {{\n",
    "a list": b"[1]\n",
    "output not text": protocol.encode({"v": 1, "ok": True, "stdout": 5, "stderr": "", "code": 0}),
    "an exit code out of range": protocol.encode({"v": 1, "ok": True, "stdout": "x", "stderr": "", "code": 999}),
    "a boolean exit code": protocol.encode({"v": 1, "ok": True, "stdout": "x", "stderr": "", "code": True}),
    "another version": protocol.encode({"v": 2, "ok": True, "stdout": "x", "stderr": "", "code": 0}),
}


@pytest.mark.parametrize("name", list(BAD_REPLIES))
def test_a_bad_reply_is_said_once_and_searched_directly(name, lib_dir, capsys):
    from test_warm_socket import FakeServer

    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, BAD_REPLIES[name])
    try:
        code, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "volcano rock", "--json")
    finally:
        fake.close()
    assert fake.asked == 1  # not asked again by the full command line
    assert code == 0 and json.loads(out)["served_by"] == "direct"
    notes = [line for line in err.splitlines() if "warm index" in line]
    assert len(notes) == 1 and notes[0].endswith("searching directly") and "Traceback" not in err, err


def test_a_socket_others_can_reach_is_never_connected_to(lib_dir, capsys):
    from test_warm_socket import FakeServer

    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, b"", mode=0o666)
    try:
        code, out, err = run(capsys, fast.main, "--data-dir", str(lib_dir), "search", "volcano rock", "--json")
    finally:
        fake.close()
    assert fake.asked == 0 and json.loads(out)["served_by"] == "direct"
    assert err.count("can be reached by other users (mode 666)") == 1


def test_bad_command_requests_are_refused_and_the_server_keeps_serving(served, lib_dir):
    good = {"v": 1, "op": "command", "argv": ["search", "volcano"], "data_dir": str(lib_dir),
            "data_dir_given": False, "env": {}, "context": protocol.context(), "tty": False}
    for bad in ({**good, "argv": "search volcano"}, {**good, "argv": ["search", 5]}, {**good, "env": {"A": 1}},
                {**good, "tty": "yes"}, {**good, "data_dir_given": None}, {k: v for k, v in good.items() if k != "env"}):
        with pytest.raises(protocol.WireError):
            protocol.check_request(bad)
    # well-formed, but the data dir read otherwise than argparse reads it, or another library's
    assert served._server.reply({**good, "data_dir_given": True})["reason"] == "data-dir"  # argparse: none named
    assert served._server.reply({**good, "argv": ["search", "x", "--data-dir", "lib"]})["reason"] == "data-dir"
    assert served._server.reply({**good, "data_dir": "/", "data_dir_given": True,
                                 "argv": ["--data-dir", "/", "search", "x"]})["reason"] == "data-dir"
    assert served._server.reply({**good, "argv": ["search", "x", "--reranker", "/m"]})["reason"] == "not-served"
    assert served._server.reply({**good, "argv": ["search", "x", "--nonsense"]})["reason"] == "not-served"
    assert served.runner.answered == 0
    # and the server still answers: the default data dir the client read (the socket it found) is this one
    ok = served._server.reply(good)
    assert ok["ok"] and ok["code"] == 0 and "Traceback" not in ok["stderr"] and "volcano" in ok["stdout"].lower()
    named = served._server.reply({**good, "data_dir_given": True, "env": {"SEARCHAPP_DATA_DIR": str(lib_dir)}})
    assert named["stdout"] == ok["stdout"]


def test_a_thin_search_starts_with_neither_argparse_nor_the_settings(served, lib_dir):
    # what the command loads beyond what the interpreter had at start (site hooks differ between installs)
    code = ("import sys; at_start = set(sys.modules); from searchapp.cli.entry import main; "
            "rc = main(['--data-dir', sys.argv[1], 'search', 'volcano', '--json']); "
            "print('LOADED', sorted(m for m in ('argparse', 'dataclasses', 'typing', 'sqlite3', 'numpy', "
            "'searchapp.cli.main', 'searchapp.base.config') if m in sys.modules and m not in at_start), "
            "file=sys.stderr); sys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEARCHAPP_")}
    proc = subprocess.run([sys.executable, "-c", code, str(lib_dir)], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["served_by"] == "warm"
    assert "LOADED []" in proc.stderr, proc.stderr
    assert served.runner.answered == 1


def test_ctrl_c_while_the_warm_process_answers_ends_quietly(lib_dir):
    import signal
    import time

    from test_warm_socket import FakeServer

    # connects, then never answers while the test runs: the Ctrl+C must find the command still waiting, however
    # late a loaded machine lets this test send it (with the default 1.5 s the command had given up and searched
    # directly before the signal came, once, in a full run; with the command's own 10 s, once beside two busy
    # loops: the command waits as long as the fake holds, what it does when the warm index is slow is tested apart)
    fake = FakeServer(lib_dir / protocol.SOCKET_NAME, None, hold=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEARCHAPP_")}
    try:
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from searchapp.library.warm import exchange; "
                                 "exchange.ANSWER_SECONDS = 120; from searchapp.cli.entry import main; "
                                 "sys.exit(main(['--data-dir', sys.argv[1], 'search', 'volcano']))", str(lib_dir)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 120
        while fake.asked == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        assert fake.asked == 1
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        fake.close()
    assert proc.returncode == 130 and out == "" and err == "searchapp: cancelled\n", err


def test_status_is_served_as_the_command_line_prints_it(served, lib_dir, capsys, monkeypatch):
    for argv in (["status"], ["status", "--json"], ["status", "--check"]):
        before = served.runner.answered
        thin = run(capsys, fast.main, "--data-dir", str(lib_dir), *argv)
        assert served.runner.answered == before + 1, argv  # answered whole by the warm process
        full = run(capsys, full_main, "--data-dir", str(lib_dir), *argv)  # opens the library itself
        assert thin == full, argv
    _, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "status", "--json")
    st = json.loads(out)
    assert st["warm_pid"] == os.getpid() and st["consistent"] and st["vectors"] == st["chunks"] == len(TEXTS)
    # a listing of every file, or other settings: the full command line's (counted nowhere here)
    before = served.runner.answered
    code, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "status", "--files")
    assert code == 0 and out.count("[indexed]") == len(TEXTS)
    monkeypatch.setenv("SEARCHAPP_SEARCH__K", "3")
    assert run(capsys, fast.main, "--data-dir", str(lib_dir), "status")[0] == 0
    assert served.runner.answered == before


def test_a_served_status_follows_another_processs_commit(served, lib_dir, capsys, tiny_encoder, tmp_path):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    docs = tmp_path / "more"
    docs.mkdir()
    (docs / "comet.txt").write_text("A comet crossed the night sky.\n", encoding="utf-8")
    with Library(load_config(lib_dir, env={}), encoder=tiny_encoder) as other:  # another writer
        other.add_folder(docs)
    try:
        _, out, _ = run(capsys, fast.main, "--data-dir", str(lib_dir), "status", "--json")
        st = json.loads(out)
        assert st["files"] == len(TEXTS) + 1 and st["vectors"] == st["chunks"] and st["consistent"]
    finally:
        with Library(load_config(lib_dir, env={}), encoder=tiny_encoder) as other:
            other.remove_folder(str(docs))


def test_similar_is_served_as_the_command_line_prints_it(served, lib_dir, capsys, monkeypatch):
    docs = lib_dir.parent / "docs"
    monkeypatch.chdir(lib_dir.parent)
    for argv in (["similar", str(docs / "volcano.md")], ["similar", str(docs / "volcano.md"), "--json"],
                 ["similar", str(docs / "bread.txt"), "--k", "2", "--type", "txt"],
                 ["similar", str(docs / "bread.txt"), "--in", "docs", "--json"],
                 ["similar", str(docs / "bread.txt"), "--in", "lib", "--json"]):
        before = served.runner.answered
        thin = run(capsys, fast.main, "--data-dir", "lib", *argv)
        assert served.runner.answered == before + 1, argv
        full = direct(capsys, monkeypatch, "--data-dir", "lib", *argv)
        if "--json" in argv:  # timings aside
            thin, full = [(c, comparable(json.loads(o)), e) for c, o, e in (thin, full)]
        assert thin == full, argv
    assert json.loads(run(capsys, fast.main, "--data-dir", "lib", "similar", str(docs / "bread.txt"), "--in", "docs",
                          "--json")[1])["hits"]
    # an unindexed file: the full command line's error and exit code, once
    before = served.runner.answered
    code, out, err = run(capsys, fast.main, "--data-dir", "lib", "similar", str(docs / "nope.txt"))
    assert code == 2 and out == "" and err.count("is not an indexed file") == 1
    assert served.runner.answered == before


def test_a_relative_similar_path_is_read_in_the_clients_folder(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys,
                                                               monkeypatch):
    """`similar docs/note.txt` from another folder than the warm process's: both folders hold a docs/note.txt,
    so reading PATH in the server's folder answers for the wrong file, with exit 0. Served = direct."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path / "one", {"note.txt": TEXTS["volcano.md"], "bread.txt": TEXTS["bread.txt"]},
                              tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    theirs_docs = tmp_path / "two" / "docs"
    theirs_docs.mkdir(parents=True)
    (theirs_docs / "note.txt").write_text(TEXTS["tax.txt"] + "\n", encoding="utf-8")
    (theirs_docs / "garden.md").write_text(TEXTS["garden.md"] + "\n", encoding="utf-8")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        lib.add_folder(theirs_docs)
    monkeypatch.chdir(tmp_path / "one")  # the warm process's folder: its docs/note.txt is the other file
    lib = serve(data, run_command)
    try:
        theirs = {**protocol.context(), "cwd": str(tmp_path / "two")}
        for path in ("docs/note.txt", "./docs/../docs/note.txt"):
            argv = ["--data-dir", str(data), "similar", path, "--json"]
            reply = lib._server.reply({"v": 1, "op": "command", "argv": argv, "env": {}, "data_dir": str(data),
                                       "data_dir_given": True, "context": theirs, "tty": False})
            monkeypatch.chdir(tmp_path / "two")
            code, out, err = direct(capsys, monkeypatch, *argv)
            monkeypatch.chdir(tmp_path / "one")
            assert code == 0 and json.loads(out)["query"] == str(theirs_docs / "note.txt"), err
            assert reply["ok"] and reply["code"] == 0, reply
            assert comparable(json.loads(reply["stdout"])) == comparable(json.loads(out)), path
    finally:
        lib.close()
