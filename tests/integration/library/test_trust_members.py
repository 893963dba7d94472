"""Trust, containers: a gzip bomb inside a .tar.gz costs one capped pass (a sync, an OCR read, an Open), and
Open reads only the member it opens."""

from __future__ import annotations

import gzip
import io
import random
import zipfile

import pytest

from hostile_archives import bomb_tar_gz
from searchapp.base.member_paths import MEMBER_SEP, split_member
from searchapp.ingest.extractors.members import iter_members, read_member
from searchapp.ingest.extractors.ziputil import MAX_TOTAL_BYTES, SafeZip

NOTE = b"Pelicans nest on the quiet northern shore.\n"
LATE = b"The lighthouse keeper logs every passing ship.\n"


@pytest.fixture
def inflated(monkeypatch):
    """Bytes gzip hands out in this test (tarfile and our walk both read through gzip.GzipFile)."""
    count = [0]
    real = gzip.GzipFile.read

    def counting(self, size=-1):
        data = real(self, size)
        count[0] += len(data)
        return data

    monkeypatch.setattr(gzip.GzipFile, "read", counting)
    return count


def test_a_gzip_bomb_in_a_tar_gz_stops_the_pass_at_the_containers_cap(tmp_path, inflated):
    archive = bomb_tar_gz(tmp_path / "bomb.tar.gz", 400, {"note.txt": NOTE}, {"late.txt": LATE})
    assert archive.stat().st_size < 2**20  # 400 MiB of zeros in under a MB
    members = list(iter_members(archive, 50 * 2**20))
    assert [(m.name, m.data) for m in members[:2]] == [("note.txt", NOTE), ("bomb.bin", None)]
    assert "too large" in members[1].reason
    # Skipping bomb.bin would mean inflating 400 MiB: the walk stops at its header instead, and says so.
    assert [m.name for m in members[2:]] == ["…"] and "rest of the archive not read" in members[2].reason
    assert inflated[0] <= MAX_TOTAL_BYTES
    assert inflated[0] < 2**20  # nothing of the bomb was inflated: its header alone said it was too far

    inflated[0] = 0
    assert read_member(str(archive) + MEMBER_SEP + "note.txt", 50 * 2**20).data == NOTE
    with pytest.raises(Exception, match="no longer in its container"):
        read_member(str(archive) + MEMBER_SEP + "late.txt", 50 * 2**20)  # never indexed, never read
    assert inflated[0] < 2**20


def test_a_bomb_under_the_cap_is_inflated_once_and_the_next_one_is_not(tmp_path, inflated):
    """Skipped bodies count against the pass: two 150 MiB bombs cost at most the cap, not 300 MiB."""
    import tarfile

    path = tmp_path / "two.tar.gz"
    with tarfile.open(path, "w:gz", compresslevel=1) as t:
        for name, size in (("a.bin", 150 * 2**20), ("b.bin", 150 * 2**20)):
            info = tarfile.TarInfo(name)
            info.size = size
            t.addfile(info, io.BytesIO(bytes(size)))
        info = tarfile.TarInfo("late.txt")
        info.size = len(LATE)
        t.addfile(info, io.BytesIO(LATE))
    members = list(iter_members(path, 50 * 2**20))
    assert [m.name for m in members] == ["a.bin", "b.bin", "…"]
    assert inflated[0] <= MAX_TOTAL_BYTES


def test_a_huge_pax_header_is_refused_without_being_read_into_memory(tmp_path, inflated):
    """tarfile reads a pax or GNU long-name header whole: one claiming 1 GiB must not be."""
    import tarfile

    head = tarfile.TarInfo("././@PaxHeader")
    head.type, head.size = tarfile.XHDTYPE, 2**30
    path = tmp_path / "pax.tar.gz"
    with open(path, "wb") as fh:
        fh.write(gzip.compress(head.tobuf(format=tarfile.USTAR_FORMAT)))
        zeros = gzip.compress(bytes(16 * 2**20), compresslevel=9)
        for _ in range(64):
            fh.write(zeros)
    from searchapp.base.errors import ExtractionError

    with pytest.raises(ExtractionError):
        list(iter_members(path, 50 * 2**20))
    assert inflated[0] <= MAX_TOTAL_BYTES


def test_open_inflates_only_the_member_it_opens(tmp_path, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(5):  # ~2.7 MB of words each, compressing like prose (a bomb is never inflated)
            rng = random.Random(i)
            z.writestr(f"big{i}.txt", " ".join(f"w{rng.randrange(10**6)}" for _ in range(400_000)).encode()[:2_700_000])
        z.writestr("wanted.txt", LATE)
    (tmp_path / "a.zip").write_bytes(buf.getvalue())
    read = []
    real = SafeZip.read
    monkeypatch.setattr(SafeZip, "read", lambda self, name: read.append(name) or real(self, name))
    assert read_member(str(tmp_path / "a.zip") + MEMBER_SEP + "wanted.txt", 50 * 2**20).data == LATE
    assert read == ["wanted.txt"]
    # The budget still counts the members passed over, so Open reads exactly what the sync indexed.
    for only in (None, "wanted.txt"):
        got = {m.name: m for m in iter_members(tmp_path / "a.zip", 50 * 2**20, max_total=2_700_010, only=only)}
        assert got["wanted.txt"].data is None and "budget" in got["wanted.txt"].reason, only


# -- similar on a member, names holding the separator, refused names ----------------------------------------------
def _zip_bytes(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_similar_takes_a_member_as_shown_and_as_its_key(tiny_library, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.zip").write_bytes(_zip_bytes({"sea/birds.txt": b"Pelicans and gulls nest on the northern shore.\n"}))
    (docs / "shore.txt").write_text("Gulls and pelicans nest along the quiet northern shore.\n")
    (docs / "engines.txt").write_text("Diesel engines need their oil changed every season.\n")
    tiny_library.add_folder(docs)
    key = str(docs / "notes.zip") + MEMBER_SEP + "sea/birds.txt"
    monkeypatch.chdir(docs)
    for typed in (str(docs / "notes.zip") + " › sea/birds.txt", key, "notes.zip//sea/birds.txt",
                  "notes.zip › sea/birds.txt"):
        res = tiny_library.similar(typed, k=5)
        assert res.query == key, typed
        assert str(docs / "shore.txt") in {h.path for h in res.hits} and key not in {h.path for h in res.hits}, typed


def test_a_member_named_with_the_separator_is_not_shown_as_a_nested_member(tiny_library, tmp_path):
    from searchapp.base.member_paths import display_path, key_of

    docs = tmp_path / "docs"
    docs.mkdir()
    inner = _zip_bytes({"fake.txt": b"The real nested member talks about lighthouses.\n"})
    (docs / "outer.zip").write_bytes(_zip_bytes({"inner.zip": inner,
                                                  "inner.zip › fake.txt": b"A forged name about lighthouses.\n"}))
    tiny_library.add_folder(docs)
    paths = {h.path for h in tiny_library.search("lighthouses", mode="lexical").hits}
    nested = str(docs / "outer.zip") + MEMBER_SEP + "inner.zip" + MEMBER_SEP + "fake.txt"
    forged = str(docs / "outer.zip") + MEMBER_SEP + "inner.zip › fake.txt"
    assert paths == {nested, forged}
    shown = {display_path(p) for p in paths}
    assert len(shown) == 2, shown  # two members, told apart where people read them
    assert display_path(forged).endswith("outer.zip › inner.zip \\› fake.txt")
    assert all(key_of(display_path(p)) == p for p in paths)  # and typed back (explain, similar) to the right one
    assert tiny_library.similar(display_path(forged), k=3).query == forged


def test_refused_names_are_stored_cleaned(tiny_library, tmp_path):
    import json
    import tarfile

    docs = tmp_path / "docs"
    docs.mkdir()
    with tarfile.open(docs / "evil.tar.gz", "w:gz") as t:
        for name, data in (("../../../../tmp/escape.txt", b"out"), ("/etc/cron.d/job", b"out"),
                           ("fine.txt", b"Pelicans nest here.\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    rep = tiny_library.add_folder(docs)
    keys = [p for p, _ in rep.problems if p.startswith(str(docs / "evil.tar.gz") + MEMBER_SEP)]
    members = sorted(k.split(MEMBER_SEP, 1)[1] for k in keys)
    assert members == ["etc/cron.d/job (name refused)", "tmp/escape.txt (name refused)"], members
    reasons = dict(rep.problems)  # the raw name only in the reason, quoted
    assert "'../../../../tmp/escape.txt'" in reasons[str(docs / "evil.tar.gz") + MEMBER_SEP + members[1]]
    stored = [r[0] for r in tiny_library.store.conn.execute("SELECT path FROM files")]
    members_stored = [split_member(p)[1] for p in stored if split_member(p)[1] is not None]
    assert not [m for m in members_stored if ".." in m.split("/") or m.startswith("/")], members_stored
    shown = json.loads(json.dumps(tiny_library.status().to_json()))
    paths = [v for v in _strings(shown, "path")] + [v for v in _strings(shown, "member")]
    assert not [p for p in paths if "../" in p]


def _strings(obj, field: str):
    """Every string under `field` anywhere in a JSON value."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == field and isinstance(v, str):
                yield v
            else:
                yield from _strings(v, field)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, field)


def test_a_member_swapped_with_the_containers_size_and_mtime_kept_is_read_again(tiny_library, tmp_path,
                                                                                monkeypatch):
    """The OCR step finds other bytes than those indexed and says the next sync reads it again: it must."""
    import hashlib
    import os
    import tarfile

    from searchapp.base.types import Document
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.store.ledger import files_in_state
    from searchapp.store.ocr_cache import OcrCache

    from searchapp.library.sync import words_pass

    monkeypatch.setenv(ENGINE_ENV, "none")  # no engine: the OCR text comes from the cache below
    # Where size and mtime are all the sync knows (a filesystem without ctimes, a row from before decision 0150):
    # else the sync itself sees the archive's new ctime and reads it again before the OCR step runs.
    monkeypatch.setattr(words_pass, "changed_in_place", lambda stored, now: False)
    docs = tmp_path / "docs"
    docs.mkdir()
    archive = docs / "scans.tar"
    first, second = b"\x89PNG first scan " + bytes(64), b"\x89PNG other scan " + bytes(64)
    assert len(first) == len(second)

    def write(png: bytes) -> None:
        with tarfile.open(archive, "w", format=tarfile.USTAR_FORMAT) as t:
            info = tarfile.TarInfo("scan.png")
            info.size, info.mtime = len(png), 1_700_000_000
            t.addfile(info, io.BytesIO(png))

    write(first)
    tiny_library.add_folder(docs)  # no engine, nothing cached: the scan waits for OCR
    key = str(archive) + MEMBER_SEP + "scan.png"

    def state() -> str:
        return next(s for s, r in files_in_state(tiny_library.store) if r.path == key)

    assert state() == "ocr_pending"
    st = archive.stat()
    write(second)  # the same size; the archive's mtime put back
    os.utime(archive, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert archive.stat().st_size == st.st_size
    cache = OcrCache(tiny_library.data_dir)
    for png, text in ((first, "Lighthouse keeper log"), (second, "November storm warning")):
        cache.put(hashlib.sha256(png).hexdigest(), "test", Document(text, kind="ocr"))
    cache.close()
    tiny_library.sync()  # the OCR step reads the member again: other bytes than indexed
    assert state() == "failed"
    tiny_library.sync()  # "the next sync reads it again"
    assert state() == "ocr_done"
    assert [h.path for h in tiny_library.search("storm warning", mode="lexical").hits] == [key]


# -- members' private copies a killed process left behind ----------------------------------------------------------
_OPEN_AND_DIE = """
import os, sys
from searchapp.library.members.private_copy import open_copy
copy = open_copy(sys.argv[1])
print(copy, flush=True)
if sys.argv[2] == "kill":
    os.kill(os.getpid(), 9)
"""


def test_private_copies_of_a_killed_process_are_removed_by_the_next_one(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.zip").write_bytes(_zip_bytes({"secret.txt": b"the vault code is 4711\n"}))
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    key = str(docs / "a.zip") + MEMBER_SEP + "secret.txt"
    for signal_name in ("kill", "term"):
        args = [sys.executable, "-c", _OPEN_AND_DIE, key, "kill" if signal_name == "kill" else "wait"]
        if signal_name == "kill":
            out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
            copy = Path(out.stdout.strip())
        else:  # SIGTERM while it runs: atexit never runs either
            proc = subprocess.Popen([sys.executable, "-c", _OPEN_AND_DIE.replace('if sys.argv[2] == "kill"',
                                     'import time; time.sleep(600)\nif False'), key, "wait"],
                                    env=env, stdout=subprocess.PIPE, text=True)
            copy = Path(proc.stdout.readline().strip())
            proc.terminate()
            proc.wait(60)
        assert copy.read_bytes() == b"the vault code is 4711\n" and copy.is_relative_to(temp), signal_name
        live = subprocess.run([sys.executable, "-c", _OPEN_AND_DIE, key, "exit"], env=env, capture_output=True,
                              text=True, timeout=120)
        assert live.returncode == 0, live.stderr
        assert not copy.exists(), signal_name  # the next process took the dead one's copy away
        assert not list(temp.iterdir()), list(temp.iterdir())  # and its own went at exit
