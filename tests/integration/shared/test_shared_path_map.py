"""Two desktops on one shared library (decision 0134): desk-a indexes a shared drive where it mounts it, desk-b
mounts the drive elsewhere (here a symlink) and, through library.path_map, sees, opens and names desk-a's files
at its own mount point; and `status --check` with the desktop's exit codes. In this process, against the real
server; the machines are $SEARCHAPP_MACHINE."""

from __future__ import annotations

import json
import shutil
from urllib.parse import urlsplit

import corpus
import pytest

from conftest import isolated_environment
from searchapp.cli.main import main

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)


SHARE2_TEXT = "Rye sourdough starter bread."


@pytest.fixture(scope="module")
def indexed_share(tmp_path_factory, tiny_bi_encoder_dir, pg_server):
    """(root, database): desk-a's drive at root/a (share/docs, share2) indexed once by desk-a into a database the
    tests copy (pg_address below), and a copy of its files as they were then (root/a.kept). Indexing it took ~0.7
    of each test's ~1 CPU s; what each test starts from is the same."""
    root = tmp_path_factory.mktemp("shared-map")
    corpus.make_mixed_corpus(root / "a" / "share" / "docs")
    (root / "a" / "share2").mkdir()  # /…/share2: the same leading characters, another folder
    (root / "a" / "share2" / "rye.txt").write_text(SHARE2_TEXT, encoding="utf-8")
    database = pg_server.new_database()
    data = root / "desk-a"
    write_config(data, tiny_bi_encoder_dir, pg_server.address(database), "")
    with pytest.MonkeyPatch.context() as mp:
        isolated_environment(mp, tmp_path_factory)
        mp.delenv("SEARCHAPP_LIBRARY", raising=False)
        mp.setenv("SEARCHAPP_MACHINE", "desk-a")
        assert main(["--data-dir", str(data), "index", str(root / "a" / "share" / "docs"), str(root / "a" / "share2")]) == 0
    shutil.copytree(root / "a", root / "a.kept", symlinks=True)  # copy2: the files' times as indexed
    return root, database


@pytest.fixture
def pg_address(pg_server, indexed_share) -> str:
    """This module's database: a copy of the one desk-a indexed its drive into (CREATE DATABASE ... TEMPLATE)."""
    return pg_server.address(pg_server.copy_database(indexed_share[1]))


def write_config(data, tiny_bi_encoder_dir, address: str, extra: str) -> None:
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n\n'
                                      f'[library]\naddress = "{address}"\n{extra}', encoding="utf-8")


@pytest.fixture
def desks(tmp_path, indexed_share, tiny_bi_encoder_dir, capsys, pg_address, monkeypatch):
    """(run as a machine, desk-a's share, desk-b's mount of it): desk-a has indexed share/docs and share2 (the
    drive at root/a, put back as it was indexed: tests add, remove and unlink there)."""
    monkeypatch.delenv("SEARCHAPP_LIBRARY", raising=False)
    root = indexed_share[0]
    shutil.rmtree(root / "a")
    shutil.copytree(root / "a.kept", root / "a", symlinks=True)
    share_a, mount_b = root / "a" / "share", root / "b" / "share"
    mount_b.parent.mkdir(exist_ok=True)
    mount_b.unlink(missing_ok=True)  # the last test's (one unlinks it itself)
    mount_b.symlink_to(share_a, target_is_directory=True)
    dirs = {}
    for machine, extra in (("desk-a", ""), ("desk-b", f'path_map = ["desk-a:{share_a}={mount_b}"]\n')):
        dirs[machine] = tmp_path / machine
        write_config(dirs[machine], tiny_bi_encoder_dir, pg_address, extra)

    def run(machine: str, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("SEARCHAPP_MACHINE", machine)
        code = main(["--data-dir", str(dirs[machine]), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run, share_a, mount_b


def test_desk_b_sees_and_names_desk_as_files_at_its_own_mount_point(desks, tmp_path):
    run, share_a, mount_b = desks
    code, out, _ = run("desk-b", "search", "sourdough starter", "--mode", "lexical", "--json")
    hits = {h["path"]: h for h in json.loads(out)["hits"]}
    bread, rye = hits[str(mount_b / "docs" / "bread.txt")], hits[str(share_a.parent / "share2" / "rye.txt")]
    assert code == 0 and bread["machine"] == "desk-a" and bread["indexed_path"] == str(share_a / "docs" / "bread.txt")
    assert bread["key"] == bread["path"] and bread["available"] is True
    assert rye["indexed_path"] == rye["path"]  # share2 is not under the mapped folder
    code, out, _ = run("desk-a", "search", "sourdough starter", "--mode", "lexical", "--json")
    assert code == 0 and str(share_a / "docs" / "bread.txt") in [h["path"] for h in json.loads(out)["hits"]]

    code, out, _ = run("desk-b", "search", "sourdough", "--mode", "lexical", "--in", str(mount_b), "--json")
    assert code == 0 and [h["path"] for h in json.loads(out)["hits"]] == [str(mount_b / "docs" / "bread.txt")]

    code, out, _ = run("desk-b", "search", "sourdough", "--mode", "lexical", "--in", str(tmp_path / "nowhere"))
    assert code == 0 and f"(indexed: {mount_b / 'docs'}" in out and f"{share_a}/" not in out, out  # named as here

    code, out, _ = run("desk-b", "explain", str(mount_b / "docs" / "bread.txt"))
    assert code == 0 and "state: indexed" in out and f"folder: {mount_b / 'docs'}" in out
    assert f"indexed by: desk-a, as {share_a / 'docs' / 'bread.txt'}" in out
    (share_a / "docs" / "new.txt").write_text("not synced by desk-a yet", encoding="utf-8")
    code, out, _ = run("desk-b", "explain", str(mount_b / "docs" / "new.txt"), "--json")
    info = json.loads(out)
    assert code == 1 and (info["state"], info["machine"], info["folder"]) == ("not_synced", "desk-a", str(mount_b / "docs"))
    code, out, _ = run("desk-b", "explain", str(mount_b / "docs" / "new.txt"))  # not "indexed by": it is not, yet
    assert code == 1 and f"  desk-a's path: {share_a / 'docs' / 'new.txt'}\n" in out and "indexed by" not in out, out

    code, out, err = run("desk-b", "similar", str(mount_b / "docs" / "bread.txt"), "--json")
    got = json.loads(out)
    assert code == 0, err
    assert got["query"] == str(mount_b / "docs" / "bread.txt") and got["hits"]
    assert all(h["path"].startswith(str(mount_b / "docs")) or h["path"].endswith("rye.txt") for h in got["hits"])
    # Its rows say whose each file is, and one not to be opened here says so, as a search's rows (they named
    # another machine's file as if it were this desktop's, and one out of reach as if it could be opened)
    share2 = share_a.parent / "share2"
    share2.rename(share2.with_name("share2-away"))
    try:
        code, out, err = run("desk-b", "similar", str(mount_b / "docs" / "bread.txt"))
    finally:
        share2.with_name("share2-away").rename(share2)
    rows = [ln for ln in out.splitlines() if ln[:3].strip().rstrip(".").isdigit()]
    assert code == 0 and rows and all("[desk-a's" in ln for ln in rows), out
    assert any(ln.endswith("rye.txt  [desk-a's, unavailable here: file or folder missing]") for ln in rows), out

    shutil.copy(share_a / "docs" / "bread.txt", share_a / "docs" / "copy.txt")
    assert run("desk-a", "index")[0] == 0
    code, out, _ = run("desk-b", "duplicates", "--json")
    copies = [str(mount_b / "docs" / "bread.txt"), str(mount_b / "docs" / "copy.txt")]
    assert code == 0 and json.loads(out)["exact"] == [{"paths": copies, "keys": copies}]
    # its rows say whose each file is, and one not to be opened here says so, as search's and similar's do
    shutil.copy(share2 / "rye.txt", share2 / "rye-copy.txt")
    assert run("desk-a", "index")[0] == 0
    share2.rename(share2.with_name("share2-away"))
    try:
        code, out, err = run("desk-b", "duplicates")
    finally:
        share2.with_name("share2-away").rename(share2)
    assert code == 0 and f"  {copies[0]}  [desk-a's]\n  = {copies[1]}  [desk-a's]\n" in out, out
    assert f"  = {share2 / 'rye.txt'}  [desk-a's, unavailable here: file or folder missing]\n" in out, out
    code, out, _ = run("desk-a", "duplicates")  # its own files: nothing to mark
    assert code == 0 and "[" not in out, out
    code, out, _ = run("desk-b", "status", "--files", "--json")
    paths = [f["path"] for f in json.loads(out)["files"]]
    assert code == 0 and str(mount_b / "docs" / "copy.txt") in paths and not any(p.startswith(f"{share_a}/") for p in paths)
    code, out, _ = run("desk-b", "status")
    assert code == 0 and f"desk-a: {share_a / 'docs'} (" in out and f"here at {mount_b / 'docs'}" in out

    # Syncs touch this machine's folders only: desk-b has none, the map gives it none.
    code, _, err = run("desk-b", "index")
    assert code == 2 and "nothing to sync on this machine" in err


def test_a_malformed_map_entry_is_one_line(desks, tmp_path):
    run, _, _ = desks
    config = tmp_path / "desk-b" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("desk-a:", "desk-a"), encoding="utf-8")
    code, out, err = run("desk-b", "search", "bread", "--mode", "lexical")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "library.path_map" in err and "MACHINE:THEIR_FOLDER=FOLDER_HERE" in err


def test_status_check_exit_codes(desks, tmp_path, pg_server, pg_address, monkeypatch):
    run, share_a, mount_b = desks
    code, out, _ = run("desk-a", "status", "--check")
    assert code == 0 and "consistent: yes" in out and "MISSING" not in out
    code, out, _ = run("desk-b", "status", "--check", "--json")
    check = json.loads(out)["check"]
    assert code == 0 and (check["exit_code"], check["consistent"], check["missing"]) == (0, True, [])
    assert check["failed"] == 0 and check["waiting"] == 0

    # 1: desk-b's mount of desk-a's folder is not there (desk-a's own folders are fine).
    mount_b.unlink()
    code, out, _ = run("desk-b", "search", "sourdough starter", "--mode", "lexical", "--json")
    bread = next(h for h in json.loads(out)["hits"] if h["path"] == str(mount_b / "docs" / "bread.txt"))
    assert code == 0 and bread["available"] is False  # judged where this desktop opens it, not at desk-a's path
    code, out, _ = run("desk-b", "status", "--check")
    assert code == 1 and f"MISSING: desk-a: {mount_b / 'docs'}: not found" in out
    assert run("desk-a", "status", "--check")[0] == 0
    shutil.rmtree(share_a.parent / "share2")  # 1: one of desk-a's own folders is gone
    code, out, _ = run("desk-a", "status", "--check")
    assert code == 1 and f"MISSING: desk-a: {share_a.parent / 'share2'}" in out

    # 3: the kept totals no longer add up (as a crashed writer or a hand edit could leave them).
    db = urlsplit(pg_address).path.lstrip("/")
    pg_server.admin("UPDATE chunk_totals SET n_rows = n_rows + 1", database=db)
    code, out, _ = run("desk-a", "status", "--check")
    assert code == 3 and "consistent: NO: the kept passage totals" in out

    # 4: this desktop's chunking differs from the library's (before everything else).
    monkeypatch.setenv("SEARCHAPP_CHUNKING__MAX_TOKENS", "100")
    code, out, _ = run("desk-a", "status", "--check")
    assert code == 4 and "settings differ: the shared library was built with" in out
    lines = out.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("settings differ: "))
    assert first < next(i for i, ln in enumerate(lines) if ln.startswith("consistent: "))  # the most serious first
    monkeypatch.delenv("SEARCHAPP_CHUNKING__MAX_TOKENS")
    assert run("desk-a", "status")[0] == 0  # without --check: a report, exit 0


def test_a_querys_own_in_folder_is_mapped_as_the_in_option_is(desks):
    run, _, mount_b = desks
    want = [str(mount_b / "docs" / "bread.txt")]
    code, out, _ = run("desk-b", "search", "sourdough", "--mode", "lexical", "--in", str(mount_b), "--json")
    assert code == 0 and [h["path"] for h in json.loads(out)["hits"]] == want
    code, out, err = run("desk-b", "search", f'in:"{mount_b}" sourdough', "--mode", "lexical", "--json")
    assert code == 0, err
    assert [h["path"] for h in json.loads(out)["hits"]] == want


def test_status_check_compares_the_kept_cjk_totals(desks, pg_server, pg_address):
    """Exit 3 also when only the CJK totals kept at schema 6 no longer add up."""
    run, _, _ = desks
    assert run("desk-a", "status", "--check")[0] == 0
    pg_server.admin("UPDATE chunk_totals SET n_cjk_tokens = n_cjk_tokens + 3",
                    database=urlsplit(pg_address).path.lstrip("/"))
    code, out, _ = run("desk-a", "status", "--check")
    assert code == 3 and "consistent: NO: the kept CJK totals" in out and "passage totals" not in out


def test_another_machines_file_at_the_same_path_is_explained_and_compared_without_a_map(desks, tmp_path):
    """A team mounts the share at one place everywhere, so no map: a tester's search showed desk-a's file at
    that path, but `explain` said "outside" and `similar` "not an indexed file". Another machine's entry at the very
    path named is found, unless a map entry moves that machine's path elsewhere (then the map's place names it)."""
    run, share_a, _mount_b = desks
    rye = share_a.parent / "share2" / "rye.txt"  # desk-a's, and no map entry of desk-b's covers share2
    code, out, err = run("desk-b", "explain", str(rye), "--json")
    got = json.loads(out)
    assert code == 0 and got["state"] == "indexed" and got["machine"] == "desk-a", (out, err)
    assert got["folder"] == str(share_a.parent / "share2") and "sourdough" in got["text"].lower()
    code, out, err = run("desk-b", "similar", str(rye), "--json")
    assert code == 0 and json.loads(out)["hits"], (out, err)
    # desk-a's share/docs is mounted elsewhere on desk-b: its own path there names nothing of desk-a's
    code, out, _ = run("desk-b", "explain", str(share_a / "docs" / "bread.txt"), "--json")
    assert json.loads(out)["state"] == "outside"


def test_a_file_another_machine_has_not_indexed_yet_is_said_to_be_its_not_outside(desks):
    """A newcomer's desk-b explained a file in desk-a's folder (the same path on both, no map) that desk-a had not
    synced yet, or had deleted: "outside: not under any indexed folder (`searchapp index FOLDER` adds one)". They
    did, and every file of desk-a's folder was in the library twice. It is desk-a's folder, and desk-a's sync."""
    run, share_a, _mount_b = desks
    share2 = share_a.parent / "share2"  # desk-a's, at the same path on desk-b (no map entry covers it)
    (share2 / "spelt.txt").write_text("Spelt flour and a long proof.", encoding="utf-8")
    code, out, err = run("desk-b", "explain", str(share2 / "spelt.txt"), "--json")
    got = json.loads(out)
    assert (got["state"], got["machine"], got["folder"]) == ("not_synced", "desk-a", str(share2)), (out, err)
    assert "desk-a's sync reads it" in got["reason"] and "twice" in got["reason"]
    code, out, _ = run("desk-b", "explain", str(share2 / "gone.txt"), "--json")
    got = json.loads(out)
    assert (got["state"], got["machine"]) == ("missing", "desk-a") and "desk-a's folder" in got["reason"]
    # desk-a's share/docs is mapped elsewhere on desk-b: its own path here is still nobody's
    code, out, _ = run("desk-b", "explain", str(share_a / "docs" / "new.txt"), "--json")
    assert json.loads(out)["state"] == "outside"


def test_the_plain_search_says_whose_file_a_hit_is_and_why_it_cannot_be_opened_here(desks):
    """The JSON named the machine of each hit; the plain list did not, and a file of desk-a's whose share is not
    mounted here said only "[unavailable: file or folder missing]" (a newcomer's find)."""
    run, share_a, mount_b = desks
    code, out, err = run("desk-b", "search", "sourdough starter", "--mode", "lexical")
    row = next(line for line in out.splitlines() if "bread.txt" in line)
    assert code == 0 and str(mount_b / "docs" / "bread.txt") in row and row.endswith("[desk-a's]"), (out, err)
    code, out, _ = run("desk-a", "search", "sourdough starter", "--mode", "lexical")  # its own: nothing added
    assert code == 0 and "'s]" not in out
    mount_b.unlink()  # desk-b's mount of the share is gone
    code, out, _ = run("desk-b", "search", "sourdough starter", "--mode", "lexical")
    row = next(line for line in out.splitlines() if "bread.txt" in line)
    assert "[desk-a's, unavailable here: " in row, out


def test_moving_another_machines_folder_names_its_machine(desks, tmp_path):
    """`moved` of desk-a's folder from desk-b said "is not a folder of the library (its folders: …)", where
    `remove` says whose it is (a newcomer's find)."""
    run, share_a, mount_b = desks
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for folder in (share_a / "docs", mount_b / "docs"):
        code, out, err = run("desk-b", "moved", str(folder), str(elsewhere))
        assert code == 2 and "that folder is desk-a's; only desk-a moves it" in err, err
        assert "not a folder of the library" not in err, err


def test_a_folder_another_machine_indexes_already_is_refused_before_it_is_read(desks, tmp_path):
    """Testers' desk-b indexed its mount of desk-a's share, and later desk-a's folder at the very same path: every
    file was then in the library twice, said (if at all) once all was read. A folder whose files here are the very
    files another machine indexed (its folder mounted here by the path map, or the same bytes at the same path) is
    refused before anything is read, with the way to index it all the same (`--also`, then said as before). At the
    same path with other files (each desktop's own ~/Documents, decision 0125) it is added; a folder no other
    machine covers says nothing."""
    run, share_a, mount_b = desks
    code, _, err = run("desk-b", "index", "--words-only", str(mount_b / "docs"))  # desk-a's docs, mapped here
    assert code == 2 and (f"desk-a indexes {mount_b / 'docs'} (its {share_a / 'docs'}, mounted here) already"
                          in err) and f"`searchapp index --also {mount_b / 'docs'}`" in err, err
    code, out, _ = run("desk-b", "status", "--json")
    assert code == 0 and json.loads(out)["roots"] == [], out  # nothing of it written
    bread = mount_b / "docs" / "bread.txt"  # one file of it, edited here: said as a file, its machine's sync reads it
    code, _, err = run("desk-b", "index", "--words-only", str(bread))
    assert code == 2 and f"{bread} is in desk-a's folder {mount_b / 'docs'} (its {share_a / 'docs'}, mounted here): " \
        "desk-a's sync reads it" in err and "1 of the 1" not in err and "indexes it as this machine's too" in err, err
    code, _, err = run("desk-b", "index", "--words-only", "--also", str(mount_b / "docs"))
    assert code == 0 and (f"desk-a indexes {mount_b / 'docs'} (its {share_a / 'docs'}) already: those files are "
                          "now in the library twice") in err, err
    copy = tmp_path / "c-mount" / "docs"  # desk-a's docs at another path and no map entry: its share mounted elsewhere
    shutil.copytree(share_a / "docs", copy)
    code, _, err = run("desk-b", "index", "--words-only", str(copy))
    assert code == 2 and f"desk-a indexes these files already, as {share_a / 'docs'} (this folder mounted " \
        "elsewhere?)" in err and f'"desk-a:{share_a / "docs"}={copy}" to library.path_map' in err, err
    share2 = share_a.parent / "share2"
    code, _, err = run("desk-b", "index", "--words-only", str(share2))  # the very same path, the same bytes
    assert code == 2 and f"desk-a indexes {share2} already: " in err and "of its files looked at are the very " \
        "files here" in err, err
    for f in share2.iterdir():  # desk-b's own folder at that path: other files than desk-a indexed
        if f.is_file():
            f.write_text(f"desk-b's own {f.name}, not desk-a's", encoding="utf-8")
    code, _, err = run("desk-b", "index", "--words-only", str(share2))
    assert code == 0 and (f"desk-a indexes {share2} too: if it is the same shared folder, its files are now in the "
                          "library twice") in err and "remove" not in err, err
    own = tmp_path / "b-own"
    own.mkdir()
    (own / "x.txt").write_text("desk-b's own notes on barley", encoding="utf-8")
    code, _, err = run("desk-b", "index", "--words-only", str(own))
    assert code == 0 and "desk-a indexes" not in err, err


def test_this_desktops_own_folder_answers_for_its_paths_not_another_machines_file(desks, tmp_path, monkeypatch):
    """Each desktop indexes its own ~/Documents at the same path (decision 0125). A reviewer's desk-b left a file
    out of its own folder; `explain` of that path answered with desk-a's file there, and its text. A path under a
    folder of this machine's is this machine's to answer for."""
    run, share_a, _mount_b = desks
    share2 = share_a.parent / "share2"  # desk-a's; desk-b now indexes a folder at the very same path
    monkeypatch.setenv("SEARCHAPP_SCAN__EXCLUDE", "rye.txt")
    code, _, err = run("desk-b", "index", "--words-only", "--also", str(share2))  # its own, at the same path
    assert code == 0, err
    code, out, _ = run("desk-b", "explain", str(share2 / "rye.txt"), "--json")
    got = json.loads(out)
    assert got["state"] == "excluded", (got["machine"], got["rule"], err)
    assert got.get("machine") in (None, "desk-b") and "sourdough" not in got["text"]


def test_removing_another_machines_folder_names_its_machine(desks, tmp_path):
    """desk-b's `remove` of desk-a's folder (by desk-a's path, or where desk-b mounts it) says whose it is, not
    "not an indexed folder"; nothing is removed."""
    run, share_a, mount_b = desks
    for folder in (share_a / "docs", mount_b / "docs"):
        code, out, err = run("desk-b", "remove", str(folder), "--yes")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert "that folder is desk-a's; only desk-a removes it" in err and "not an indexed folder" not in err, err
    code, out, _ = run("desk-b", "status")
    assert code == 0 and f"desk-a: {share_a / 'docs'} (" in out


def test_a_map_entry_that_matches_no_folder_is_said_by_status(desks, tmp_path):
    """A machine name no folder has (a wrong case) or a folder that is not among that machine's: `status` and
    `status --check` say so, one line each; searches are not failed over it."""
    run, share_a, mount_b = desks
    config = tmp_path / "desk-b" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        f'path_map = ["desk-a:{share_a}={mount_b}"]',
        f'path_map = ["desk-a:{share_a}={mount_b}", "Desk-A:/x=/y", "desk-a:/elsewhere=/z"]'), encoding="utf-8")
    for argv in (("status",), ("status", "--check")):
        code, out, err = run("desk-b", *argv)
        assert code == 0, (argv, err)
        assert "path_map entry 'Desk-A:/x=/y' matches no folder of machine 'Desk-A' (machines: desk-a)" in out, out
        assert "path_map entry 'desk-a:/elsewhere=/z' matches no folder of machine 'desk-a' (its folders: " in out
        assert f"desk-a:{share_a}=" not in out  # the entry that maps a folder is not named
    code, out, _ = run("desk-b", "status", "--json")
    assert code == 0 and len(json.loads(out)["shared"]["unmatched"]) == 2
    code, out, _ = run("desk-b", "search", "sourdough starter", "--mode", "lexical")
    assert code == 0 and str(mount_b / "docs" / "bread.txt") in out


def test_a_scoped_search_lists_the_copies_another_desktop_indexed(desks):
    """A row's copies within a scope (folding.copies_of) are every machine's, as without one: desk-b's `--type
    txt` search listed none of desk-a's copies (they were looked up among desk-b's own files)."""
    run, share_a, mount_b = desks
    shutil.copy(share_a / "docs" / "bread.txt", share_a / "docs" / "copy.txt")
    assert run("desk-a", "index")[0] == 0
    for scope in ((), ("--type", "txt")):
        code, out, err = run("desk-b", "search", "sourdough starter", "--mode", "lexical", "--json", *scope)
        assert code == 0, err
        rows = {h["path"]: h["copies"] for h in json.loads(out)["hits"]}
        bread, copy = str(mount_b / "docs" / "bread.txt"), str(mount_b / "docs" / "copy.txt")
        assert rows.get(bread) == [copy] or rows.get(copy) == [bread], (scope, rows)
