"""Issue 39, items 3 and 4: a command that writes while another process holds the library's writer lock waits its
turn, saying for whom, and goes on when the lock is free (`--no-wait`: refuses at once); `searchapp watch` answers
searches from its first second, also while its catch-up waits, and says what it does. The other writer is a child
process holding the lock (as the window does while it embeds); the commands run as real subprocesses."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from conftest import build_tiny_library

TEXTS = {
    "volcano.md": "The volcano erupted and molten rock flowed down to the sea.",
    "bread.txt": "A recipe for sourdough bread with a long cold proof.",
}

HANG_GUARD_S = 240.0
HOLD_LOCK = textwrap.dedent("""
    import sys
    from pathlib import Path
    from searchapp.library.resources.lock import writer_lock
    with writer_lock(Path(sys.argv[1])):
        print("locked", flush=True)
        sys.stdin.read()  # hold until the test closes our stdin
""")


@pytest.fixture
def library(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')


@pytest.fixture
def holder(library):
    """Another process writing the library: it holds the writer lock until `release()`."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(library)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"

    def release() -> None:
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
        proc.wait(timeout=60)

    proc.release = release
    yield proc
    release()


def searchapp(data: Path, *argv: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "searchapp", "--data-dir", str(data), *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def read_until(proc: subprocess.Popen, text: str, seen: list[str]) -> str:
    """The first line of `proc`'s output holding `text`. A hang guard, not a timing check: a line that never
    comes (the command waits on something else) ends the process after HANG_GUARD_S and fails the test."""
    guard = threading.Timer(HANG_GUARD_S, proc.kill)
    guard.start()
    try:
        for line in proc.stdout:
            seen.append(line)
            if text in line:
                return line
    finally:
        guard.cancel()
    raise AssertionError(f"{text!r} never came; exit {proc.wait()}; output: {''.join(seen)}")


def in_process(capsys, data: Path, *argv: str) -> tuple[int, str, str]:
    """The command line run in this process: (exit code, stdout, stderr). The other process (the writer holding the
    lock, the watch serving) is what these tests are about; the command that meets it needs no Python start."""
    from searchapp.cli.main import main

    capsys.readouterr()
    code = main(["--data-dir", str(data), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def new_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "comet.txt").write_text("A comet with a glowing tail crossed the night sky.\n", encoding="utf-8")
    return folder


def test_index_waits_its_turn_saying_for_whom_then_goes_on(tmp_path, library, holder, capsys):
    folder = new_folder(tmp_path)
    proc = searchapp(library, "index", "--words-only", str(folder))  # no model to load: the turn is the point
    seen: list[str] = []
    try:
        line = read_until(proc, "waiting for", seen)
        assert f"process {holder.pid}" in line and "--no-wait" in line, line
        assert proc.poll() is None  # still waiting, not failed
        holder.release()
        assert proc.wait(timeout=300) == 0, "".join(seen) + proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # What the index wrote, read by the in-process command line (one Python start less: the waiting was the point)
    from searchapp.cli.main import main

    capsys.readouterr()
    assert main(["--data-dir", str(library), "search", "glowing comet", "--mode", "lexical", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and Path(hits[0]["path"]).name == "comet.txt"


def test_no_wait_refuses_at_once_naming_the_writer(tmp_path, library, holder, capsys):
    for argv in (("index", "--no-wait", str(new_folder(tmp_path))), ("reindex", "--no-wait"),
                 ("remove", "--yes", "--no-wait", str(tmp_path / "docs"))):
        code, _, err = in_process(capsys, library, *argv)
        assert code == 3, (argv, err)
        assert err.count("\n") == 1 and "another searchapp process is updating the library" in err
        assert f"process {holder.pid}" in err and "--no-wait" in err, err
        assert "searchapp: waiting for" not in err


@pytest.fixture(params=["embedded", "words only"])
def watched(request, tmp_path, library, tiny_encoder) -> Path:
    """The library, or (words only) one whose passages have no vector yet: a brand-new library's first hour."""
    if request.param == "words only":
        from searchapp.base.config import load_config
        from searchapp.library import Library

        with Library(load_config(library, env={}), encoder=tiny_encoder) as lib:
            lib.reindex(embed=False)
            assert lib.status().embedded == 0
    return library


def test_watch_serves_from_its_first_second_while_its_catch_up_waits(watched, holder, capsys):
    from searchapp.library.warm.ping import ping

    library = watched

    proc = searchapp(library, "watch", "--poll", "--debounce", "0.2")
    seen: list[str] = []
    try:
        read_until(proc, "searches from the command line are answered here", seen)
        read_until(proc, f"waiting for process {holder.pid}", seen)  # the catch-up waits for the other writer
        assert ping(library) == proc.pid
        status = json.loads(in_process(capsys, library, "status", "--json")[1])
        assert status["warm_pid"] == proc.pid
        for mode in ("lexical", "hybrid"):
            _, out, err = in_process(capsys, library, "search", "sourdough bread", "--mode", mode, "--json")
            res = json.loads(out)
            assert res["served_by"] == "warm", err
            assert Path(res["hits"][0]["path"]).name == "bread.txt"
        holder.release()
        read_until(proc, "caught up", seen)
        read_until(proc, "watching 1 folder(s)", seen)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_status_and_an_empty_search_name_the_process_writing_now(library, holder, capsys):
    """During a first sync a newcomer saw `files: 0` and "no results" for half a minute, with nothing saying a sync
    was filling the library. Both now name the writer; without one, neither says it."""
    from searchapp.cli.main import main

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--data-dir", str(library), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("status")
    assert code == 0 and f"being written now by process {holder.pid}" in out, out
    code, out, _ = run("status", "--json")
    assert json.loads(out)["writer"].startswith(f"process {holder.pid}")
    code, _, err = run("search", "zeppelin", "--mode", "lexical")
    assert code == 0 and f"process {holder.pid}" in err and "is indexing this library now" in err, err
    holder.release()
    code, out, _ = run("status", "--json")
    assert json.loads(out)["writer"] is None
    code, _, err = run("search", "zeppelin", "--mode", "lexical")
    assert "is indexing" not in err


def test_an_empty_search_names_the_writer_only_where_its_sync_could_change_the_answer(library, holder):
    """A newcomer's `type:banana boiler` during a sync was told "is indexing this library now: search again in a
    moment", then "no results": no file is of that type. The result line says why its filters left nothing; the
    writer is named only where its sync could bring a match. Run as real processes, both streams into one pipe
    with stdout unbuffered: each note on a line of its own, never inside a result line."""
    import os

    def run(query: str) -> list[str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "SEARCHAPP_NO_WARM": "1"}
        proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(library), "search", query,
                               "--mode", "lexical"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env, timeout=HANG_GUARD_S)
        assert proc.returncode == 0, proc.stdout
        lines = proc.stdout.splitlines()
        assert all(ln.startswith("searchapp: ") for ln in lines if "searchapp: " in ln), lines
        return lines

    indexing = f"searchapp: note: process {holder.pid} "
    lines = run("boiler type:banana")  # no file is of it, and no reader takes it: no sync brings one
    assert lines == ['no results: no indexed file is of type "banana" (types here: md 1, txt 1)'], lines
    lines = run("boiler in:/nonexistent-x")  # outside every indexed folder: no sync of them writes there
    assert not any(ln.startswith(indexing) for ln in lines) and lines[-1].startswith(
        "no results: /nonexistent-x is not in an indexed folder (indexed: "), lines
    lines = run("boiler type:pdf")  # a type a reader takes: the sync under way may bring one
    assert any(ln.startswith(indexing) and ln.endswith("is indexing this library now: search again in a moment")
               for ln in lines), lines
    assert lines[-1] == 'no results: no indexed file is of type "pdf" (types here: md 1, txt 1)', lines
    lines = run("zeppelin")  # a plain miss: as before
    assert lines[-1] == "no results" and any(ln.startswith(indexing) for ln in lines), lines
