"""Trust, the data dir: as ssh with ~/.ssh, a folder or file another user owns is refused before anything is
written (one line, exit 2, nothing changed); ours but open to others is repaired with a notice; the databases
are never symbolic links. Tests run as root: "another user" is a chown to an unused uid."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.base.errors import DataDirError
from searchapp.cli.main import main

pytestmark = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                                reason="POSIX owners; chown to another user needs root")
OTHER = 54321  # a uid no test process runs as
TEXTS = {"note.txt": "The lighthouse keeper logs every passing ship."}


@pytest.fixture
def library(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')


def _one_line_exit_2(capsys, argv) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_world_writable_data_dir_another_user_made_is_refused(tmp_path, capsys, tiny_bi_encoder_dir):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n')
    planted = shared / "ocr_cache.sqlite"  # "OCR text" for any scan, and a place to read ours from
    with sqlite3.connect(planted) as conn:
        conn.execute("CREATE TABLE ocr(sha256 TEXT PRIMARY KEY, engine TEXT, text TEXT, pages TEXT, notes TEXT)")
    for p in (shared, shared / "config.toml", planted):
        os.chown(p, OTHER, OTHER)
    os.chmod(shared, 0o777)
    os.chmod(planted, 0o666)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Pelicans nest on the quiet northern shore.\n")

    err = _one_line_exit_2(capsys, ["--data-dir", str(shared), "index", str(docs)])
    assert "belongs to another user" in err and f"uid {OTHER}" in err
    assert sorted(os.listdir(shared)) == ["config.toml", "ocr_cache.sqlite"]  # nothing written there
    assert stat.S_IMODE(planted.stat().st_mode) == 0o666 and planted.stat().st_uid == OTHER  # nor changed


def test_a_file_another_user_planted_in_our_library_is_refused(library, capsys):
    planted = library / "ocr_cache.sqlite"
    planted.write_bytes(b"")
    os.chown(planted, OTHER, OTHER)
    os.chmod(planted, 0o666)
    err = _one_line_exit_2(capsys, ["--data-dir", str(library), "status"])
    assert str(planted) in err and "belongs to another user" in err
    from searchapp.store.ocr_cache import OcrCache

    with pytest.raises(DataDirError, match="another user"):  # opened on its own, it is refused too
        OcrCache(library)


def test_a_loose_file_of_ours_is_made_private_with_a_notice(library, capsys):
    os.chmod(library, 0o777)
    os.chmod(library / "library.sqlite", 0o666)
    assert main(["--data-dir", str(library), "status"]) == 0
    err = capsys.readouterr().err
    assert "other users could read or write it" in err and "library.sqlite" in err
    assert stat.S_IMODE(library.stat().st_mode) == 0o700
    assert stat.S_IMODE((library / "library.sqlite").stat().st_mode) == 0o600


@pytest.mark.parametrize("name", ["library.sqlite", "searches.sqlite", "ocr_cache.sqlite"])
def test_a_database_that_is_a_symlink_is_never_followed(library, tmp_path, capsys, name):
    outside = tmp_path / "outside"
    outside.mkdir()
    link = library / name
    if link.exists():
        os.replace(link, outside / name)  # the real file moved out, the link points at it
    os.symlink(outside / name, link)
    before = sorted(os.listdir(outside))
    err = _one_line_exit_2(capsys, ["--data-dir", str(library), "search", "lighthouse", "--mode", "lexical"])
    assert "symbolic link" in err and name in err
    assert sorted(os.listdir(outside)) == before  # no database created or opened out there


@pytest.mark.parametrize("name", ["searches.sqlite", "ocr_cache.sqlite"])
def test_a_store_opened_on_its_own_never_creates_a_link_target(library, tmp_path, name):
    from searchapp.store.ocr_cache import OcrCache
    from searchapp.store.history import SearchesDB

    target = tmp_path / "elsewhere" / name
    target.parent.mkdir()
    os.symlink(target, library / name)  # dangling: SQLite would create it, 0644, outside the library
    with pytest.raises(DataDirError, match="symbolic link"):
        (SearchesDB if name == "searches.sqlite" else OcrCache)(library)
    assert not target.exists()
