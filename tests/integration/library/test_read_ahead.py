"""The words pass's read-ahead worker process (library/sync/read_ahead.py): what it stores is byte for byte what
the in-process words pass stores, and a worker that dies, cannot start or is cancelled loses nothing."""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from searchapp.base.config import load_config
from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken
from searchapp.library import Library
from searchapp.library.sync import batches, read_ahead, read_ahead_worker, words_pass

WORDS = ("river stone lantern orchard copper meadow signal harbor thistle quartz ember violet glacier "
         "falcon cedar prism marble tundra saffron").split()


def _corpus(folder: Path, n: int = 60) -> Path:
    """Text, HTML and Markdown files of varied length: some one passage, some many, one empty, one repeated."""
    folder.mkdir(parents=True)
    for i in range(n):
        words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(20 + (i * 37) % 900)]
        body = " ".join(words) + f". Number {i}, café naïve Ünïcode 東京 {i * i}."
        sub = folder / f"s{i % 3}"
        sub.mkdir(exist_ok=True)
        if i % 3 == 0:
            (sub / f"doc{i:03d}.txt").write_text(f"Title {i}\n\n{body}\n" + "same line again\n" * (i % 4),
                                                 encoding="utf-8")
        elif i % 3 == 1:
            (sub / f"page{i:03d}.html").write_text(
                f"<html><head><title>Page {i}</title></head><body><h1>Head {i}</h1><p>{body}</p>"
                f"<script>var hidden = 'nope';</script><p>{body[:200]}</p></body></html>", encoding="utf-8")
        else:
            (sub / f"note{i:03d}.md").write_text(f"# Note {i}\n\n- {body}\n\n## Part two\n\n{body[::-1]}\n",
                                                 encoding="utf-8")
    (folder / "empty.txt").write_text("", encoding="utf-8")
    with open(folder / "s0" / "doc003.txt", "a", encoding="utf-8") as f:  # a note of what its reading left out
        f.write("\n" + "QUJDRGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo0" * 30 + "\n\nThe survey resumes in May.\n")
    return folder


def _dump(lib: Library) -> dict:
    """Every stored row the words pass writes (files without their sync timestamp), and the FTS index's own
    pages, which differ if the passages went in differently."""
    conn = lib.store.conn
    cur = conn.execute("SELECT * FROM files ORDER BY id")
    # when, not what: the sync's clock, and a file's ctime marked to check again when read within RACY_NS of it
    keep = [i for i, d in enumerate(cur.description) if d[0] not in ("indexed_at", "ctime_ns")]
    return {
        "files": [tuple(row[i] for i in keep) for row in cur.fetchall()],
        "chunks": conn.execute('SELECT id, file_id, ordinal, start, "end", page, text, text_hash, vector '
                               "FROM chunks ORDER BY id").fetchall(),
        "spans": conn.execute('SELECT chunk_id, start, "end", page FROM chunk_spans ORDER BY rowid').fetchall(),
        "fts": conn.execute("SELECT id, block FROM chunks_fts_data ORDER BY id").fetchall(),
        "cjk": conn.execute("SELECT rowid, chars FROM chunks_cjk ORDER BY rowid").fetchall(),
        "notes": conn.execute("SELECT notes FROM files WHERE notes IS NOT NULL").fetchall(),
    }


def _sync(data_dir: Path, docs: Path, encoder, cancel=None, progress=None) -> tuple[dict, object]:
    config = load_config(data_dir, env={}, overrides={"models": {"reranker": ""}})
    with Library(config, encoder=encoder) as lib:
        rep = lib.add_folder(docs, embed=False, cancel=cancel, progress=progress)
        return _dump(lib), rep


@pytest.fixture(scope="module", autouse=True)
def batches_by_count():
    """Batches end by their count alone, for every sync of the module (the in-process one too): a sync's first batch
    also ends after FIRST_BATCH_S (so a search sees words soon), and where that falls depends on the machine's load,
    and with it the FTS index's pages."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batches, "FIRST_BATCH_S", math.inf)
        yield


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    """One corpus for the module: no test writes to it, and `in_process` compares rows naming its paths."""
    return _corpus(tmp_path_factory.mktemp("read-ahead") / "docs")


@pytest.fixture
def small_threshold(monkeypatch):
    """A worker for this small corpus, in groups of 8 files so the sync also reads some itself meanwhile."""
    monkeypatch.setattr(words_pass, "MIN_FILES", 1)
    monkeypatch.setattr(read_ahead, "GROUP", 8)
    monkeypatch.setattr(read_ahead, "usable_cores", lambda: 2)
    monkeypatch.setattr(words_pass, "usable_cores", lambda: 2)
    monkeypatch.setattr(words_pass, "second_core_free", lambda since: True)
    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)


@pytest.fixture(scope="module")
def in_process(tmp_path_factory, docs, tiny_encoder) -> dict:
    """The rows the in-process words pass stores for `docs`: built once, what every worker sync is compared with
    (the tests only read it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
        rows, rep = _sync(tmp_path_factory.mktemp("lib-in-process"), docs, tiny_encoder)
    assert rep.added == 60 and len(rows["chunks"]) > 100
    return rows


def _recording(monkeypatch, on_get=None) -> list:
    made: list = []

    class Recorded(read_ahead.ReadAhead):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.wait_started(60)
            self.started_pids = self.worker_pids()
            made.append(self)

        def get(self, i):
            out = super().get(i)
            if on_get is not None:
                on_get(self, i)
            return out

    monkeypatch.setattr(words_pass, "ReadAhead", Recorded)
    return made


def test_worker_stores_the_same_bytes_as_in_process(tmp_path, docs, tiny_encoder, in_process, small_threshold,
                                                    monkeypatch):
    made = _recording(monkeypatch)
    rows, rep = _sync(tmp_path / "lib-worker", docs, tiny_encoder)
    assert len(made) == 1 and made[0].stats["worker"] > 0  # the worker did read files
    assert not made[0].alive  # and is gone after the sync
    assert rows == in_process  # the notes too: the worker hands them on
    assert rep.added == 60 and rep.skipped == 1
    assert [n.split(":")[0] for n, in rows["notes"]] == ["1 paragraph(s) left out, not prose"]


def test_the_sync_gets_the_words_its_worker_tokenized(tmp_path, docs, tiny_encoder, in_process, small_threshold,
                                                     monkeypatch):
    """The worker hands back the words it tokenized with each group (read_ahead_worker.read_group): the sync's
    side of the reading (ReadAhead.encoder) knows every word of every file, those the worker read included, and
    would not tokenize them again."""
    made = _recording(monkeypatch)  # started before the first file: every file goes through the ReadAhead
    rows, _ = _sync(tmp_path / "lib-worker", docs, tiny_encoder)
    assert rows == in_process and made[0].stats["worker"] > 0
    words = {w for row in rows["chunks"] for w in row[6].split() if len(w) <= 64}
    assert words and words <= set(made[0].encoder._word_pieces._known)


def test_files_read_while_the_worker_starts_hand_their_words_to_it(tmp_path, docs, tiny_encoder, in_process,
                                                                  small_threshold, monkeypatch):
    """Until the worker is ready the sync reads the next files itself, a few at a time (ReadAhead._read_front), and
    the words they hold go to the worker with its first group: the same rows."""
    made: list = []
    handed: list[dict] = []

    class SlowStart(read_ahead.ReadAhead):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            real = self.encoder.learned_pieces
            self.encoder.learned_pieces = lambda: handed.append(real()) or handed[-1]  # type: ignore[method-assign]
            made.append(self)

        def _started(self, i):
            if i < 20:  # not ready for the first 20 files
                return False
            self.wait_started(60)
            return super()._started(i)

    monkeypatch.setattr(words_pass, "ReadAhead", SlowStart)
    rows, _ = _sync(tmp_path / "lib-slow-start", docs, tiny_encoder)
    assert rows == in_process
    assert made[0].stats["own"] >= 20 and made[0].stats["worker"] > 0
    assert handed and {"river", "stone", "Title"} <= set(handed[0])  # the first group took the words read here


def test_a_worker_does_not_tokenize_the_words_the_sync_hands_it(tmp_path, docs, tiny_encoder, monkeypatch):
    """The other way: the words the sync tokenized go to the worker with its next group, and the worker reads
    none of them again; the files' passages are the same."""
    from searchapp.models.chunking_tokenizer import ChunkingTokenizer

    config = load_config(tmp_path / "lib", env={}, overrides={"models": {"reranker": ""}})
    monkeypatch.setattr(read_ahead_worker, "_STATE", {})
    spec = tiny_encoder.chunking_spec()
    read_ahead_worker.start(config, spec)
    paths = sorted(str(p) for p in docs.rglob("*") if p.is_file())
    sync_side = ChunkingTokenizer(*spec)
    sync_side.share_pieces()
    want = read_ahead_worker.read_files(paths, [None] * len(paths), config, sync_side)
    worker = read_ahead_worker._STATE["encoder"]
    real = worker._offsets_tokenizer
    read: list[str] = []

    class Recording:
        def encode_batch(self, texts, **kw):
            read.extend(w for t in texts for w in t.split(" "))
            return real.encode_batch(texts, **kw)

    monkeypatch.setattr(worker, "_offsets_tokenizer", Recording())
    got, learned = read_ahead_worker.read_group(paths, [None] * len(paths), 0, sync_side.learned_pieces())
    assert [r.spans if r else None for r in got] == [r.spans if r else None for r in want]
    assert all(len(w) > 64 for w in read) and learned == {}  # only words too long to be remembered, read again
    assert any(r is not None and r.spans for r in got)


def test_a_killed_worker_loses_nothing(tmp_path, docs, tiny_encoder, in_process, small_threshold, monkeypatch):
    killed: list[int] = []

    def kill_after_first(ahead, i):
        if not killed and ahead.stats["worker"] > 0:
            for pid in ahead.worker_pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    made = _recording(monkeypatch, kill_after_first)
    rows, rep = _sync(tmp_path / "lib-killed", docs, tiny_encoder)
    assert killed and made[0].stats["worker"] < 60  # killed mid-sync: the rest was read in-process
    assert rows == in_process
    assert rep.added == 60


def test_a_worker_killed_between_groups_fails_no_file(tmp_path, docs, tiny_encoder, in_process, small_threshold,
                                                      monkeypatch):
    """The kill above, at the moment a full run of the suite met once: the worker had finished the next group and
    its pool had seen it die before the sync took that group's result and handed it another. A broken pool refuses
    new tasks (BrokenProcessPool): the sync reads the rest itself, and no file fails for it (one did, as "internal
    error", so its passages were missing)."""
    broken: list[bool] = []

    def kill_once_the_next_group_is_read(ahead, i):
        if broken or ahead.stats["worker"] == 0:
            return
        ahead._queue[0][2].result(timeout=60)  # the next group: read, its result waiting for the sync
        for pid in ahead.worker_pids():
            os.kill(pid, signal.SIGKILL)
        pool, deadline = ahead._pool, time.monotonic() + 60
        while not pool._broken and time.monotonic() < deadline:  # the pool's own thread sees the death
            time.sleep(0.01)
        broken.append(bool(pool._broken))

    made = _recording(monkeypatch, kill_once_the_next_group_is_read)
    rows, rep = _sync(tmp_path / "lib-killed-between", docs, tiny_encoder)
    assert broken == [True] and not made[0].alive
    assert rep.failed == 0 and rep.added == 60, rep.problems
    assert rows == in_process


def test_a_worker_killed_holding_the_shared_lock_does_not_hang_the_sync(tmp_path, docs, tiny_encoder, in_process,
                                                                         small_threshold, monkeypatch):
    """SIGKILL can land while the worker holds the "now reading" array's lock: nobody releases it then, and the
    sync's look at the worker's progress must not wait for it (a full run of the suite hung there once). The lock
    is held here as such a worker leaves it, for as long as the look may take, then let go."""
    looks: list[bool] = []  # whether each look came back while the lock was held

    def look_while_held(ahead, i):
        if not looks and ahead.stats["worker"] > 0 and ahead._now is not None:
            lock = ahead._now.get_lock()
            lock.acquire()
            try:
                look = threading.Thread(target=ahead._overdue, daemon=True)
                look.start()
                look.join(timeout=30)  # the old code waited here until the lock was let go
                looks.append(not look.is_alive())
            finally:
                lock.release()

    _recording(monkeypatch, look_while_held)
    rows, rep = _sync(tmp_path / "lib-lock", docs, tiny_encoder)
    assert looks == [True], "the look at the worker's progress waited on a lock its holder would never let go"
    assert rows == in_process and rep.added == 60


def test_a_worker_that_cannot_start_leaves_the_sync_in_process(tmp_path, docs, tiny_encoder, in_process,
                                                               small_threshold, monkeypatch):
    def broken(*a, **kw):
        raise OSError("no processes left")

    monkeypatch.setattr(read_ahead, "ProcessPoolExecutor", broken)
    made = _recording(monkeypatch)
    rows, _ = _sync(tmp_path / "lib-no-start", docs, tiny_encoder)
    assert len(made) == 1 and not made[0].alive
    assert rows == in_process


def test_small_syncs_one_core_and_a_busy_core_stay_in_process(tmp_path, docs, tiny_encoder, monkeypatch):
    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    monkeypatch.setattr(words_pass, "second_core_free", lambda since: True)
    made = _recording(monkeypatch)
    _sync(tmp_path / "lib-small", docs, tiny_encoder)  # 61 files: below MIN_FILES
    monkeypatch.setattr(words_pass, "MIN_FILES", 1)
    monkeypatch.setattr(words_pass, "usable_cores", lambda: 1)
    _sync(tmp_path / "lib-one-core", docs, tiny_encoder)
    monkeypatch.setattr(words_pass, "usable_cores", lambda: 2)
    monkeypatch.setattr(words_pass, "second_core_free", lambda since: False)  # another program keeps it busy
    _sync(tmp_path / "lib-busy", docs, tiny_encoder)
    assert made == []


def test_reading_in_groups_stores_the_same_bytes_as_one_by_one(tmp_path, docs, tiny_encoder, in_process,
                                                               monkeypatch):
    """Without a worker the sync reads its files in groups, their word pieces put together for the whole group
    (read_groups.py): the same rows as reading them one by one. Texts longer than one tokenizer segment (lowered
    here, so both kinds meet in a group) are chunked on their own."""
    from searchapp.ingest import chunking
    from searchapp.library.sync import read_groups

    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    monkeypatch.setattr(read_groups, "GROUP_FILES", 8)
    monkeypatch.setattr(chunking, "SEGMENT_CHARS", 2000)
    made: list = []
    grouped: list[int] = []

    class Recorded(read_groups.ReadInGroups):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    real_bounds = read_ahead_worker._bounds_of

    def bounds_of(files, encoder):
        out = real_bounds(files, encoder)
        grouped.append(len(out))
        return out

    monkeypatch.setattr(words_pass, "ReadInGroups", Recorded)
    monkeypatch.setattr(read_ahead_worker, "_bounds_of", bounds_of)
    rows, rep = _sync(tmp_path / "lib-groups", docs, tiny_encoder)
    assert len(made) == 1 and made[0].groups >= 60 // 8  # every file went through a group
    assert max(grouped) >= 2 and sum(grouped) < 61  # small texts were put together, the long ones were not
    assert rows == in_process  # the notes too: the worker hands them on
    assert rep.added == 60 and rep.skipped == 1
    assert [n.split(":")[0] for n, in rows["notes"]] == ["1 paragraph(s) left out, not prose"]


def test_a_group_s_word_pieces_failing_fails_no_file(tmp_path, docs, tiny_encoder, in_process, monkeypatch):
    """Fault injection: the group's one tokenizer pass raises. It is a shortcut, outside any file's boundary, so
    each file is then chunked on its own: the same rows, nothing failed."""
    from searchapp.library.resources.sync_encoder import SyncEncoder
    from searchapp.library.sync import read_groups

    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    monkeypatch.setattr(read_groups, "GROUP_FILES", 8)
    calls: list[int] = []

    def broken(self, texts):
        calls.append(len(texts))
        raise RuntimeError("tokenizer failed on one text of the group")

    monkeypatch.setattr(SyncEncoder, "token_bounds_many", broken)  # what the sync's reading asks (resources/sync_encoder.py)
    rows, rep = _sync(tmp_path / "lib-broken-groups", docs, tiny_encoder)
    assert calls  # the group pass ran, and raised
    assert rows == in_process and rep.added == 60 and rep.failed == 0


def test_a_busy_second_core_is_seen(monkeypatch):
    monkeypatch.setattr(read_ahead, "cpu_sample", lambda: (10.0, 100.2))
    assert read_ahead.second_core_free((9.8, 100.0)) is True  # 0.2 s idle in 0.2 s: a whole core idle
    assert read_ahead.second_core_free((9.95, 100.0)) is False  # a quarter of a core idle
    monkeypatch.setattr(os, "getloadavg", lambda: (2.3, 2.0, 2.0))
    monkeypatch.setattr(read_ahead, "usable_cores", lambda: 2)
    assert read_ahead.second_core_free((10.0, 100.17)) is False  # too short a scan: the load average says


def test_cancel_stops_the_worker_and_a_later_sync_completes(tmp_path, docs, tiny_encoder, in_process,
                                                            small_threshold, monkeypatch):
    """A stop at the 20th file kills the worker and keeps every file in hand from there on: it kept 20, the rest of
    the group the worker had handed back (and one it had finished) dropped and read again by the next sync (1,000
    PDFs: up to two groups, a minute or more of reading). At least the rest of the 20th's group of 8 is kept."""
    made = _recording(monkeypatch)
    token = CancelToken()

    def progress(p):
        if p.stage == "extracting" and p.done == 20:
            token.cancel()

    with pytest.raises(Cancelled):
        _sync(tmp_path / "lib-cancel", docs, tiny_encoder, cancel=token, progress=progress)
    assert made and made[0].started_pids and not made[0].alive
    for pid in made[0].started_pids:  # killed and reaped, not left reading
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not [t for t in threading.enumerate() if "QueueManager" in t.name and t.is_alive()]
    assert made[0].stats["worker"] >= 8  # the worker read groups, not the sync alone
    with Library(load_config(tmp_path / "lib-cancel", env={}, overrides={"models": {"reranker": ""}}),
                 encoder=tiny_encoder) as lib:
        kept = _dump(lib)
    # each kept as the in-process pass stores it (ids and all: the files in the sync's order, none skipped)
    assert len(kept["files"]) >= 24 and kept["files"] == in_process["files"][:len(kept["files"])], len(kept["files"])
    rows, _ = _sync(tmp_path / "lib-cancel", docs, tiny_encoder)  # the same library again, to the end
    assert rows["chunks"] == in_process["chunks"] and [r[2] for r in rows["files"]] == [
        r[2] for r in in_process["files"]]
