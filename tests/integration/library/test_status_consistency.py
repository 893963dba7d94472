"""`status`'s `consistent`: the vector index holds exactly the stored passages that have a finite vector. Checked
with sorted id arrays (report/status.py); each way it can be wrong must show, and a NaN row left out on purpose
must not."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
import os
import stat

import numpy as np
import pytest

from searchapp.library.resources.integrity import INTERVAL_S, RECORD, IntegrityCheck

# The desktop's own parts: its HNSW file beside the store, SQLite's quick_check. A shared library's vectors are
# pgvector's index on the passages table (one transaction writes both) and its integrity is the server's.
pytestmark = pytest.mark.engines("sqlite")


def _library_with_files(tiny_library, tmp_path, n: int = 4):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(n):
        (docs / f"f{i}.txt").write_text(f"Passage number {i} about topic {i} and nothing else.\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    return tiny_library


@contextlib.contextmanager
def quick_checks(reader):
    """A callable counting the quick_checks SQLite runs on `reader`'s connection meanwhile (its trace callback)."""
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    try:
        yield lambda: statements.count("PRAGMA quick_check")
    finally:
        reader.conn.set_trace_callback(None)


def test_each_way_the_index_can_differ_from_the_store_shows(tiny_library, tmp_path):
    lib = _library_with_files(tiny_library, tmp_path)
    st = lib.status()
    assert st.consistent and st.vectors == st.chunks == st.embedded == 4
    index = lib._fresh()
    ids = index.ids()
    one = int(ids[1])
    vec = lib.reader().vectors([one])[1]
    index.remove([one])  # a stored passage the index lacks
    st = lib.status()
    assert not st.consistent and st.vectors == 3
    index.add(np.array([one]), vec)
    assert lib.status().consistent
    index.add(np.array([int(ids.max()) + 1000]), vec)  # an id the store never had
    st = lib.status()
    assert not st.consistent and st.vectors == 5
    index.remove([int(ids.max()) + 1000])
    assert lib.status().consistent
    # the same count, other ids: a stored passage missing and a stranger in its place
    index.remove([one])
    index.add(np.array([int(ids.max()) + 1000]), vec)
    st = lib.status()
    assert not st.consistent and st.vectors == st.embedded == 4


def test_a_non_finite_vector_left_out_is_consistent_and_said(tiny_library, tmp_path):
    lib = _library_with_files(tiny_library, tmp_path)
    index = lib._fresh()
    one = int(index.ids()[0])
    with lib.store.atomic():  # as a broken model would have stored it
        lib.store.conn.execute("UPDATE chunks SET vector = ? WHERE id = ?",
                               (np.full(lib.vectors.dim(), np.nan, np.float32).tobytes(), one))
    index.remove([one])
    st = lib.status()
    assert st.consistent and st.vectors == 3 and st.embedded == 4
    assert any("not finite" in n for n in st.notes)


def test_sqlites_quick_check_runs_at_most_once_a_minute_and_its_verdict_counts(tiny_library, tmp_path, monkeypatch):
    lib = _library_with_files(tiny_library, tmp_path)
    now = [1000.0]
    lib._integrity = IntegrityCheck(clock=lambda: now[0])
    # status runs the check on a thread of its own, beside its other reads, on that thread's connection
    reader = lib._checker.submit(lib.reader).result()
    assert reader is not lib.reader()
    with quick_checks(reader) as checks:
        assert lib.status().consistent and checks() == 1
        now[0] += INTERVAL_S / 2
        assert lib.status().consistent and checks() == 1  # the window's next refresh: the verdict of a moment ago
        now[0] += INTERVAL_S
        monkeypatch.setattr(reader, "integrity_ok", lambda: False)  # what a damaged file answers
        assert not lib.status().consistent


def test_a_passing_quick_check_serves_other_processes_for_a_minute_on_unchanged_files(tiny_library, tmp_path):
    """Two IntegrityChecks on one data dir stand for two `searchapp status` processes (each its own memory)."""
    lib = _library_with_files(tiny_library, tmp_path)
    reader = lib.reader()
    with quick_checks(reader) as checks:
        wall = [5_000.0]
        process = lambda: IntegrityCheck(lib.data_dir, wall=lambda: wall[0])  # noqa: E731
        assert process().ok(reader) and checks() == 1
        record = lib.data_dir / RECORD
        assert stat.S_IMODE(os.stat(record).st_mode) == 0o600
        wall[0] += INTERVAL_S / 2
        assert process().ok(reader) and checks() == 1  # the next command, within the minute, files unchanged
        assert process().ok(reader, fresh=True) and checks() == 2  # `status --check` runs it whatever ran before
        wall[0] += INTERVAL_S / 2
        assert process().ok(reader) and checks() == 2  # the fresh run was recorded in turn
        (tmp_path / "docs" / "new.txt").write_text("a new file to commit\n", encoding="utf-8")
        lib.sync()  # a commit: the database's size or time changes
        assert process().ok(reader) and checks() == 3
        wall[0] += INTERVAL_S  # a minute later, unchanged files: checked again
        assert process().ok(reader) and checks() == 4
        os.chmod(record, 0o644)  # a record others could have written is not trusted
        assert process().ok(reader) and checks() == 5
        record.write_text("{not json", encoding="utf-8")
        os.chmod(record, 0o600)
        assert process().ok(reader) and checks() == 6


def test_a_failing_quick_check_is_never_reused(tiny_library, tmp_path, monkeypatch):
    lib = _library_with_files(tiny_library, tmp_path)
    reader = lib.reader()
    monkeypatch.setattr(reader, "integrity_ok", lambda: False)  # what a damaged file answers
    assert not IntegrityCheck(lib.data_dir).ok(reader)
    assert not (lib.data_dir / RECORD).exists()
    monkeypatch.undo()
    assert IntegrityCheck(lib.data_dir).ok(reader) and (lib.data_dir / RECORD).exists()
    monkeypatch.setattr(reader, "integrity_ok", lambda: False)
    assert not IntegrityCheck(lib.data_dir).ok(reader, fresh=True)  # --check: the damage shows at once


def test_a_reused_verdict_ages_from_when_it_was_taken(tiny_library, tmp_path):
    lib = _library_with_files(tiny_library, tmp_path)
    reader = lib.reader()
    wall, mono = [5_000.0], [100.0]
    with quick_checks(reader) as checks:
        assert IntegrityCheck(lib.data_dir, wall=lambda: wall[0]).ok(reader) and checks() == 1
        wall[0] += INTERVAL_S - 10
        window = IntegrityCheck(lib.data_dir, wall=lambda: wall[0], clock=lambda: mono[0])
        assert window.ok(reader) and checks() == 1  # 50 s old: reused
        mono[0] += 5
        wall[0] += 5
        assert window.ok(reader) and checks() == 1  # 55 s old: still the same verdict, from memory
        mono[0] += 6
        wall[0] += 6
        assert window.ok(reader) and checks() == 2  # a minute after the check itself, not after the reuse


def test_any_unreadable_integrity_record_counts_as_none(tiny_library, tmp_path):
    """A record no JSON reader survives (2 KB of `[`: RecursionError; a 400-digit time: OverflowError; a list)
    is as if there were none: the check runs, passes and writes a good record over it, never a traceback."""
    lib = _library_with_files(tiny_library, tmp_path)
    reader = lib.reader()
    record = lib.data_dir / RECORD
    hostile = ["[" * 2048, '{"ok": true, "checked_at": 1' + "0" * 400 + ', "files": []}', "[1, 2]", '"text"']
    with quick_checks(reader) as checks:
        for n, text in enumerate(hostile, start=1):
            record.write_text(text, encoding="utf-8")
            os.chmod(record, 0o600)
            assert IntegrityCheck(lib.data_dir).ok(reader) and checks() == n, text[:20]
            assert record.read_text(encoding="utf-8").startswith('{"ok": true'), text[:20]


def test_a_status_taken_while_this_process_syncs_never_says_inconsistent(tiny_library, tmp_path, monkeypatch):
    """The index's count and ids, and the store's ids, are read at different moments: while this process's sync adds
    vectors (a batch committed to the store, not yet in the index: held there, a status asked from that very point
    of the sync) they disagree for a moment. Such a status does not judge consistency: it says it is not checked
    now. Once the sync is done it is checked again."""
    lib = _library_with_files(tiny_library, tmp_path, n=2)
    more = tmp_path / "more"
    more.mkdir()
    for i in range(3):
        (more / f"g{i}.txt").write_text(f"Another passage {i} about weather {i}.\n", encoding="utf-8")
    taken = []
    add = lib.vectors.add

    def status_then_add(ids, vectors):  # as the window asks, on a thread of its own, while the sync waits here
        with ThreadPoolExecutor(1) as pool:
            taken.append(pool.submit(lib.status).result(timeout=60))
        add(ids, vectors)

    monkeypatch.setattr(lib.vectors, "add", status_then_add)
    lib.add_folder(more)
    assert taken and all(st.consistent and not st.consistency_checked for st in taken), [
        (st.vectors, st.embedded, st.consistent) for st in taken]
    after = lib.status()
    assert after.consistent and after.consistency_checked and after.vectors == after.embedded == 5
