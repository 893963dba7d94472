"""Two machines sync different roots of one shared library at the same time (one writer per root, decision
0125): a second real process holds its root's lock in the middle of its sync while this one syncs its own root
to the end, and is refused the other's root."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from searchapp.base.errors import StoreError
from searchapp.library.shared import WRITER_LOCK, SharedLibrary

pytestmark = pytest.mark.subprocess  # a second process, and the pg_server fixture's PostgreSQL

# Machine "desk-a": syncs its folder by words, one file per batch, and after its first batch says so (a file) and
# waits for the test's word (another file) before going on: its root's lock is held all that time.
DESK_A = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from searchapp.base.config import load_config
    from searchapp.library.shared import SharedLibrary
    from searchapp.library.sync import words_pass
    from searchapp.store.postgres.pg_store import PgStore

    address, folder, model, holding, go = sys.argv[1:6]
    words_pass.BATCH_FILES = 1
    insert = PgStore.insert_chunks_of
    calls = []

    def paused(store, rows):
        calls.append(1)
        if len(calls) == 2:  # the first batch is committed; the second waits, its root locked
            Path(holding).write_text("held")
            for _ in range(12000):  # up to 600 s: desk-b indexes meanwhile, slower on a busy machine
                if Path(go).exists():
                    break
                time.sleep(0.05)
        return insert(store, rows)

    PgStore.insert_chunks_of = paused
    config = load_config(Path(folder).parent / "lib-a", env={}, overrides={"models": {"bi_encoder": model,
                                                                                     "reranker": ""}})
    with SharedLibrary(config, address, create=True, machine="desk-a") as lib:
        report = lib.add_folder(folder, embed=False)
    print(report.added)
""")


def desk_a_holding(tmp_path: Path, pg_address: str, model_dir: Path) -> tuple[subprocess.Popen, Path, Path]:
    """desk-a syncing its folder of three notes in a process of its own, paused with its first batch committed
    and its root locked; (the process, the folder, the file that lets it go on)."""
    a_docs = tmp_path / "a"
    a_docs.mkdir()
    for i in range(3):
        (a_docs / f"a{i}.txt").write_text(f"alder note {i} about the orchard", encoding="utf-8")
    holding, go = tmp_path / "holding", tmp_path / "go"
    desk_a = subprocess.Popen([sys.executable, "-c", DESK_A, pg_address, str(a_docs), str(model_dir),
                               str(holding), str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(12000):  # desk-a's start-up and first batch; not a timing assertion
            if holding.exists() or desk_a.poll() is not None:
                break
            time.sleep(0.05)
        assert holding.exists(), desk_a.communicate()[1][-2000:]
    except BaseException:
        if desk_a.poll() is None:
            desk_a.kill()
            desk_a.wait()
        raise
    return desk_a, a_docs, go


def test_two_machines_sync_different_roots_at_once(make_config, tiny_encoder, tiny_bi_encoder_dir, tmp_path,
                                                    pg_server, pg_address):
    config = make_config(models={"reranker": ""})
    SharedLibrary(config, pg_address, create=True, machine="desk-b").close()  # the tables, before two processes
    b_docs = tmp_path / "b"
    b_docs.mkdir()
    (b_docs / "b.txt").write_text("birch bark peels in thin curls", encoding="utf-8")
    desk_a, a_docs, go = desk_a_holding(tmp_path, pg_address, tiny_bi_encoder_dir)
    try:
        locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted"
        assert pg_server.admin(locks, params=(WRITER_LOCK,)) == [(1,)]  # desk-a, mid-sync
        with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-b") as b:
            report = b.add_folder(b_docs)  # at the same time as desk-a
            assert (report.added, report.chunks_embedded) == (1, 1)
            assert b.store.pending_count() == 1  # desk-a's first passage: its to embed, not desk-b's
            assert desk_a.poll() is None and not go.exists()
            assert pg_server.admin(locks, params=(WRITER_LOCK,)) == [(1,)]  # desk-a still holds its root
            assert [Path(h.path).name for h in b.search("birch bark", mode="lexical").hits] == ["b.txt"]
        with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as a_again:
            with pytest.raises(StoreError, match=f"another process is syncing {a_docs}"):
                a_again.sync()  # desk-a's root, from another process of desk-a: refused
        go.write_text("go")
        out, err = desk_a.communicate(timeout=300)
        assert desk_a.returncode == 0 and out.strip() == "3", err[-2000:]
    finally:
        if desk_a.poll() is None:
            desk_a.kill()
            desk_a.wait()
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-b") as b:
        st = b.summary()
        assert [(m, f) for m, _, f, *_ in st.roots] == [("desk-a", 3), ("desk-b", 1)]
        assert len(b.search("orchard", mode="lexical", k=10, group="passage").hits) == 3


def test_a_machine_killed_mid_sync_keeps_whole_batches_and_no_lock(make_config, tiny_encoder, tiny_bi_encoder_dir,
                                                                   tmp_path, pg_server, pg_address):
    """desk-a is killed (SIGKILL) in the middle of its second batch: its first batch stays whole, nothing of the
    second is there, the server lets go of its root's lock, and desk-a's next sync finishes the folder."""
    config = make_config(models={"reranker": ""})
    SharedLibrary(config, pg_address, create=True, machine="desk-a").close()
    desk_a, a_docs, _ = desk_a_holding(tmp_path, pg_address, tiny_bi_encoder_dir)
    desk_a.kill()  # mid-sync: its second batch is in flight
    desk_a.communicate()
    db = pg_address.split("?")[0].rsplit("/", 1)[-1]
    locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
    for _ in range(2400):  # the server notices the dead client's socket: wait for that, not for a clock
        if pg_server.admin(locks, params=(WRITER_LOCK,)) == [(0,)]:
            break
        time.sleep(0.05)
    assert pg_server.admin(locks, params=(WRITER_LOCK,)) == [(0,)]
    assert pg_server.admin("SELECT count(*), sum(n_chunks) FROM files", database=db) == [(1, 1)]
    assert pg_server.admin("SELECT count(*) FROM chunks", database=db) == [(1,)]
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as a:
        report = a.sync()
        assert (report.added, report.unchanged) == (2, 1) and a.store.pending_count() == 0
