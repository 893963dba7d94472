"""Trust, containers: a gzip bomb inside a .tar.gz costs one capped pass (a sync, an OCR read, an Open), and
Open reads only the member it opens."""

from __future__ import annotations

import gzip
import io
import random
import zipfile

import pytest

from hostile_archives import bomb_tar_gz
from searchapp.base.member_paths import MEMBER_SEP
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
        for i in range(5):  # ~2.7 MB of words each, compressing like prose (a zip bomb is refused whole)
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
