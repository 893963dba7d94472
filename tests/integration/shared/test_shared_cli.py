"""`searchapp --library postgresql://…`: index, search and status on a shared library from the command line (in
this process), and one line for what is not there yet, a password in the address, a server not there."""

from __future__ import annotations

import io
import json

import corpus
import pytest

from searchapp.cli.main import main

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)


@pytest.fixture
def run(tmp_path, tiny_bi_encoder_dir, capsys):
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")

    def go(*argv: str) -> tuple[int, str, str]:
        code = main(["--data-dir", str(data), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return go


def test_index_search_status_and_the_rest(run, tmp_path, pg_address, monkeypatch):
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    code, out, _ = run("--library", pg_address, "index", str(docs))
    assert code == 0 and out.startswith("7 files scanned: 7 added")
    code, out, _ = run("search", "sourdough starter", "--mode", "lexical", "--library", pg_address)
    assert code == 0 and out.splitlines()[0].endswith("bread.txt")
    monkeypatch.setattr("sys.stdin", io.StringIO("sourdough starter\n\nlava magma\n"))
    code, out, _ = run("--library", pg_address, "search", "-", "--mode", "lexical")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3 and "bread.txt" in lines[0] and "volcano.html" in lines[2]
    code, out, _ = run("--library", pg_address, "status")
    assert code == 0 and "files: 7" in out and "100% with meaning" in out and str(docs) in out
    code, out, err = run("--library", pg_address, "eval", "ann")  # it would measure the desktop library instead
    assert code == 2 and out == "" and "not yet on a shared library: `eval ann`" in err
    code, out, _ = run("--library", pg_address, "search", "sourdough lava", "--type", "txt", "--mode", "lexical")
    assert code == 0 and out.splitlines()[0].endswith("bread.txt") and "volcano.html" not in out


def test_a_password_or_no_server_is_one_line(run, tmp_path):
    code, _, err = run("--library", "postgresql://bob:secret@localhost/lib", "status")
    assert code == 2 and "holds a password" in err and "secret" not in err
    code, _, err = run("--library", f"postgresql://bob@/lib?host={tmp_path}/nowhere", "status")
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert err.startswith("searchapp: error: cannot reach the shared library postgresql://bob@local socket/lib")


def test_status_files_lists_the_shared_entries_and_check(run, tmp_path, pg_address):
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf at all")  # stored as failed, with its reason
    (docs / "empty.txt").write_bytes(b"")  # left out on purpose: not "skipped" to status, nor to its check
    assert run("--library", pg_address, "index", "--words-only", str(docs))[0] == 0
    code, out, _ = run("--library", pg_address, "status", "--files")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 9 and any(ln.startswith("[indexed] ") and ln.endswith("bread.txt")
                                                 for ln in lines)
    code, out, _ = run("--library", pg_address, "status", "--files", "failed", "--json")
    files = json.loads(out)["files"]
    assert code == 0 and [(f["state"], f["path"].endswith("broken.pdf"), bool(f["reason"])) for f in files] == [
        ("failed", True, True)]
    # one folder's entries: a folder in place of STATE, or --in beside one (a sibling's name is not inside it)
    assert [len(run("--library", pg_address, "status", *argv)[1].splitlines()) for argv in (
        ["--files", str(docs)], ["--files", "failed", "--in", str(docs)], ["--files", f"{docs}x"])] == [9, 1, 0]
    code, out, err = run("--library", pg_address, "status", "--check")  # exit codes: test_shared_path_map.py
    assert code == 0 and "consistent: yes" in out and "failed: 1, skipped: 0" in out and err == "", err
    assert "files: 9 (1 skipped or failed)" in out, out  # the two counts add up


def test_a_sync_counts_its_own_passages_to_embed_and_names_the_machines_that_owe_theirs(run, tmp_path, pg_address,
                                                                                        monkeypatch):
    """A tester's deskB printed "60 in the library still to embed … `searchapp index` embeds them" after every full
    sync: all 60 were deskA's, which only deskA's sync embeds (a sync of its roots embeds their passages alone), so
    the advice looped. A sync counts its own machine's passages; another machine's are a note naming it."""
    monkeypatch.setenv("SEARCHAPP_MACHINE", "deskB")
    assert run("--library", pg_address, "index", str(corpus.make_mixed_corpus(tmp_path / "b")))[0] == 0
    monkeypatch.setenv("SEARCHAPP_MACHINE", "deskA")
    notes = tmp_path / "a"
    notes.mkdir()
    for i in range(3):
        (notes / f"n{i}.txt").write_text(f"A note on zeppelin hangar number {i} and its mooring mast repairs.")
    code, out, _ = run("--library", pg_address, "index", "--words-only", str(notes))
    assert code == 0 and "3 in the library still to embed" in out, out
    monkeypatch.setenv("SEARCHAPP_MACHINE", "deskB")
    code, out, err = run("--library", pg_address, "index")  # deskB's folders: its own passages are all embedded
    assert code == 0 and "still to embed" not in out, out
    assert "3 passages of other machines wait for their own sync to be embedded (deskA)" in err, err
    code, out, _ = run("--library", pg_address, "status", "--json")  # nor does status send deskB to `index`
    notes = " ".join(json.loads(out)["notes"])
    assert code == 0 and "deskA's own sync embeds them" in notes and "`searchapp index`" not in notes, notes
    code, out, _ = run("--library", pg_address, "status")  # and says it without --json
    assert code == 0 and "\nnote: meaning: " in out and "deskA's own sync embeds them" in out, out
    monkeypatch.setenv("SEARCHAPP_MACHINE", "deskA")
    code, out, err = run("--library", pg_address, "index", "--words-only")
    assert code == 0 and "3 in the library still to embed" in out and "other machines" not in err, (out, err)


def test_search_lines_go_on_after_the_server_ends_the_connection(run, tmp_path, pg_address, pg_server, monkeypatch):
    """A tester's long-running `search -` exited (code 3) at the first line after the server ended its connection,
    the later queries never answered, and the message spoke of "the batch in flight". The line the connection
    failed is asked again (decision 0171: a server restarting lost 103 lines at once) and answered, and so are the
    lines after it."""
    from pg_server import database_of

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    assert run("--library", pg_address, "index", "--words-only", str(docs))[0] == 0
    db = database_of(pg_address)

    def lines():
        yield "sourdough starter\n"
        pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                        "pid <> pg_backend_pid()", params=(db,))
        yield "lava magma\n"
        yield "sourdough\n"

    monkeypatch.setattr("sys.stdin", lines())
    code, out, err = run("--library", pg_address, "search", "-", "--mode", "lexical", "--k", "1")
    answers = out.splitlines()
    assert code == 0 and len(answers) == 3, (code, out, err)
    assert "bread.txt" in answers[0] and "volcano" in answers[1] and "bread.txt" in answers[2]
    assert "line 2: lost the connection to the shared library" in err and "asking again in 0.5 s" in err, err
    assert "batch" not in err and "error" not in err, err


def test_two_computers_under_one_machine_name_do_not_overwrite_each_other(run, tmp_path, pg_address, monkeypatch):
    """A tester's two desktops shared a machine name (the host name by default; cloned machines share it): their
    syncs of the same path flipped one entry back and forth, silently. The first computer to write under a name
    holds it; another is refused with what to do, nothing changed, until it takes the name over (decision 0149)."""
    import searchapp.base.host_id as host

    monkeypatch.setenv("SEARCHAPP_MACHINE", "ubuntu")
    home = tmp_path / "home"
    home.mkdir()
    (home / "todo.txt").write_text("Laptop one: renew the passport.", encoding="utf-8")
    monkeypatch.setattr(host, "host_id", lambda: "computer-one")
    assert run("--library", pg_address, "index", "--words-only", str(home))[0] == 0
    (home / "todo.txt").write_text("Laptop two: service the bicycle.", encoding="utf-8")
    monkeypatch.setattr(host, "host_id", lambda: "computer-two")
    for argv in (["index", "--words-only", str(home)], ["index", "--words-only"], ["remove", str(home), "--yes"]):
        code, _, err = run("--library", pg_address, *argv)
        assert code == 3 and "another computer already writes to the shared library" in err, (argv, code, err)
        assert "$SEARCHAPP_MACHINE" in err and "SEARCHAPP_MACHINE_TAKE_OVER=1" in err
    code, out, _ = run("--library", pg_address, "search", "passport", "--mode", "lexical")  # reading is not writing
    assert code == 0 and "todo.txt" in out
    monkeypatch.setenv("SEARCHAPP_MACHINE_TAKE_OVER", "1")
    code, out, err = run("--library", pg_address, "index", "--words-only", str(home))
    assert code == 0 and "1 updated" in out, (out, err)
    monkeypatch.delenv("SEARCHAPP_MACHINE_TAKE_OVER")
    monkeypatch.setattr(host, "host_id", lambda: "computer-one")  # the name is computer two's now
    assert run("--library", pg_address, "index", "--words-only", str(home))[0] == 3


def test_library_local_opens_the_desktops_own_library_over_the_config_and_an_empty_one_is_refused(
        run, tmp_path, pg_address, monkeypatch):
    """A tester with the address in the config found no way back to the desktop's own library: `--library ""`
    still opened the shared one. `--library local` opens the data dir's library; an empty value (an unset
    variable) is one line, not silently the shared library."""
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    monkeypatch.setenv("SEARCHAPP_LIBRARY", pg_address)
    assert run("index", "--words-only", str(docs))[0] == 0  # into the shared library
    own = tmp_path / "own"
    own.mkdir()
    (own / "mine.txt").write_text("A note kept on this desktop alone.", encoding="utf-8")
    assert run("--library", "local", "index", "--words-only", str(own))[0] == 0
    code, out, _ = run("--library", "local", "status", "--json")
    assert code == 0 and json.loads(out)["files"] == 1 and not json.loads(out).get("address"), out
    code, out, _ = run("--library", "local", "search", "desktop alone", "--mode", "lexical")
    assert code == 0 and "mine.txt" in out
    code, out, _ = run("--library", "local", "history", "list")  # the desktop's history, not the shared library's
    assert code == 0 and "desktop alone" in out
    code, out, _ = run("history", "list")
    assert code == 0 and "desktop alone" not in out
    code, out, _ = run("status", "--json")
    assert code == 0 and json.loads(out)["files"] == 7
    code, _, err = run("--library", "", "status")
    assert code == 2 and "--library is empty" in err and "--library local" in err


def test_settings_that_differ_are_set_back_not_reindexed(run, tmp_path, pg_address, monkeypatch):
    """A shared library keeps one model and chunking for every machine: a desktop whose settings differ is told to
    set them back (naming which), not to run the `reindex` that would then be refused."""
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    assert run("--library", pg_address, "index", "--words-only", str(docs))[0] == 0
    monkeypatch.setenv("SEARCHAPP_CHUNKING__MAX_TOKENS", "100")
    for argv in (("search", "volcano eruption", "--mode", "dense"), ("index",), ("reindex", "--words-only")):
        code, out, err = run("--library", pg_address, *argv)
        assert code == 4 and out == "" and len(err.strip().splitlines()) == 1, (argv, err)
        assert "chunk_max_tokens" in err and "(configured 100)" in err, (argv, err)
        assert "set [models] and [chunking] in this desktop's config back to the library's" in err, (argv, err)
        assert "searchapp reindex" not in err, (argv, err)  # (reindex itself says why it refuses other settings)


def test_the_windows_status_says_set_back_too(make_config, tiny_encoder, tmp_path, pg_address):
    from searchapp.library.shared import SharedLibrary

    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    with SharedLibrary(make_config(models={"reranker": ""}), pg_address, create=True, encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
    config = make_config(models={"reranker": ""}, chunking={"max_tokens": 100})
    with SharedLibrary(config, pg_address, encoder=tiny_encoder) as lib:
        why = lib.status().reindex_needed or ""
    assert "chunk_max_tokens" in why and "back to the library's" in why and "searchapp reindex" not in why


def test_indexing_a_file_inside_an_indexed_folder_says_a_file(run, tmp_path, pg_address):
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    (docs / "sub").mkdir()
    assert run("--library", pg_address, "index", "--words-only", str(docs))[0] == 0
    code, _, err = run("--library", pg_address, "index", "--words-only", str(docs / "bread.txt"))
    assert code == 2 and f"not yet on a shared library: a file inside the indexed folder {docs} " in err, err
    code, _, err = run("--library", pg_address, "index", "--words-only", str(docs / "sub"))
    assert code == 2 and f"not yet on a shared library: a folder inside the indexed folder {docs} " in err, err


def test_a_blank_machine_name_is_refused(run, tmp_path, pg_address, monkeypatch):
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    monkeypatch.setenv("SEARCHAPP_MACHINE", "  ")
    code, out, err = run("--library", pg_address, "index", "--words-only", str(docs))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "SEARCHAPP_MACHINE" in err and "blank" in err


def test_status_says_this_machines_stopped_sync(run, tmp_path, pg_address, monkeypatch, tiny_encoder):
    """A newcomer's sync lost its server mid-way: `status` on that desktop said nothing of it (only its JSON had
    `stopped_sync`), where the desktop's says how far it came and what it could not read. Another machine's
    status does not say this machine's stop."""
    from stopped_syncs import stop_after_a_failure

    from searchapp.base.config import load_config
    from searchapp.library.shared import SharedLibrary

    monkeypatch.setenv("SEARCHAPP_MACHINE", "desk-a")
    with SharedLibrary(load_config(tmp_path / "lib", env={}), pg_address, create=True, encoder=tiny_encoder) as lib:
        stop_after_a_failure(lib, tmp_path / "docs")
    code, out, _ = run("--library", pg_address, "status")
    assert code == 0 and "note: the last sync stopped after 1 of 4 files" in out and "a-broken.pdf" in out, out
    monkeypatch.setenv("SEARCHAPP_MACHINE", "desk-b")
    code, out, _ = run("--library", pg_address, "status")
    assert code == 0 and "desk-a: " in out and "stopped" not in out, out
