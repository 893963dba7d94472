"""The library is private: folder 0700, every file 0600 whatever the umask; a looser library is tightened
once (with a notice); symlinks stay inside the indexed folder unless asked, and loops are never walked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from searchapp.base.config import ScanConfig, load_config, save_config
from searchapp.cli.main import main
from searchapp.ingest.scan import scan

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_new_library_is_private_whatever_the_umask(tmp_path, umask_022, tiny_encoder, tiny_bi_encoder_dir):
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "secret.txt").write_text("the vault code is 4711\n")
    data = tmp_path / "lib"
    config = load_config(data, env={}, overrides={"models": {"bi_encoder": str(tiny_bi_encoder_dir), "reranker": ""}})
    with Library(config, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        save_config(config)
        # while open: the WAL and shared-memory files exist, and take the database file's mode
        names = {p.name for p in data.iterdir()}
        assert {"library.sqlite", "library.sqlite-wal", "library.sqlite-shm", "writer.lock", "config.toml"} <= names
        assert any(n.startswith("vectors.") for n in names)
        assert mode(data) == 0o700
        for p in data.iterdir():
            assert mode(p) == 0o600, p.name
    for p in data.iterdir():
        assert mode(p) == 0o600, p.name


def test_gui_ini_is_private(tmp_path, umask_022, qtbot, make_config, packaged_encoder):
    from searchapp.gui import build_main_window
    from searchapp.library import Library

    config = make_config(models={"reranker": ""})
    lib = Library(config, encoder=packaged_encoder)
    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    win.url_opener = lambda url: None
    win.search.search_box.setText("my secret query")
    win.close()  # saves the window state and the last query to gui.ini
    lib.close()
    ini = Path(config.data_dir) / "gui.ini"
    assert "my secret query" in ini.read_text()
    assert mode(ini) == 0o600


def test_loose_library_is_tightened_once_with_a_notice(tmp_path, umask_022, capsys, tiny_encoder,
                                                       tiny_bi_encoder_dir):
    from searchapp.library import Library

    data = tmp_path / "lib"
    (data).mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n')
    with Library(load_config(data, env={}), encoder=tiny_encoder):
        pass
    capsys.readouterr()
    # as an older version left it: world-readable
    os.chmod(data, 0o755)
    for p in data.iterdir():
        os.chmod(p, 0o644)
    assert main(["--data-dir", str(data), "status"]) == 0
    err = capsys.readouterr().err
    assert err.count("private") == 1 and "library.sqlite" in err
    assert mode(data) == 0o700 and all(mode(p) == 0o600 for p in data.iterdir())
    assert main(["--data-dir", str(data), "status"]) == 0
    assert "private" not in capsys.readouterr().err  # said once


def touch(p: Path, text: str = "x\n") -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def rel(result, base: Path) -> list[str]:
    return sorted(str(f.path.relative_to(base)) for f in result.files)


def reasons(result, base: Path) -> dict[str, str]:
    return {str(Path(s.path).relative_to(base)): s.reason for s in result.skipped}


def test_symlinks_out_of_the_indexed_folder_are_not_followed(tmp_path):
    secret = tmp_path / "private"
    touch(secret / "passwords.txt", "hunter2\n")
    os.chmod(secret, 0o700)
    etc = tmp_path / "etc"
    touch(etc / "hosts.txt")
    root = tmp_path / "downloads"
    touch(root / "notes.txt")
    touch(root / "sub" / "inner.txt")
    os.symlink(secret, root / "innocent")
    os.symlink(etc / "hosts.txt", root / "hosts.txt")
    os.symlink(root / "sub", root / "shortcut")  # inside: indexed at its own path, not again (decision 0192)
    os.symlink("sub/inner.txt", root / "alias.txt")  # inside, relative: the same

    result = scan([root], ScanConfig())
    assert rel(result, root) == ["notes.txt", "sub/inner.txt"]
    why = reasons(result, root)
    assert why["alias.txt"].startswith("link: to ") and why["shortcut"].startswith("link: to ")
    assert "outside the indexed folder" in why["innocent"] and "follow_symlinks_out" in why["innocent"]
    assert "outside the indexed folder" in why["hosts.txt"]
    # following them out is a setting
    out = scan([root], ScanConfig(follow_symlinks_out=True))
    assert "innocent/passwords.txt" in rel(out, root) and "hosts.txt" in rel(out, root)


def test_a_loop_to_the_parent_is_never_walked(tmp_path):
    """`a -> ..` at the top of the indexed folder used to walk the parent, data folder included."""
    parent = tmp_path / "home"
    touch(parent / "library" / "library.sqlite", "db")
    touch(parent / "other.txt")
    root = parent / "docs"
    touch(root / "doc.txt")
    os.symlink("..", root / "a")
    os.symlink(".", root / "b")
    for follow_out in (False, True):
        result = scan([root], ScanConfig(follow_symlinks_out=follow_out))
        assert rel(result, root) == ["doc.txt"]
        why = reasons(result, root)
        assert why["a"] == "symlink loop" and why["b"] == "symlink loop"


def test_indexing_through_the_cli_keeps_links_inside(tmp_path, capsys, tiny_bi_encoder_dir):
    outside = tmp_path / "outside"
    touch(outside / "secret.txt", "the launch code is 0000\n")
    root = tmp_path / "docs"
    touch(root / "doc.txt", "an ordinary note\n")
    os.symlink(outside, root / "link")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n'
                                      '[chunking]\nmax_tokens = 32\n')
    assert main(["--data-dir", str(data), "index", str(root)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data), "search", "launch code", "--mode", "lexical", "--json"]) == 0
    assert '"hits": []' in capsys.readouterr().out


@pytest.mark.engines("sqlite")
def test_a_folder_reached_through_a_link_is_the_folder_itself(tiny_library, tmp_path):
    """Decision 0192: `index LINK` to a folder of an indexed one is that folder (it was a second root, each file in
    the library twice); a link inside an indexed folder is not followed by a sync of a subfolder either (it was, and
    the next full sync removed the files again); `duplicates` never calls two names of one file copies (a person
    deleting "the copy" deleted the only one); explain through a link names the file where it is."""
    lib = tiny_library
    docs, links = tmp_path / "docs", tmp_path / "links"
    touch(docs / "notes" / "boiler.md", "Boiler service due in May; engineer Ravi Chaudhry.\n")
    touch(docs / "notes" / "passport.md", "Passport renewal form sent 3 June.\n")
    touch(docs / "copy.md", "Passport renewal form sent 3 June.\n")  # a real copy: listed
    os.link(docs / "notes" / "boiler.md", docs / "boiler-hard.md")  # one file, two names: no copy
    os.symlink("notes", docs / "notes-inside")
    links.mkdir()
    os.symlink(docs / "notes", links / "notes-link")
    lib.add_folder(docs, embed=False)
    rep = lib.add_folder(links / "notes-link", embed=False)
    assert [r.path for r in lib.store.roots()] == [str(docs)] and rep.added == 0
    assert rep.notes[0] == f"{links / 'notes-link'} is {docs / 'notes'} (reached through a link)"
    lib.sync_changed([str(docs / "notes-inside")], embed=False)  # as a watcher or `index SUBFOLDER` asks
    held = sorted(lib.store.file_paths().values())
    assert held == [str(docs / p) for p in ("boiler-hard.md", "copy.md", "notes-inside", "notes/boiler.md",
                                            "notes/passport.md")]
    assert lib.store.file_by_path(str(docs / "notes-inside")).status == "excluded"
    assert lib.duplicates().exact == [[str(docs / "copy.md"), str(docs / "notes/passport.md")]]
    row = lib.search("boiler engineer", mode="lexical").hits[0]  # its hard link is the file, no copy of it
    assert "boiler" in row.path and row.copies == [], (row.path, row.copies)
    from searchapp.ingest import fsnames

    fsnames.STAT_AT_MOST, kept = 0, fsnames.STAT_AT_MOST  # past the cap a row's copies are not looked at on disk
    try:
        assert len(lib.search("boiler engineer", mode="lexical").hits[0].copies) == 1
    finally:
        fsnames.STAT_AT_MOST = kept
    info = lib.explain(str(links / "notes-link" / "boiler.md"))
    assert (info["path"], info["reached_as"], info["state"]) == (str(docs / "notes/boiler.md"),
                                                                   str(links / "notes-link/boiler.md"), "indexed")
    # a library that added a folder through a link before is told at each sync how to forget the second copy
    lib.store.add_root(str(links / "notes-link"))
    assert any(n.startswith(f"{links / 'notes-link'} is {docs / 'notes'} (reached through a link), which the "
                            f"indexed folder {docs} holds too") for n in lib.sync(embed=False).notes)
    os.symlink(docs, links / "docs-link")
    lib.remove_folder(links / "docs-link")  # the folder it names
    assert [r.path for r in lib.store.roots()] == [str(links / "notes-link")]
