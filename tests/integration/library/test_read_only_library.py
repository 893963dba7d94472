"""Read-only commands never create a library, bad data dirs are one line, and a library on a read-only
mount is searched (opened read-only) while `index` says it is read-only.

Tests run as root here and in CI, where chmod 0555 denies nothing: the read-only case is made real with a
read-only bind mount in a private mount namespace (`unshare -m`), and also simulated in-process through
`data_dir.can_write`, the one place the library asks."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.main import main

REPO = Path(__file__).resolve().parents[3]
DOCS = {"volcano.txt": "volcanoes erupt lava and ash over the island",
        "castle.txt": "the castle had a moat and a drawbridge",
        "jazz.txt": "bebop saxophonists improvise quickly over chord changes"}


def build_library(root: Path, tiny_encoder, tiny_bi_encoder_dir) -> Path:
    return build_tiny_library(root, DOCS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')


@pytest.mark.parametrize("command", [["search", "lava"], ["status"], ["eval", "ann"], ["reindex"], ["remove", "/x"]])
def test_read_only_commands_never_create_a_library(tmp_path, capsys, command):
    missing = tmp_path / "typo"
    code = main(["--data-dir", str(missing), *command])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"no library at {missing}" in err
    assert not missing.exists()


def test_existing_folder_without_a_library_is_not_made_one(tmp_path, capsys):
    code = main(["--data-dir", str(tmp_path), "status"])
    assert code == 2 and "no library at" in capsys.readouterr().err
    assert not (tmp_path / "library.sqlite").exists()


def test_data_dir_that_is_a_file(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("x")
    for command in (["status"], ["index", str(tmp_path)]):
        code = main(["--data-dir", str(f), *command])
        err = capsys.readouterr().err
        assert code == 2 and "is a file, not a folder" in err and len(err.strip().splitlines()) == 1


def test_unreadable_data_dir_is_said(tmp_path, capsys, monkeypatch, tiny_encoder, tiny_bi_encoder_dir):
    data = build_library(tmp_path, tiny_encoder, tiny_bi_encoder_dir)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **kw: False if Path(p) == data and m & os.R_OK
                        else real_access(p, m, **kw))  # root reads everything: stand in for a 0000 folder
    code = main(["--data-dir", str(data), "status"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot read the library folder" in err and "permission denied" in err


def test_simulated_read_only_library_is_searched_not_written(tmp_path, capsys, monkeypatch, tiny_encoder,
                                                             tiny_bi_encoder_dir):
    from searchapp.library.resources import data_dir as dd

    data = build_library(tmp_path, tiny_encoder, tiny_bi_encoder_dir)
    before = {p.name: p.stat().st_mtime_ns for p in data.iterdir()}
    monkeypatch.setattr(dd, "can_write", lambda p: False)
    code = main(["--data-dir", str(data), "search", "lava", "--mode", "lexical", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert Path(json.loads(out)["hits"][0]["path"]).name == "volcano.txt"
    assert main(["--data-dir", str(data), "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 3
    # each write says what was asked of it: a `remove` was told "indexing needs write access"
    for argv, action in ((["index"], "indexing"), (["remove", str(tmp_path / "docs"), "--yes"], "removing"),
                         (["reindex"], "reindexing"), (["moved", str(tmp_path / "docs"), str(tmp_path)],
                                                       "moving a folder")):
        code = main(["--data-dir", str(data), *argv])
        err = capsys.readouterr().err
        assert code == 2 and "read-only" in err and f"search and status work, but {action} needs write" in err, err
    # nothing was written (SQLite's mode=ro may add empty -wal/-shm beside a folder it can really write)
    assert {name: (data / name).stat().st_mtime_ns for name in before} == before
    assert not (data / "searches.sqlite").exists()  # no search history beside a read-only library
    assert not (data / "searching.lock").exists()  # nor a sign for syncs that a search runs


def _ro_mount_works(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None or sys.platform != "linux":
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    script = f"mount --bind {probe} {probe} && mount -o remount,ro,bind {probe} {probe} && ! touch {probe}/x 2>/dev/null"
    ok = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True).returncode == 0
    return ok and not (probe / "x").exists()


def test_library_on_a_read_only_mount(tmp_path, tiny_encoder, tiny_bi_encoder_dir):
    if not _ro_mount_works(tmp_path):
        pytest.skip("cannot make a read-only bind mount here (needs root or user namespaces)")
    data = build_library(tmp_path, tiny_encoder, tiny_bi_encoder_dir)
    assert not (data / "library.sqlite-shm").exists()  # closed cleanly: mode=ro alone cannot open WAL here
    py = shlex.quote(sys.executable)
    d = shlex.quote(str(data))

    def under_ro_mount(*args: str) -> subprocess.CompletedProcess:
        cli = " ".join(shlex.quote(a) for a in args)
        script = (f"mount --bind {d} {d} && mount -o remount,ro,bind {d} {d} && "
                  f"{py} -m searchapp --data-dir {d} {cli}")
        env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
        return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env,
                              timeout=300)

    proc = under_ro_mount("search", "lava", "--mode", "lexical", "--json")
    assert proc.returncode == 0, proc.stderr
    assert Path(json.loads(proc.stdout)["hits"][0]["path"]).name == "volcano.txt"
    proc = under_ro_mount("search", "moat drawbridge", "--json")  # dense too: the vector index is read
    assert proc.returncode == 0, proc.stderr
    assert Path(json.loads(proc.stdout)["hits"][0]["path"]).name == "castle.txt"
    proc = under_ro_mount("status", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files"] == 3
    proc = under_ro_mount("index")
    assert proc.returncode == 2 and "read-only" in proc.stderr, proc.stderr
