"""Trust, round 4: a FIFO planted in the data dir never hangs a command (each library file is opened without
blocking and refused unless it is a regular file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import build_tiny_library

TEXTS = {
    "volcano.txt": "Volcanoes erupt molten rock called lava; the ash reaches the sea.",
    "budget.txt": "The budget for the observatory grew every year.",
}
HANG_S = 120  # far beyond what these commands take on a busy machine; a FIFO's open() would wait for ever

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("trust4"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


def planted(lib_dir: Path, tmp_path: Path, name: str) -> Path:
    """A copy of the library with a FIFO at `name`."""
    data = tmp_path / "lib"
    shutil.copytree(lib_dir, data)
    (data / name).unlink(missing_ok=True)
    os.mkfifo(data / name, 0o600)
    return data


def searchapp(capsys, monkeypatch, data: Path, *argv: str) -> SimpleNamespace:
    """The command line in this process (a Python start each was most of these tests' CPU), on a thread that
    ends() gives up on if it blocks: what it prints and its exit code."""
    from searchapp.cli.main import main

    monkeypatch.setenv("SEARCHAPP_NO_WARM", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    capsys.readouterr()
    code = ends(lambda: main(["--data-dir", str(data), *argv]))
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def ends(call, seconds: float = HANG_S):
    """call()'s result, or pytest.fail when it has not returned within `seconds` (it is left blocked on a daemon
    thread; opening its FIFO for writing below lets it go)."""
    out: list = []
    t = threading.Thread(target=lambda: out.append(call()), daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail("blocked on a FIFO")
    return out[0]


def release(fifo: Path) -> None:
    """Let an open() blocked on `fifo` for reading go (a writer appears and leaves)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


@needs_fifo
@pytest.mark.parametrize("name", ["vectors.hnsw", "vectors.hnsw.json"])
@pytest.mark.parametrize("argv", [["status"], ["search", "volcano lava", "--wait"]])
def test_a_fifo_at_the_vector_index_is_refused_and_rebuilt_not_waited_on(lib_dir, tmp_path, name, argv, capsys,
                                                                         monkeypatch):
    data = planted(lib_dir, tmp_path, name)
    try:
        p = searchapp(capsys, monkeypatch, data, *argv)
    finally:
        release(data / name)
    said = [line for line in (p.stdout + p.stderr).splitlines() if "vector index was unreadable" in line]
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    if argv[0] == "status":  # said once, and the rebuilt index saved over the FIFO
        assert len(said) == 1 and "rebuilt 2 vectors" in said[0], p.stdout + p.stderr
        assert (data / name).is_file()
    else:  # the search's meaning comes from the index rebuilt in memory
        assert "volcano.txt" in p.stdout and "similarity" in p.stdout, p.stdout


@needs_fifo
def test_a_fifo_at_a_lock_file_or_the_config_is_refused_in_one_line(lib_dir, tmp_path):
    from searchapp.base.config import load_config
    from searchapp.base.errors import ConfigError, StoreError
    from searchapp.library.resources.lock import writer_holder, writer_lock
    from searchapp.library.resources.in_flight import LOCK_NAME, SearchesInFlight

    data = planted(lib_dir, tmp_path, "writer.lock")
    try:
        assert ends(lambda: writer_holder(data)) is None

        def locked() -> str:
            try:
                with writer_lock(data, wait=0):
                    return "held"
            except StoreError as exc:
                return str(exc)

        assert "not a regular file" in ends(locked)
    finally:
        release(data / "writer.lock")
    os.mkfifo(data / LOCK_NAME, 0o600)
    try:
        searches = SearchesInFlight(data, create=False)
        assert ends(searches.busy) is False  # a sync looking for searches elsewhere
        assert ends(lambda: searches.running().__enter__()) is None
        searches.close()
    finally:
        release(data / LOCK_NAME)
    (data / "config.toml").unlink()
    os.mkfifo(data / "config.toml", 0o600)
    try:
        def config() -> str:
            try:
                load_config(data, env={})
                return "read"
            except ConfigError as exc:
                return str(exc)

        assert ends(config) == f"{data / 'config.toml'}: not a regular file"
    finally:
        release(data / "config.toml")


def test_a_link_at_a_lock_file_is_refused_in_one_line_and_its_target_left_alone(lib_dir, tmp_path):
    """A symbolic link at writer.lock (or the searches' lock) to a file outside, say ~/.bashrc: opening it O_CREAT
    and truncating it as a lock would empty that file. It is refused, never followed."""
    from searchapp.base.errors import StoreError
    from searchapp.library.resources.lock import writer_holder, writer_lock
    from searchapp.library.resources.in_flight import LOCK_NAME, SearchesInFlight

    data = tmp_path / "lib"
    shutil.copytree(lib_dir, data)
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("export PATH=$HOME/bin:$PATH\n")
    for name in ("writer.lock", LOCK_NAME):
        (data / name).unlink(missing_ok=True)
        (data / name).symlink_to(bashrc)
    assert writer_holder(data) is None
    with pytest.raises(StoreError, match="symbolic link") as err:
        with writer_lock(data, wait=0):
            pass
    assert "\n" not in str(err.value)
    searches = SearchesInFlight(data, create=True)
    with searches.running():
        pass
    searches.close()
    assert bashrc.read_text() == "export PATH=$HOME/bin:$PATH\n" and (data / "writer.lock").is_symlink()


def test_a_query_of_a_hundred_thousand_words_is_cut_with_a_note(lib_dir, tmp_path, capsys, monkeypatch):
    """As operators are: a query past MAX_QUERY_WORDS words or MAX_QUERY_CHARS characters is searched for its
    first words, with one note; the history keeps what was searched, not 600 KB."""
    import io
    import json

    from searchapp.base.config import load_config
    from searchapp.cli.main import main
    from searchapp.library.query.length import MAX_QUERY_CHARS, MAX_QUERY_WORDS
    from searchapp.library.query.saved import SearchHistory

    data = tmp_path / "lib"
    shutil.copytree(lib_dir, data)
    line = "volcano lava " + " ".join(f"w{i}" for i in range(100_000))
    monkeypatch.setattr(sys, "stdin", io.StringIO(line + "\n"))
    code = main(["--data-dir", str(data), "search", "-", "--json", "--mode", "lexical"])
    out, err = capsys.readouterr()
    assert code == 0 and err.count("the query is longer than") == 1 and len(err.splitlines()) <= 2, err
    got = json.loads(out)
    assert len(got["query"]) <= MAX_QUERY_CHARS and len(got["query"].split()) == MAX_QUERY_WORDS
    assert Path(got["hits"][0]["path"]).name == "volcano.txt"
    code = main(["--data-dir", str(data), "search", line, "--mode", "lexical"])
    out, err = capsys.readouterr()
    assert code == 0 and err.count("the query is longer than") == 1 and "volcano.txt" in out, err
    kept = SearchHistory(load_config(data, env={})).queries()
    assert kept and len(kept[0]) <= MAX_QUERY_CHARS and kept[0].startswith("volcano lava w0 w1")
    # no space for 10,000 characters (a pasted hash, CJK): the characters are capped all the same
    monkeypatch.setattr(sys, "stdin", io.StringIO("火山" * 200_000 + "\n"))
    code = main(["--data-dir", str(data), "search", "-", "--json", "--mode", "lexical"])
    out, err = capsys.readouterr()
    assert code == 0 and len(json.loads(out)["query"]) == MAX_QUERY_CHARS and "longer than" in err


@pytest.mark.skipif(os.name != "posix", reason="POSIX links and owners")
def test_history_list_refuses_the_searches_file_search_refuses(lib_dir, tmp_path, capsys):
    """One check for every opener of searches.sqlite: a link to one elsewhere, or one another user owns (0644),
    is refused by `history list` and `saved list` as by `search`, never listed."""
    from searchapp.cli.main import main
    from searchapp.store.history import SEARCHES_DB, SearchesDB

    data = tmp_path / "lib"
    shutil.copytree(lib_dir, data)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with SearchesDB(elsewhere) as db:
        db.add_history("a planted query", "hybrid", 1.0, 10)
    os.symlink(elsewhere / SEARCHES_DB, data / SEARCHES_DB)

    def refused(*argv: str) -> str:
        capsys.readouterr()
        code = main(["--data-dir", str(data), *argv])
        out, err = capsys.readouterr()
        assert code == 2 and "planted" not in out and len(err.strip().splitlines()) == 1, (argv, out, err)
        return err

    for argv in (["history", "list"], ["history", "list", "--json"], ["saved", "list"], ["search", "volcano"]):
        assert "is a symbolic link" in refused(*argv), argv
    if os.geteuid() != 0:
        return  # another user's file needs a chown
    (data / SEARCHES_DB).unlink()
    shutil.copy(elsewhere / SEARCHES_DB, data / SEARCHES_DB)
    os.chmod(data / SEARCHES_DB, 0o644)
    os.chown(data / SEARCHES_DB, 54321, 54321)
    for argv in (["history", "list"], ["saved", "list"], ["search", "volcano"]):
        assert "belongs to another user" in refused(*argv), argv


def test_the_folder_precount_looks_at_its_time_limit_inside_one_big_listing(tmp_path):
    """One folder of 3,000 subfolders: the time limit (0 here) stops the walk within CHECK_EVERY entries of
    that listing, not after it (a folder of 100k subfolders took 1.48 s of a 0.5 s limit)."""
    from searchapp.base.config import ScanConfig
    from searchapp.library.sync.folder_count import CHECK_EVERY, count_files

    root = tmp_path / "wide"
    root.mkdir()
    for i in range(3000):
        (root / f"d{i}").mkdir()
    (root / "d7" / "note.txt").write_text("a note\n", encoding="utf-8")
    late = count_files(str(root), ScanConfig(), time_limit_s=0.0)
    assert not late.complete and len(late.subfolders) < CHECK_EVERY
    whole = count_files(str(root), ScanConfig(), time_limit_s=600.0)
    assert whole.complete and whole.files == 1 and len(whole.subfolders) == 3000


UNDO_TEMP = """
import os, sys
from searchapp.base.config import load_config
from searchapp.library import Library
with Library(load_config(sys.argv[1], env={})) as lib:
    lib.store.conn.execute("PRAGMA temp.cache_size = 10")  # 10 pages in memory: spilled as a big folder's copy is
    assert lib.remove_folder(sys.argv[2], undoable=True) == 40
    for fd in os.listdir("/proc/self/fd"):  # the SQLite temporary files it holds open (unlinked)
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if "etilqs_" in target:
            print(target.removesuffix(" (deleted)"))
    assert lib.undo_remove() == (sys.argv[2], 40)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="open files listed by Linux's /proc")
def test_undo_keeps_a_removed_folders_passages_in_the_data_dir(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """The rows kept for Undo (TEMP tables) spill to a SQLite temporary file past a few MB: that file lies in the
    data dir, never in /var/tmp (SQLite's default temp folder here). In a process of its own: SQLite's temp folder
    is set once per process, by the first library it opens (store/db.py keep_temp_files_in)."""
    texts = {f"note{i}.txt": f"Private note {i}: " + "the lighthouse keeper's ledger " * 60 for i in range(40)}
    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    env = {**os.environ, "SEARCHAPP_NO_WARM": "1"}
    p = subprocess.run([sys.executable, "-c", UNDO_TEMP, str(data), str(tmp_path / "docs")], env=env,
                       capture_output=True, text=True, timeout=HANG_S, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    temp = [Path(t) for t in p.stdout.splitlines() if t]
    assert temp and all(t.parent == data for t in temp), temp
