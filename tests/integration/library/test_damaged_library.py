"""A damaged library database is one line with exit 3 that says how to recover, for search, status and
index alike; a 0-byte database is reported, never silently treated as a new empty library."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from searchapp.base.config import load_config
from searchapp.cli.main import main


@pytest.fixture(scope="module")
def built_library(tmp_path_factory, tiny_encoder, tiny_bi_encoder_dir) -> Path:
    """One library of 30 files for the module (its sync is most of a test's cost); each test damages a copy."""
    from searchapp.library import Library

    root = tmp_path_factory.mktemp("damaged")
    docs = root / "docs"
    docs.mkdir()
    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)]
    for i in range(30):
        (docs / f"d{i}.txt").write_text(" ".join(rng.choice(words) for _ in range(600)) + "\n")
    data = root / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n'
                                      'device = "cpu"\n')
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    return data


@pytest.fixture
def library(built_library, tmp_path) -> Path:
    """A copy of the module's library (closed: its WAL checkpointed into library.sqlite), to damage."""
    return Path(shutil.copytree(built_library, tmp_path / "lib"))


COMMANDS = [["search", "w17 w42"], ["search", "w17", "--mode", "lexical"], ["status"], ["index"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_garbage_pages_behind_a_valid_header(library, capsys, command):
    db = library / "library.sqlite"
    size = db.stat().st_size
    assert size > 8 * 4096
    with open(db, "r+b") as fh:  # keep the header page and the schema page; scribble over the rest
        fh.seek(2 * 4096)
        fh.write(random.Random(1).randbytes(size - 2 * 4096))
    code = main(["--data-dir", str(library), *command])
    err = capsys.readouterr().err
    assert code == 3, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "damaged" in err and "searchapp index" in err and "move it aside" in err


@pytest.mark.parametrize("command", [["status"], ["search", "w1"], ["index"]], ids=lambda c: c[0])
def test_not_a_database_at_all(library, capsys, command):
    db = library / "library.sqlite"
    db.write_bytes(os.urandom(64 * 1024))
    code = main(["--data-dir", str(library), *command])
    err = capsys.readouterr().err
    assert code == 3 and "damaged" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [["status"], ["search", "w1"], ["index"]], ids=lambda c: c[0])
def test_zero_byte_database_is_reported(library, capsys, command):
    db = library / "library.sqlite"
    db.write_bytes(b"")
    for side in ("library.sqlite-wal", "library.sqlite-shm"):
        (library / side).unlink(missing_ok=True)
    code = main(["--data-dir", str(library), *command])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "0 bytes" in err and "searchapp index" in err
    assert db.stat().st_size == 0  # left as found: not silently made a new empty library
