"""The per-file boundary of a sync (library/sync/file_boundary.py): whatever one file's reading, hashing,
extraction, chunking, tokenizing, storing or embedding raises is recorded as that file's failure, with a one-line
reason, every other file of the folder is indexed, and the next sync reads the file again. Each step is made to
raise for one file in turn (fault injection: the step's own function, patched to raise for that file only)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from searchapp.library import Library
from searchapp.library.sync import batches
from searchapp.ingest import passages
from searchapp.library.sync import words_pass
from searchapp.models import chunking_tokenizer

from test_crash_safety import tiny_config

MARK = "zanzibarquokka"  # only the victim's text holds this word
OTHERS = {
    "harbor.txt": "Copper lanterns hang in the harbor shed beside the velvet saddles.",
    "orchard.md": "# Orchard\n\nThe cedar orchard ripens in late autumn under a violet sky.",
    "glacier.html": "<html><body><p>A falcon circles the glacier above the quartz tundra.</p></body></html>",
    "meadow.txt": "Saffron flowers cover the meadow where the signal tower stands.",
}


def _folder(tmp_path: Path, victim: str) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in OTHERS.items():
        (docs / name).write_text(text, encoding="utf-8")
    (docs / victim).write_text(f"The {MARK} keeps its marble prism in the ember cellar.", encoding="utf-8")
    return docs


class Fault:
    """Raise from the patched step while armed, for the victim only."""

    def __init__(self) -> None:
        self.armed = True
        self.raised = 0

    def check(self, hit: bool) -> None:
        if self.armed and hit:
            self.raised += 1
            raise RuntimeError("injected fault\non two lines")


def _hits_victim(value) -> bool:
    """Whether an argument of a step names the victim file or holds its text."""
    if isinstance(value, (str, Path)):
        return MARK in str(value) or "victim" in str(value)
    if isinstance(value, (list, tuple)):
        return any(_hits_victim(v) for v in value)
    text = getattr(value, "text", None)  # a Document, a ChunkSpan
    return isinstance(text, str) and MARK in text


def _wrap(fault: Fault, fn):
    def patched(*args, **kwargs):
        fault.check(any(_hits_victim(a) for a in (*args, *kwargs.values())))
        return fn(*args, **kwargs)
    return patched


# (step, the module holding the function the sync calls, its name, the victim's file name)
STEPS = [
    ("read", words_pass, "file_sha256_and_bytes", "victim.txt"),  # a text file is read once for hash and text
    ("hash", words_pass, "file_sha256", "victim.ods"),  # a file its reader opens itself is only hashed here
    ("extract", words_pass, "extract", "victim.txt"),
    ("chunk", passages, "chunk_document", "victim.txt"),
    ("tokenize", chunking_tokenizer.ChunkingTokenizer, "token_bounds", "victim.txt"),
    ("passage hash", passages, "text_hash", "victim.txt"),
    ("store", batches, "distinct_chunks", "victim.txt"),
]


@pytest.mark.parametrize("step,owner,name,victim", STEPS, ids=[s[0] for s in STEPS])
def test_a_step_that_raises_for_one_file_fails_that_file_only(tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                              monkeypatch, step, owner, name, victim):
    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")  # the worker's side: test_read_ahead_boundary below
    docs = _folder(tmp_path, victim)
    if victim.endswith(".ods"):  # a real one (a .docx, told by its bytes, is hashed with them: decision 0203)
        from office_files import make_ods

        (docs / victim).unlink()
        make_ods(docs / victim, {"Sheet1": [[f"The {MARK} keeps its marble prism in the ember cellar."]]})
    fault = Fault()
    monkeypatch.setattr(owner, name, _wrap(fault, getattr(owner, name)))
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert fault.raised, f"the {step} step was not reached for the victim"
        assert rep.failed == 1 and rep.added == len(OTHERS)
        rows = {Path(p).name: (s, e) for p, s, e in
                lib.store.conn.execute("SELECT path, status, error FROM files")}
        assert rows[victim][0] == "failed"
        assert rows[victim][1] == "internal error: RuntimeError: injected fault on two lines"  # one line
        assert all(rows[n][0] == "indexed" for n in OTHERS)
        assert {Path(p).name for p, _, _ in lib.status().failed} == {victim}
        fault.armed = False  # the cause is gone: the next sync reads the file again, unchanged on disk
        again = lib.sync(embed=False)
        assert again.failed == 0 and again.updated == 1 and again.unchanged == len(OTHERS)
        assert lib.store.file_by_path(str(docs / victim)).status == "indexed"
        assert not lib.status().failed


def test_an_encode_that_raises_for_one_files_passages_fails_that_file_only(tmp_path, tiny_bi_encoder_dir,
                                                                           tiny_encoder, monkeypatch):
    """The embed step is per batch: a batch whose encode raises is encoded again input by input, and only the
    file whose passages raise alone is failed (its passages dropped, so none waits forever)."""
    docs = _folder(tmp_path, "victim.txt")
    fault = Fault()
    monkeypatch.setattr(tiny_encoder, "encode", _wrap(fault, tiny_encoder.encode))
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        assert fault.raised >= 2  # the batch, then the victim's passage alone
        victim = lib.store.file_by_path(str(docs / "victim.txt"))
        assert victim.status == "failed" and victim.n_chunks == 0
        assert victim.error == "cannot embed: internal error: RuntimeError: injected fault on two lines"
        assert lib.store.pending_count() == 0  # every other passage has its vector
        assert all(lib.store.file_by_path(str(docs / n)).status == "indexed" for n in OTHERS)
        assert any(Path(h.path).name == "glacier.html" for h in lib.search("falcon glacier quartz", mode="dense").hits)
        fault.armed = False
        again = lib.sync()
        assert again.failed == 0 and again.updated == 1
        assert lib.store.file_by_path(str(docs / "victim.txt")).status == "indexed"
        assert lib.store.pending_count() == 0


def test_a_pdf_whose_text_holds_a_lone_surrogate_indexes_with_its_folder(tmp_path, tiny_bi_encoder_dir,
                                                                         tiny_encoder, monkeypatch):
    """Issue 39: such a PDF raised UnicodeEncodeError in the tokenizer and stopped every sync of its folder. Its
    text is made valid Unicode where it enters (extract()): U+FFFD in place of the surrogate, same length."""
    from pdf_files import lone_surrogate_pdf

    from searchapp.ingest.extractors import extract

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = _folder(tmp_path, "victim.txt")
    lone_surrogate_pdf(docs / "lone.pdf", "Tundra quartz lantern beside the harbor")
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
        assert rep.failed == 0 and rep.added == len(OTHERS) + 2
        pdf = lib.store.file_by_path(str(docs / "lone.pdf"))
        assert pdf.status == "indexed" and pdf.n_chunks == 1
        assert lib.store.pending_count() == 0
        for words, name in (("tundra quartz lantern", "lone.pdf"), ("cedar orchard autumn", "orchard.md"),
                            (MARK, "victim.txt")):
            assert Path(lib.search(words, mode="lexical").hits[0].path).name == name
    text = extract(docs / "lone.pdf").text
    assert "\ud862" not in text and text.startswith("A\ufffd")  # the reader gave a surrogate; it was replaced


WORKER_FAULTS = Path(__file__).resolve().parents[2] / "worker_faults"


def worker_corpus(folder: Path, n: int = 24) -> Path:
    """`n` small text files, the third of them (in the sync's order) the victim."""
    folder.mkdir(parents=True)
    for i in range(n):
        name = f"doc{i:02d}-victim.txt" if i == 2 else f"doc{i:02d}.txt"
        (folder / name).write_text(f"Document {i}: {' '.join(OTHERS.values())} number{i}", encoding="utf-8")
    return folder


def with_worker(monkeypatch, fault: str) -> list:
    """Read-ahead on for a small folder (groups of 4), the worker faulty as `fault` says; the ReadAheads made."""
    from searchapp.library.sync import read_ahead

    monkeypatch.setattr(words_pass, "MIN_FILES", 1)
    monkeypatch.setattr(read_ahead, "GROUP", 4)
    monkeypatch.setattr(words_pass, "usable_cores", lambda: 2)
    monkeypatch.setattr(words_pass, "second_core_free", lambda since: True)
    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(WORKER_FAULTS), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("SEARCHAPP_TEST_WORKER_FAULT", fault)
    made: list = []

    class Started(read_ahead.ReadAhead):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.wait_started(60)  # so that the worker, not the sync, reads the files after the first
            made.append(self)

    monkeypatch.setattr(words_pass, "ReadAhead", Started)
    return made


def test_a_file_that_raises_in_the_read_ahead_worker_fails_there_and_the_worker_goes_on(
        tmp_path, tiny_bi_encoder_dir, tiny_encoder, monkeypatch):
    docs = worker_corpus(tmp_path / "docs")
    made = with_worker(monkeypatch, "raise")
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert len(made) == 1 and made[0].stats["worker"] > 4  # the worker read the victim's group and more
        assert rep.failed == 1 and rep.added == 23
        victim = lib.store.file_by_path(str(docs / "doc02-victim.txt"))
        # failed in the worker, and not read again by the sync (where the fault is not: it would be indexed)
        assert (victim.status, victim.error) == ("failed", "internal error: RuntimeError: injected fault in the worker")
        monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")  # the next sync, in-process: the fault is gone
        assert lib.sync(embed=False).updated == 1
        assert lib.store.file_by_path(str(docs / "doc02-victim.txt")).status == "indexed"


def _bundle_with_victim(tmp_path: Path) -> Path:
    """docs/bundle.zip: the other files as members, and a victim member holding MARK."""
    import zipfile

    docs = tmp_path / "docs"
    docs.mkdir()
    with zipfile.ZipFile(docs / "bundle.zip", "w") as z:
        for name, text in OTHERS.items():
            z.writestr(name, text)
        z.writestr("victim.txt", f"The {MARK} keeps its marble prism.")
    return docs


def test_a_member_that_raises_fails_alone_and_its_container_and_siblings_index(tmp_path, tiny_bi_encoder_dir,
                                                                               tiny_encoder, monkeypatch):

    from searchapp.library.sync import members as members_sync

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = _bundle_with_victim(tmp_path)
    fault = Fault()
    real = members_sync.extract

    def extract(path, *a, **kw):  # members are read from a private copy: the victim is known by its bytes
        fault.check(MARK.encode() in Path(path).read_bytes())
        return real(path, *a, **kw)

    monkeypatch.setattr(members_sync, "extract", extract)
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert fault.raised == 1 and rep.failed == 1
        rows = {p.rsplit("/", 1)[-1]: (s, e) for p, s, e in lib.store.conn.execute("SELECT path, status, error FROM files")}
        assert rows["victim.txt"] == ("failed", "internal error: RuntimeError: injected fault on two lines")
        assert all(rows[n][0] == "indexed" for n in OTHERS) and rows["bundle.zip"][0] == "indexed"


def test_a_file_past_its_budget_in_the_worker_kills_it_and_the_sync_goes_on(tmp_path, tiny_bi_encoder_dir,
                                                                           tiny_encoder, monkeypatch):
    """Issue 40: the worker hangs on the victim where no token is checked (like pdfium's C code); past the
    budget it is killed, the victim is listed "took too long", a new worker reads on. The budget is 10 s: the
    victim hangs for ever, and an ordinary file's first read in a freshly spawned worker (lazy imports) can take
    over 1 s on a loaded 2-core machine, which killed a worker that was not stuck."""
    docs = worker_corpus(tmp_path / "docs")
    made = with_worker(monkeypatch, "hang")
    config = tiny_config(tmp_path / "library", tiny_bi_encoder_dir, scan={"file_budget_s": 10.0})
    with Library(config, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert len(made) == 1 and made[0].restarts == 1 and not made[0].alive
        assert rep.failed == 1 and rep.added == 23
        victim = lib.store.file_by_path(str(docs / "doc02-victim.txt"))
        assert (victim.status, victim.error) == ("failed", "took too long (10 s)")
        assert [Path(p).name for p, _, _ in lib.status().failed] == ["doc02-victim.txt"]
        assert Path(lib.search("number23", mode="lexical").hits[0].path).name == "doc23.txt"


def test_a_worker_that_ends_halfway_through_sending_a_result_does_not_hang_the_sync(
        tmp_path, tiny_bi_encoder_dir, tiny_encoder, monkeypatch):
    """A worker killed while it sent a result leaves half a message in the pool's pipe: the pool's own thread
    waits for the rest for ever and never says the pool is broken, and the sync waited with it (seen once in ~40
    busy runs of test_a_killed_worker_loses_nothing). Here the worker does exactly that on the victim, every time:
    the sync sees the process gone and reads the rest itself."""
    import threading

    docs = worker_corpus(tmp_path / "docs")
    made = with_worker(monkeypatch, "half_message")
    got: dict = {}

    def sync() -> None:
        with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
            got["report"] = lib.add_folder(docs, embed=False)
            got["victim"] = lib.store.file_by_path(str(docs / "doc02-victim.txt")).status

    t = threading.Thread(target=sync, daemon=True)
    t.start()
    t.join(timeout=120)
    assert not t.is_alive(), "the sync waited for the rest of a message from a worker that had ended"
    assert len(made) == 1 and not made[0].alive
    rep = got["report"]
    assert (rep.added, rep.failed, got["victim"]) == (24, 0, "indexed")  # the worker's files read in-process


def test_a_file_past_its_budget_in_process_stops_at_its_extractors_next_check(tmp_path, tiny_bi_encoder_dir,
                                                                             tiny_encoder, monkeypatch):
    """Without the worker, the extraction's cancel token fires once the budget is spent: an extractor that
    checks it between pages (here one that would go on for ever) stops there."""
    from searchapp.ingest.extractors import registry

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = _folder(tmp_path, "victim.txt")
    real, checks = registry.extract, []

    def endless(path, *a, cancel=None, **kw):
        while "victim" in str(path):  # page after page, each checking the token as extractors do
            checks.append(1)
            cancel.check()
        return real(path, *a, cancel=cancel, **kw)

    monkeypatch.setattr(words_pass, "extract", endless)
    config = tiny_config(tmp_path / "library", tiny_bi_encoder_dir, scan={"file_budget_s": 0.5})
    with Library(config, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert checks and rep.failed == 1 and rep.added == len(OTHERS)
        victim = lib.store.file_by_path(str(docs / "victim.txt"))
        assert (victim.status, victim.error) == ("failed", "took too long (0.5 s)")


@pytest.mark.skipif(not __import__("importlib").util.find_spec("rapidocr"), reason="the ocr extra is not installed")
def test_ocr_that_raises_for_one_image_fails_that_image_only(tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                            monkeypatch):
    from scan_files import OCR_ENGINE, text_image

    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.library.ocr import step

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    monkeypatch.setenv(ENGINE_ENV, OCR_ENGINE)
    docs = _folder(tmp_path, "notes.txt")
    text_image(["Lighthouse keeper log"]).save(docs / "scan.png")
    text_image(["November storm warning"]).save(docs / "victim.png")
    fault = Fault()
    monkeypatch.setattr(step, "ocr_document", _wrap(fault, step.ocr_document))
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert fault.raised == 1 and rep.failed == 1
        victim = lib.store.file_by_path(str(docs / "victim.png"))
        assert (victim.status, victim.error) == ("failed", "internal error: RuntimeError: injected fault on two lines")
        assert Path(lib.search("lighthouse", mode="lexical").hits[0].path).name == "scan.png"
        fault.armed = False
        lib.sync(embed=False)
        assert lib.store.file_by_path(str(docs / "victim.png")).status == "indexed"


def test_a_member_past_its_budget_fails_alone(tmp_path, tiny_bi_encoder_dir, tiny_encoder, monkeypatch):
    """Each member of a container has a file's budget: one whose extraction goes on and on is listed "took too
    long", its container and siblings are indexed."""

    from searchapp.library.sync import members as members_sync

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = _bundle_with_victim(tmp_path)
    real = members_sync.extract

    def endless(path, *a, cancel=None, **kw):
        while MARK.encode() in Path(path).read_bytes():  # page after page, checking the token
            cancel.check()
        return real(path, *a, cancel=cancel, **kw)

    monkeypatch.setattr(members_sync, "extract", endless)
    config = tiny_config(tmp_path / "library", tiny_bi_encoder_dir, scan={"file_budget_s": 0.5})
    with Library(config, encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs, embed=False)
        assert rep.failed == 1
        rows = {p.rsplit("/", 1)[-1]: (s, e) for p, s, e in lib.store.conn.execute("SELECT path, status, error FROM files")}
        assert rows["victim.txt"] == ("failed", "took too long (0.5 s)")
        assert all(rows[n][0] == "indexed" for n in OTHERS) and rows["bundle.zip"][0] == "indexed"


def test_a_vector_index_that_raises_after_a_batch_is_stored_stops_the_sync(tmp_path, tiny_bi_encoder_dir,
                                                                         tiny_encoder, monkeypatch):
    """The vector index is the library's, not a file's: what it raises once a batch is committed stops the sync
    with that error. Before, the batch was "stored again one by one" (its rows deleted and written anew) and
    every file of it was listed failed with an "internal error"."""
    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = _folder(tmp_path, "victim.txt")
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)  # embedded: a copy's passages get their stored vectors in phase 1 (index.add)
        for name, text in OTHERS.items():
            (docs / f"copy-{name}").write_text(text, encoding="utf-8")
        calls = []

        def broken(ids, vectors):
            calls.append(len(ids))
            raise RuntimeError("vector index broken")

        monkeypatch.setattr(lib.vectors, "add", broken)
        with pytest.raises(RuntimeError, match="vector index broken"):
            lib.sync(embed=False)
        assert calls == [sum(1 for _ in OTHERS)]  # one batch, published once: not again file by file
        rows = dict(lib.store.conn.execute("SELECT path, status FROM files").fetchall())
        assert len(rows) == 2 * len(OTHERS) + 1 and set(rows.values()) == {"indexed"}  # none listed failed
        assert all(lib.store.file_by_path(str(docs / f"copy-{n}")).n_chunks == 1 for n in OTHERS)


def test_an_encoder_that_raises_for_every_input_stops_the_sync_and_fails_no_file(tmp_path, tiny_bi_encoder_dir,
                                                                                 tiny_encoder, monkeypatch):
    """A broken encoder (a GPU, a driver) raises for each input alone too: that is not the files' doing. The
    sync stops with its error and every passage waits for the next one; before, every file of the batch was
    failed and its passages dropped, one batch after the other: the whole backlog emptied."""
    docs = _folder(tmp_path, "victim.txt")
    calls = []

    def broken(texts, **kw):
        calls.append(len(texts))
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(tiny_encoder, "encode", broken)
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        with pytest.raises(RuntimeError, match="illegal memory access"):
            lib.add_folder(docs)
        assert calls and max(calls) > 1  # a batch of several inputs was tried
        rows = lib.store.conn.execute("SELECT status, n_chunks FROM files").fetchall()
        assert len(rows) == len(OTHERS) + 1 and {s for s, _ in rows} == {"indexed"}
        assert lib.store.pending_count() == lib.store.chunk_count() == len(OTHERS) + 1  # none dropped


@pytest.mark.parametrize("error,reason", [
    ("struct", "internal error: error: unpack requires a buffer of 30 bytes"),
    ("os", "cannot read container: Bad CRC-32 for file b.txt"),  # one line, as every reason
])
def test_a_container_that_raises_halfway_keeps_the_members_met_and_fails_alone(tmp_path, tiny_bi_encoder_dir,
                                                                              tiny_encoder, monkeypatch, error, reason):
    """A container whose reading raises after its first member (a struct.error from a damaged zip's next header)
    is listed failed; the member already met is kept, not purged as vanished (and counted once)."""
    import struct
    import zipfile

    from searchapp.base.member_paths import member_key
    from searchapp.library.sync import members as members_sync

    monkeypatch.setenv("SEARCHAPP_NO_READ_AHEAD", "1")
    docs = tmp_path / "docs"
    docs.mkdir()
    names = list(OTHERS)[:2]
    key = member_key(str(docs / "bundle.zip"), names[0])

    def bundle(second: str) -> None:
        with zipfile.ZipFile(docs / "bundle.zip", "w") as z:
            z.writestr(names[0], OTHERS[names[0]])
            z.writestr(names[1], second)

    bundle(OTHERS[names[1]])
    with Library(tiny_config(tmp_path / "library", tiny_bi_encoder_dir), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        first = lib.store.file_by_path(key)
        assert first is not None and first.status == "indexed"
        bundle(OTHERS[names[1]] + " A second edition.")  # the container changed: read again
        real = members_sync.iter_members

        def broken(*a, **kw):
            it = real(*a, **kw)
            yield next(it)
            raise struct.error("unpack requires a buffer of 30 bytes") if error == "struct" else OSError(
                "Bad CRC-32\nfor file b.txt")

        monkeypatch.setattr(members_sync, "iter_members", broken)
        rep = lib.sync(embed=False)
        row = lib.store.file_by_path(str(docs / "bundle.zip"))
        assert (row.status, row.error) == ("failed", reason)
        kept = lib.store.file_by_path(key)
        assert kept is not None and kept.id == first.id and kept.status == "indexed"
        assert (rep.scanned, rep.unchanged, rep.failed, rep.added, rep.updated) == (2, 1, 1, 0, 0)
        assert rep.removed == 1  # only the member not reached
