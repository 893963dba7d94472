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
    os.symlink(root / "sub", root / "shortcut")  # inside: fine
    os.symlink("sub/inner.txt", root / "alias.txt")  # inside, relative

    result = scan([root], ScanConfig())
    assert rel(result, root) == ["alias.txt", "notes.txt", "sub/inner.txt"]
    why = reasons(result, root)
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
