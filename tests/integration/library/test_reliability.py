"""Two processes on one library, full and read-only disks, space reclaimed after removals, and queries that
try to be FTS syntax. Real SQLite files, real hnswlib, real processes; where the OS condition cannot be
produced here (root ignores chmod; the disk is not ours to fill) the docstring says what stands in for it."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.base.errors import StoreError
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.store.lexical_queries import fts_query

from test_crash_safety import WORKER, check_library, tiny_config, write_corpus

PY = [sys.executable, "-c"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


@pytest.fixture
def tiny_lib(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    lib = Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder)
    yield lib
    lib.close()


# --------------------------------------------------------------------------- two processes

HOLD_LOCK = textwrap.dedent("""
    import sys
    from pathlib import Path
    from searchapp.library.resources.lock import writer_lock
    with writer_lock(Path(sys.argv[1])):
        print("locked", flush=True)
        sys.stdin.read()  # hold until the test closes our stdin
""")


def test_second_writer_process_gets_a_clear_message(tmp_path, tiny_lib, capsys):
    docs = write_corpus(tmp_path / "docs", 5)
    holder = subprocess.Popen(PY + [HOLD_LOCK, str(tiny_lib.data_dir)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreError, match="another searchapp process is updating the library"):
            tiny_lib.add_folder(docs)
        code = main(["--data-dir", str(tiny_lib.data_dir), "remove", "--no-wait", str(docs)])
        err = capsys.readouterr().err
        assert code == 3 and err.count("\n") == 1 and "another searchapp process" in err
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert tiny_lib.add_folder(docs).added == 5  # the lock is released with the process


def test_readers_search_safely_while_another_process_syncs(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """The crash worker (a real process) keeps syncing and changing a corpus; this process searches the
    same library the whole time. Every search must succeed and return rows that exist."""
    corpus = write_corpus(tmp_path / "corpus", 60)
    data_dir = tmp_path / "library"
    cfg = tiny_config(data_dir, tiny_bi_encoder_dir)
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(corpus)
    server = subprocess.Popen([sys.executable, str(WORKER), str(tiny_bi_encoder_dir), str(data_dir), str(corpus)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=ENV)
    reader = Library(cfg, encoder=tiny_encoder)
    searches = 0
    try:
        assert server.stdout.readline().strip() == "loaded"
        server.stdin.write("run\n")
        server.stdin.flush()
        pid = int(server.stdout.readline().split()[1])
        deadline = time.monotonic() + 2.0
        rng = random.Random(0)
        # At least 2 s of the worker's syncing and at least 12 searches, however loaded the machine is; a short
        # pause between searches lets them land at different points of the worker's syncs instead of spinning.
        while time.monotonic() < deadline or searches < 12:
            mode = rng.choice(SEARCH_MODES)
            res = reader.search("apple river " + rng.choice(["glacier", "violin", "copper"]), mode=mode, k=5)
            assert all(h.text and h.path.startswith(str(corpus)) for h in res.hits)
            searches += 1
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        assert server.stdout.readline().startswith(f"exit {pid}")
    finally:
        reader.close()
        server.stdin.close()
        server.wait(timeout=30)
    assert searches > 10
    with Library(cfg, encoder=tiny_encoder) as lib:
        check_library(lib)


# --------------------------------------------------------------------------- full and read-only disks

FULL_DISK_CLI = textwrap.dedent("""
    import resource, signal, sys
    # Writes past this many bytes into any file fail with EFBIG, like a full disk (root cannot bypass it).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    from searchapp.cli.main import main
    sys.exit(main(sys.argv[2:]))
""")


def test_full_disk_gives_one_clean_line_and_keeps_the_library(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """A full disk is produced with RLIMIT_FSIZE in the syncing process: every write past the limit fails
    with EFBIG exactly where ENOSPC would (SQLite's WAL and pages, the index temp file), and unlike chmod it
    binds root too. The 8 KB of room run out in the words pass's first commit (no file of `more` is recorded),
    before any meaning: `--words-only` fails there as a full `index` does, without loading the model (torch's
    import was ~5 of this test's ~6 CPU s). A full disk at the index save: the test after this one."""
    first = write_corpus(tmp_path / "first", 10, seed=3)
    more = write_corpus(tmp_path / "more", 40, seed=4)  # ~40 KB of text: far past the limit's 8 KB of room
    cfg = tiny_config(tmp_path / "library", tiny_bi_encoder_dir)
    with Library(cfg, encoder=tiny_encoder) as lib:
        lib.add_folder(first)
        before = {h.chunk_id for h in lib.search("apple river", mode="lexical", k=50).hits}
    assert before
    limit = max(p.stat().st_size for p in cfg.data_dir.iterdir() if p.is_file()) + 8192
    env = {**ENV, "SEARCHAPP_MODELS__BI_ENCODER": str(tiny_bi_encoder_dir), "SEARCHAPP_MODELS__RERANKER": "",
           "SEARCHAPP_MODELS__PRECISION": "fp32", "SEARCHAPP_MODELS__THREADS": "1"}
    proc = subprocess.run(PY + [FULL_DISK_CLI, str(limit), "--data-dir", str(cfg.data_dir), "index", "--words-only",
                                str(more)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("searchapp: error:")]
    assert len(errors) == 1 and "full or read-only" in errors[0], proc.stderr
    with Library(cfg, encoder=tiny_encoder) as lib:
        check_library(lib)
        after = {h.chunk_id for h in lib.search("apple river", mode="lexical", k=50).hits}
        assert before <= after  # nothing indexed before is lost
        lib.sync()  # with space again, the interrupted work completes
        assert lib.status().files.get("indexed") == 50


SAVE_UNDER_LIMIT = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np
    from pathlib import Path
    from searchapp.ann.hnsw import HnswIndex
    path = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    index = HnswIndex(32)
    index.add(np.arange(500), rng.normal(size=(500, 32)))
    index.save(path, generation=1)
    index.add(np.arange(500, 3000), rng.normal(size=(2500, 32)))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = path.stat().st_size + 4096
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    try:
        index.save(path, generation=2)
    except OSError as exc:
        print("refused:", exc)
    else:
        print("saved")
""")


def test_index_save_on_a_full_disk_keeps_the_previous_index(tmp_path):
    """hnswlib writes through an unchecked C++ stream, so on a full disk it "succeeds" with a short file.
    The save must notice, refuse to replace the previous index, and leave no temp file behind."""
    from searchapp.ann.hnsw import HnswIndex

    path = tmp_path / "vectors.hnsw"
    proc = subprocess.run(PY + [SAVE_UNDER_LIMIT, str(path)], capture_output=True, text=True, env=ENV, timeout=120)
    assert proc.stdout.startswith("refused:") and "incompletely" in proc.stdout, proc.stdout + proc.stderr
    index = HnswIndex.load(path, 32, None)
    assert len(index) == 500 and index.generation == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors.hnsw", "vectors.hnsw.json"]


def test_index_save_failure_is_a_store_error_and_the_old_index_stays(tmp_path, tiny_lib, monkeypatch):
    """The rename that publishes a new index fails (ENOSPC at the OS boundary: os.replace is patched, as the
    disk cannot be filled here); the sync ends with a StoreError naming the file, the previous index file
    and sidecar are byte for byte what they were, and the next open repairs from SQLite."""
    import errno

    import searchapp.ann.storage as storage

    docs = write_corpus(tmp_path / "docs", 8)
    tiny_lib.add_folder(docs)
    index_file = tiny_lib.data_dir / "vectors.hnsw"
    saved = index_file.read_bytes(), Path(str(index_file) + ".json").read_bytes()
    real_replace = os.replace

    def no_space(src, dst, *a, **kw):
        if Path(dst).name.startswith("vectors."):
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(storage.os, "replace", no_space)
    write_corpus(tmp_path / "docs", 12, seed=9)  # rewrites 8, adds 4
    with pytest.raises(StoreError, match="cannot save the vector index.*No space left.*previous index file is kept"):
        tiny_lib.sync()
    monkeypatch.undo()
    assert (index_file.read_bytes(), Path(str(index_file) + ".json").read_bytes()) == saved
    assert not list(tiny_lib.data_dir.glob(".*.tmp"))
    with Library(tiny_lib.config, encoder=tiny_lib.models.encoder) as lib:
        check_library(lib)
        assert "repaired" in (lib.index_notice() or "")
        assert lib.status().files.get("indexed") == 12


def test_unwritable_data_dir_is_a_clean_error(tmp_path, tiny_lib, capsys):
    """chmod cannot make a folder read-only for root (tests run as root), so the writer's first write, the
    lock file, is made impossible with a real OS error instead: a directory stands where the file must be."""
    docs = write_corpus(tmp_path / "docs", 4)
    tiny_lib.add_folder(docs)
    before = (tiny_lib.data_dir / "vectors.hnsw").read_bytes()
    lock = tiny_lib.data_dir / "writer.lock"
    lock.unlink()
    lock.mkdir()
    with pytest.raises(StoreError, match="cannot write to the library.*Is a directory"):
        tiny_lib.sync()
    code = main(["--data-dir", str(tiny_lib.data_dir), "remove", "--yes", str(docs)])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith("searchapp: error: cannot write to the library") and err.count("\n") == 1
    assert (tiny_lib.data_dir / "vectors.hnsw").read_bytes() == before
    assert tiny_lib.search("apple river", mode="lexical").hits  # searching needs no write


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores chmod; covered by test_unwritable_data_dir_is_a_clean_error")
def test_read_only_data_dir_with_chmod(tmp_path, tiny_lib):
    docs = write_corpus(tmp_path / "docs", 4)
    tiny_lib.add_folder(docs)
    (tiny_lib.data_dir / "writer.lock").unlink()
    os.chmod(tiny_lib.data_dir, 0o555)
    try:
        with pytest.raises(StoreError, match="cannot write to the library"):
            tiny_lib.sync()
    finally:
        os.chmod(tiny_lib.data_dir, 0o755)


# --------------------------------------------------------------------------- space is reclaimed

class CountingEncoder:
    """The real tiny encoder, counting what it is asked to embed (compaction must embed nothing)."""

    def __init__(self, inner) -> None:
        self.inner, self.texts = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def encode(self, texts, **kw):
        self.texts += len(texts)
        return self.inner.encode(texts, **kw)


def test_removing_a_folder_compacts_index_and_database(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    keep = write_corpus(tmp_path / "keep", 20, seed=5)
    drop = write_corpus(tmp_path / "drop", 60, seed=6)
    enc = CountingEncoder(tiny_encoder)
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=enc) as lib:
        lib.add_folder(keep)
        lib.add_folder(drop)
        index_file, db_file = lib.data_dir / "vectors.hnsw", lib.data_dir / "library.sqlite"
        lib.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sizes = index_file.stat().st_size, db_file.stat().st_size
        embedded = enc.texts
        lib.remove_folder(drop)
        assert enc.texts == embedded  # rebuilt from stored vectors
        assert lib.index().deleted_fraction() == 0.0
        sidecar = json.loads(Path(str(index_file) + ".json").read_text())
        assert sidecar["params"]["deleted"] == 0 and sidecar["count"] == lib.store.chunk_count()
        lib.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert index_file.stat().st_size < sizes[0] / 2
        assert db_file.stat().st_size < sizes[1]  # VACUUMed: more than a quarter was free
        check_library(lib)
        assert {Path(h.path).parent for h in lib.search("apple river", mode="hybrid").hits} == {keep}


def test_sync_that_deletes_many_files_compacts(tmp_path, tiny_lib):
    docs = write_corpus(tmp_path / "docs", 40)
    tiny_lib.add_folder(docs)
    for p in sorted(docs.iterdir())[:8]:  # 20%: not yet over the threshold
        p.unlink()
    tiny_lib.sync()
    assert 0 < tiny_lib.index().deleted_fraction() <= 0.2
    for p in sorted(docs.iterdir())[:6]:
        p.unlink()
    tiny_lib.sync()
    assert tiny_lib.index().deleted_fraction() == 0.0
    check_library(tiny_lib)
    with Library(tiny_lib.config, encoder=tiny_lib.models.encoder) as again:  # what was saved is the compacted index
        assert again.index().deleted_fraction() == 0.0 and again.index_notice() is None


# --------------------------------------------------------------------------- queries are never FTS syntax

ADVERSARIAL = [
    '"', '""', '"unbalanced', "it's", "NEAR(apple river)", "NEAR(apple, 2", "apple*", "*", "^apple", "^",
    "apple AND river", "apple OR", "NOT apple", "AND", "OR OR OR", "text:apple", "chunks_fts:river", "rowid:1",
    "(apple", "apple)", "((((", "))))", "{apple river}", "apple + river - glacier", "-apple", "a:b:c", ":",
    "apple; DROP TABLE chunks; --", "' OR 1=1 --", "\\", "\x00apple", "😀 apple", "ÄPFEL", "i̇stanbul",
    "apple " * 2000, "x" * 100_000, "", "   ", "\n\t",
]


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_adversarial_queries_are_plain_words(tmp_path, tiny_lib, mode):
    docs = write_corpus(tmp_path / "docs", 10)
    tiny_lib.add_folder(docs)
    n_chunks = tiny_lib.store.chunk_count()
    for q in ADVERSARIAL:
        res = tiny_lib.search(q, mode=mode, k=5)
        assert all(h.text for h in res.hits), q
        expr = fts_query(q)
        assert expr is None or re.fullmatch(r'"[^"]*"( OR "[^"]*")*', expr), (q, expr)
    assert tiny_lib.store.chunk_count() == n_chunks
    # The quoted words still find what they name: syntax characters are dropped, words kept.
    assert tiny_lib.search("NEAR(apple", mode="lexical").hits
    assert tiny_lib.search("text:apple", mode="lexical").hits


def test_fts_query_quotes_every_word():
    assert fts_query('NEAR("x" b) OR text:c*') == '"near" OR "x" OR "b" OR "text" OR "c"'
    assert fts_query("^*()") is None
