"""The desktop library's own commands on a shared library (decision 0124): history, saved searches, explain,
similar and remove, run as they are over a SharedLibrary, the address coming from the config's library.address
(decision 0125). In this process, against the real server."""

from __future__ import annotations

import io
import json
import re
from urllib.parse import urlsplit

import corpus
import pytest

from searchapp.cli.main import main

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)


@pytest.fixture
def cli(tmp_path, tiny_bi_encoder_dir, capsys, pg_address, monkeypatch):
    """`searchapp` with the shared library's address in the data dir's config.toml (no --library, no
    $SEARCHAPP_LIBRARY): (run, the corpus folder, indexed)."""
    monkeypatch.delenv("SEARCHAPP_LIBRARY", raising=False)
    monkeypatch.setenv("SEARCHAPP_MACHINE", "desk-a")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n\n'
                                      f'[library]\naddress = "{pg_address}"\n', encoding="utf-8")

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["--data-dir", str(data), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    code, out, err = run("index", str(docs))
    assert code == 0, err
    assert not (data / "library.sqlite").exists()  # the config's address, not the data dir, got the library
    return run, docs


def test_history_is_kept_in_the_shared_library(cli, pg_server, pg_address):
    run, _ = cli
    for q in ("sourdough starter", "lava magma", "sourdough starter"):
        assert run("search", q, "--mode", "lexical")[0] == 0
    code, out, _ = run("history", "list")
    assert code == 0 and out.splitlines() == ["sourdough starter", "lava magma"]
    assert run("history") == (code, out, _)  # no ACTION lists, as the help's "list or clear" says
    for argv in (("history", "--json"), ("history", "--json", "list"), ("history", "list", "--json")):
        assert [h["query"] for h in json.loads(run(*argv)[1])["history"]] == ["sourdough starter", "lava magma"]
    code, listed, _ = run("saved")
    assert code == 0 and listed.startswith("no saved searches")
    db = urlsplit(pg_address).path.lstrip("/")
    assert pg_server.admin("SELECT owner, query FROM history ORDER BY id", database=db) == [
        ("desk-a", "lava magma"), ("desk-a", "sourdough starter")]
    code, out, _ = run("history", "clear")
    assert code == 0 and out.strip() == "cleared 2 recent queries" and run("history", "list")[1] == ""


def test_saved_searches_count_new_files_and_take_sql_as_text(cli, tmp_path):
    run, docs = cli
    name = "'; DROP TABLE saved; --"
    code, out, err = run("saved", "add", name, "bread flour", "--mode", "lexical")
    assert code == 0 and out.startswith(f"saved {name}: ") and re.search(r": \d+ files? now;", out), err
    assert run("saved", "add", name, "x")[0] == 2  # exists
    # an in: no folder of the library is at is marked as the desktop library marks it (one rule: Library.unplaced)
    assert run("saved", "add", "typo", f"bread in:{docs}-gone")[0] == 0
    code, out, _ = run("saved", "list")
    assert f"typo\tnothing new (0 files; in:{docs}-gone: no folder of the library is there or under it" in out, out
    assert run("saved", "remove", "typo")[0] == 0
    (docs / "rye.txt").write_text("Rye bread needs a sour starter and whole rye flour.", encoding="utf-8")
    assert run("index")[0] == 0
    code, out, _ = run("saved", "list", "--json")
    saved = json.loads(out)["saved"]
    assert code == 0 and [(s["name"], s["new_hits"]) for s in saved] == [(name, 1)]
    code, out, _ = run("saved", "run", name, "--json")
    assert code == 0 and any(h["path"].endswith("rye.txt") for h in json.loads(out)["hits"])
    assert json.loads(run("saved", "list", "--json")[1])["saved"][0]["new_hits"] == 0
    assert run("saved", "remove", name)[0] == 0
    assert run("saved", "list")[1].startswith("no saved searches")


def test_explain_similar_and_duplicates(cli):
    run, docs = cli
    code, out, _ = run("explain", str(docs / "bread.txt"))
    assert code == 0 and "state: indexed" in out and "with vectors: 1" in out.replace("passages: 1, ", "")
    code, _, err = run("explain", str(docs / "nowhere.txt"))
    assert code == 1 and "not in the library" in err
    code, out, _ = run("similar", str(docs / "bread.txt"), "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and hits and all(not h["path"].endswith("bread.txt") for h in hits)
    code, out, _ = run("similar", str(docs / "bread.txt"), "--type", "html", "--json")
    assert code == 0 and [h["path"].rsplit("/", 1)[-1] for h in json.loads(out)["hits"]] == ["volcano.html"]
    (docs / "copy.txt").write_bytes((docs / "bread.txt").read_bytes())
    assert run("index")[0] == 0
    code, out, _ = run("duplicates", "--json")
    exact = [[p.rsplit("/", 1)[-1] for p in g["paths"]] for g in json.loads(out)["exact"]]
    assert code == 0 and exact == [["bread.txt", "copy.txt"]]


def test_remove_asks_on_a_terminal_and_needs_yes_in_a_script(cli, monkeypatch):
    run, docs = cli
    code, _, err = run("remove", str(docs))
    assert code == 2 and "pass --yes" in err  # no terminal here (pytest's stdin)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    code, _, err = run("remove", str(docs))
    assert code == 1 and "nothing removed" in err
    assert "files: 7" in run("status")[1]
    code, out, err = run("remove", str(docs / "bread.txt"), "--yes")
    assert code == 2 and "is not an indexed folder of its own: it belongs to" in err
    before = run("search", "sourdough", "--mode", "hybrid")[1]
    code, out, err = run("remove", str(docs), "--yes")
    assert code == 0 and out == f"removed {docs} (7 files); `searchapp undo` puts it back within 60 s\n" and err == ""
    code, out, _ = run("status")
    assert "files: 0" in out and "passages: 0" in out
    assert run("search", "sourdough", "--mode", "lexical")[1] == "no results\n"
    code, out, err = run("undo")  # decision 0135: kept in the shared library for a minute
    assert code == 0 and out == f"put back {docs} (7 files), as it was before the remove\n", err
    assert run("search", "sourdough", "--mode", "hybrid")[1] == before
    code, _, err = run("undo")
    assert code == 1 and "nothing to undo" in err and len(err.strip().splitlines()) == 1
    code, out, err = run("reindex")
    assert code == 0 and out.startswith("re-indexed 7 files into ") and "resumed" not in err, err
    assert run("search", "sourdough", "--mode", "hybrid")[1] == before


def test_a_password_in_the_config_is_refused(tmp_path, capsys):
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text('[library]\naddress = "postgresql://bob:hunter2@db/lib"\n', encoding="utf-8")
    code = main(["--data-dir", str(data), "status"])
    err = capsys.readouterr().err
    assert code == 2 and "library.address: the shared library address holds a password" in err and "hunter2" not in err


def test_a_role_that_may_not_write_searches_and_records_nothing(cli, pg_server, pg_address):
    """As a desktop library opened read-only: its searches keep no history and say nothing of it; a saved search
    cannot be added (one line)."""
    run, _ = cli
    db = urlsplit(pg_address).path.lstrip("/")
    pg_server.admin("DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_server.admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database=db)
    reader = pg_server.address(db, user="reader")
    code, out, err = run("--library", reader, "search", "sourdough starter", "--mode", "lexical")
    assert code == 0 and out.splitlines()[0].endswith("bread.txt") and err == ""
    assert pg_server.admin("SELECT count(*) FROM history", database=db) == [(0,)]
    code, _, err = run("--library", reader, "saved", "add", "bread", "bread")
    assert code == 2 and "read-only" in err and len(err.strip().splitlines()) == 1


def test_moved_follows_a_folder_with_its_meaning_and_undo_puts_it_back(cli, tmp_path):
    run, docs = cli
    assert run("saved", "add", "bread", f"sourdough in:{docs}", "--mode", "lexical")[0] == 0
    new = tmp_path / "papers"
    docs.rename(new)
    code, out, err = run("moved", str(docs), str(new))  # decision 0157, as on the desktop library
    assert code == 0, err
    assert out.startswith(f"moved {docs} -> {new}: 7 files, 0 passages embedded (meaning reused); `searchapp undo`")
    # its saved searches follow it, in the shared library's own database (decision 0196)
    assert out.endswith(f"\nsaved search bread: sourdough in:{docs} -> sourdough in:{new}\n"), out
    code, out, _ = run("saved", "list")
    assert code == 0 and out.startswith("bread\tnothing new (1 file)\t") and "no folder" not in out, out
    code, out, err = run("undo")  # the old place, kept in the shared library for a minute, and the new one out
    # (it put the old place back beside the new one: every file in the library twice), the saved search as it was
    assert code == 0 and out == (f"put back {docs} (7 files) and took {new} out again: the move is undone\n"
                                 "saved search bread put back as before the move\n"), err
    assert run("saved", "list")[1].endswith(f"\tsourdough in:{docs}\n")
    code, out, _ = run("status")
    assert "files: 7 " in out and str(new) not in out and f"desk-a: {docs} (" in out


def test_a_remove_after_a_move_is_undone_alone(cli, tmp_path):
    """The move's note goes with the next Remove: a folder indexed again at the old place, removed and put back,
    leaves the move's new place in the library."""
    run, docs = cli
    new = tmp_path / "papers"
    docs.rename(new)
    assert run("moved", str(docs), str(new))[0] == 0
    docs.mkdir()
    (docs / "later.txt").write_text("a note written after the move", encoding="utf-8")
    assert run("index", str(docs))[0] == 0
    assert run("remove", str(docs), "--yes")[0] == 0
    code, out, err = run("undo")
    assert code == 0 and out == f"put back {docs} (1 file), as it was before the remove\n", err
    assert f"desk-a: {new} (" in run("status")[1]


def test_undo_of_a_folder_gone_from_disk_says_so(cli, tmp_path):
    """As the desktop's undo: the folder put back is not there now, and the person hears it."""
    run, docs = cli
    assert run("remove", str(docs), "--yes")[0] == 0
    docs.rename(tmp_path / "elsewhere")
    code, out, err = run("undo")
    assert code == 0 and out.startswith(f"put back {docs} (7 files), as it was before the remove; it is not there "
                                        "on disk now"), err


def test_index_waits_for_another_process_syncing_its_folder_unless_no_wait(cli, pg_address):
    """As on the desktop (decision 0101): `index` waits its turn, saying for whom; --no-wait refuses at once (exit
    3). A tester's second `index` was refused after a second, its help promising a wait."""
    import threading

    from searchapp.store.postgres.pg_store import PgStore

    run, docs = cli
    other = PgStore(pg_address, machine="desk-a")  # another process of this machine, mid-sync of the folder
    try:
        root = other.root_by_path(str(docs))
        assert root is not None and other.try_root_locks([root.id]) is None
        code, _, err = run("index", "--no-wait")
        assert code == 3 and f"another process is syncing {docs}" in err and "--no-wait" in err
        done = threading.Timer(2.0, other.release_root_locks, [[root.id]])
        done.start()
        code, out, err = run("index")
        done.join()
        assert code == 0 and f"waiting for another process syncing {docs} in the shared library" in err, err
        assert "unchanged" in out or "7" in out
    finally:
        other.close()


def test_a_folder_gone_from_disk_is_marked_by_status_and_index_with_the_desktops_advice(cli, tmp_path):
    """A tester's folder moved away on disk: `status` listed it as if all were well (only --check and --json said
    it), and `index` said nothing of `moved`. Both say it as the desktop does."""
    run, docs = cli
    docs.rename(tmp_path / "papers")
    code, out, _ = run("status")
    line = next(ln for ln in out.splitlines() if f"desk-a: {docs} (" in ln)
    assert code == 0 and "[MISSING: not found" in line and f"Moved? `searchapp moved {docs} NEW`" in line
    code, _, err = run("index")
    assert code == 1 and f"{docs}: not found" in err and "still searchable" in err
    assert f"`searchapp moved {docs} NEW` keeps its meaning" in err and f"`searchapp remove {docs}` forgets it" in err
