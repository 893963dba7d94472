"""Members of containers (zip, tar.gz, mbox, mail attachments) indexed as entries of their own."""

from __future__ import annotations

import io
import json
import os
import random
import tarfile
import time
import zipfile
from email.message import EmailMessage
from pathlib import Path
from typing import Optional

import pytest

from searchapp.base.errors import ConfigError
from searchapp.base.member_paths import (DISPLAY_SEP, MEMBER_SEP, display_folder, display_name, display_path,
                                         split_member)
from searchapp.ingest.extractors.members import MAX_DEPTH, iter_members
from searchapp.ingest.extractors.ziputil import MAX_MEMBERS as ZIP_MAX_MEMBERS, RATIO_FLOOR


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def _mail(subject: str, body: str, date: str = "Tue, 02 Jan 2018 10:00:00 +0000",
          attachments: Optional[dict[str, bytes]] = None) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"], msg["Date"] = subject, "ann@example.org", "bob@example.org", date
    msg.set_content(body)
    for name, data in (attachments or {}).items():
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg


def _mbox(messages: list[EmailMessage]) -> bytes:
    return b"".join(b"From ann@example.org Tue Jan  2 10:00:00 2018\n" + m.as_bytes().replace(b"\nFrom ", b"\n>From ")
                    + b"\n" for m in messages)


def _tar_gz(entries: dict[str, bytes], links: Optional[dict[str, str]] = None, mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            t.addfile(info)
    return buf.getvalue()


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    inner = _zip({"deep/note.txt": b"The inner quokka census counted seventeen animals.\n"})
    (d / "archive.zip").write_bytes(_zip({
        "folder/report.txt": b"The heliotrope budget overran by four percent.\n",
        "inner.zip": inner,
        "empty/": b"",
    }))
    (d / "bundle.tar.gz").write_bytes(_tar_gz({"notes/tarred.md": b"# Tarred\n\nMarmalade recipes from the tarball.\n"},
                                              links={"notes/evil": "/etc/passwd"}))
    (d / "mailbox.mbox").write_bytes(_mbox([
        _mail("Picnic plans", "Bring the gazpacho on Saturday.", "Tue, 02 Jan 2018 10:00:00 +0000"),
        _mail("Quarterly figures", "Revenue of the walrus division rose.", "Wed, 15 Jun 2022 09:00:00 +0000",
              attachments={"summary.txt": b"Attached summary about narwhal tusks.\n"}),
    ]))
    (d / "letter.eml").write_bytes(_mail("Invoice", "Please find the invoice attached.",
                                         attachments={"invoice.txt": b"Invoice for saffron delivery.\n"}).as_bytes())
    return d


def _names(res):
    return [h.path for h in res.hits]


def test_members_are_entries_found_by_lexical_search(tiny_library, docs):
    rep = tiny_library.add_folder(docs)
    assert rep.failed == 0, rep.problems
    z = str(docs / "archive.zip")
    hit = tiny_library.search("heliotrope budget", mode="lexical").hits[0]
    assert hit.path == z + MEMBER_SEP + "folder/report.txt"
    assert split_member(hit.path) == (z, "folder/report.txt")
    assert display_path(hit.path) == z + DISPLAY_SEP + "folder/report.txt"
    assert (display_name(hit.path), display_folder(hit.path)) == ("archive.zip" + DISPLAY_SEP + "folder/report.txt",
                                                                  str(docs))
    nested = z + MEMBER_SEP + "inner.zip" + MEMBER_SEP + "deep/note.txt"
    assert display_name(nested) == DISPLAY_SEP.join(["archive.zip", "inner.zip", "deep/note.txt"])
    assert (display_name(z), display_folder(z)) == ("archive.zip", str(docs))
    # a zip inside the zip is read (depth 2)
    assert _names(tiny_library.search("quokka census", mode="lexical"))[0] == z + MEMBER_SEP + "inner.zip" + MEMBER_SEP + "deep/note.txt"
    assert _names(tiny_library.search("marmalade tarball", mode="lexical"))[0] == str(docs / "bundle.tar.gz") + MEMBER_SEP + "notes/tarred.md"
    mbox = str(docs / "mailbox.mbox")
    assert _names(tiny_library.search("walrus division", mode="lexical"))[0] == mbox + MEMBER_SEP + "2: Quarterly figures"
    assert _names(tiny_library.search("narwhal tusks", mode="lexical"))[0] == (
        mbox + MEMBER_SEP + "2: Quarterly figures" + MEMBER_SEP + "summary.txt")
    assert _names(tiny_library.search("saffron delivery", mode="lexical"))[0] == str(docs / "letter.eml") + MEMBER_SEP + "invoice.txt"
    # the symlink member of the tar is skipped with a reason, nothing followed
    problems = dict(rep.problems)
    assert "symlink" in problems[str(docs / "bundle.tar.gz") + MEMBER_SEP + "notes/evil"]


def test_type_and_date_filters_use_the_members_own_type_and_date(tiny_library, docs):
    tiny_library.add_folder(docs)
    from searchapp.library.query.filters import SearchFilters

    res = tiny_library.search("heliotrope budget", mode="lexical", filters=SearchFilters.build(types=["txt"]))
    assert res.hits and res.hits[0].path.endswith("folder/report.txt")
    res = tiny_library.search("heliotrope budget", mode="lexical", filters=SearchFilters.build(types=["md"]))
    assert not any(h.path.endswith("report.txt") for h in res.hits)
    old = SearchFilters.build(before="2019-01-01")  # the files are new; only the 2018 message is older
    found = _names(tiny_library.search("gazpacho walrus", mode="lexical", filters=old))
    assert found and all(p.endswith("1: Picnic plans") for p in found)


def test_member_removed_when_container_changes_or_goes(tiny_library, docs):
    tiny_library.add_folder(docs)
    z = docs / "archive.zip"
    z.write_bytes(_zip({"other.txt": b"Only tangerines remain here.\n"}))
    os.utime(z, ns=(time.time_ns(), time.time_ns() + 10**9))
    rep = tiny_library.sync()
    assert not tiny_library.search("heliotrope", mode="lexical").hits
    assert _names(tiny_library.search("tangerines", mode="lexical"))[0] == str(z) + MEMBER_SEP + "other.txt"
    assert rep.removed >= 2  # report.txt and the inner zip's note
    again = tiny_library.sync()  # an unchanged container keeps its members
    assert again.removed == 0 and tiny_library.search("tangerines", mode="lexical").hits
    z.unlink()
    tiny_library.sync()
    assert not tiny_library.search("tangerines", mode="lexical").hits


@pytest.mark.engines("sqlite")
def test_a_member_emptied_in_a_changed_archive_loses_its_passages(tiny_library, tmp_path):
    """An empty member is recorded "empty" (decision 0177) without a hash: its old row, indexed, must not be kept as
    if the same empty entry had been recorded already (its old text stayed searchable, its state "indexed")."""
    docs = tmp_path / "docs"
    docs.mkdir()
    z = docs / "a.zip"
    z.write_bytes(_zip({"notes.txt": b"The heliotrope budget overran by four percent.\n", "b.txt": b"Tangerines.\n"}))
    tiny_library.add_folder(docs, embed=False)
    assert tiny_library.search("heliotrope", mode="lexical").hits
    z.write_bytes(_zip({"notes.txt": b"", "b.txt": b"Tangerines and lemons.\n"}))
    os.utime(z, ns=(time.time_ns(), time.time_ns() + 10**9))
    tiny_library.sync(embed=False)
    assert not tiny_library.search("heliotrope", mode="lexical").hits
    assert tiny_library.explain(str(z) + MEMBER_SEP + "notes.txt")["state"] == "empty"


def test_hostile_archives_are_capped_with_reasons(tmp_path):
    # path traversal, absolute names and a symlink in a tar: refused, never followed
    evil = tmp_path / "evil.tar.gz"
    evil.write_bytes(_tar_gz({"../../x.txt": b"escape", "/etc/abs.txt": b"absolute", "ok.txt": b"fine"},
                             links={"link.txt": "/etc/passwd"}))
    got = {m.name: m for m in iter_members(evil, 2**20)}
    assert got["ok.txt"].data == b"fine"
    reasons = [m.reason for m in got.values() if m.data is None]
    assert any("traversal" in r for r in reasons) and any("absolute" in r for r in reasons)
    assert any("symlink" in r for r in reasons)
    assert not (tmp_path.parent / "x.txt").exists() and not (tmp_path / "x.txt").exists()
    # nesting: zip in zip in zip -> the third level is skipped with a reason
    lvl3 = _zip({"c.txt": b"three"})
    lvl2 = _zip({"b.zip": lvl3, "b.txt": b"two"})
    outer = tmp_path / "outer.zip"
    outer.write_bytes(_zip({"a.zip": lvl2}))
    got = {m.name: m for m in iter_members(outer, 2**20)}
    assert got["a.zip" + MEMBER_SEP + "b.txt"].data == b"two"
    assert "nested deeper" in got["a.zip" + MEMBER_SEP + "b.zip"].reason and MAX_DEPTH == 2
    # a member that compresses like a bomb is refused alone, never inflated; the archive's other members are read
    # (the whole archive was refused: a person's notes kept out by one such member)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(_zip({"a.txt": b"kept", "zeros.txt": b"\0" * (2 * RATIO_FLOOR), "b.txt": b"kept too"}))
    got = {m.name: m for m in iter_members(bomb, 2**30)}  # ~1000:1, over the floor the ratio applies to
    assert (got["zeros.txt"].data, got["zeros.txt"].reason) == (None, "zip bomb: zeros.txt compresses more than 100:1")
    assert (got["a.txt"].data, got["b.txt"].data) == (b"kept", b"kept too")
    # members whose sizes add up past the archive's budget: those past it are named, the first ones read
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_STORED) as z:
        for i in range(3):
            z.writestr(f"part{i}.txt", b"x" * (3 * 2**20))
    got = {m.name: m for m in iter_members(big, 4 * 2**20, max_total=7 * 2**20)}
    assert [got[f"part{i}.txt"].data is not None for i in range(3)] == [True, True, False]
    assert "budget" in got["part2.txt"].reason
    # a member refused as a bomb, never inflated, takes none of that budget from the members after it
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.txt", b"\0" * (6 * 2**20))
        for i in range(2):
            z.writestr(f"part{i}.txt", random.Random(i).randbytes(3 * 2**20), compress_type=zipfile.ZIP_STORED)
    got = {m.name: m for m in iter_members(big, 8 * 2**20, max_total=7 * 2**20)}
    assert "zip bomb" in got["zeros.txt"].reason and all(got[f"part{i}.txt"].data for i in range(2)), got
    # more members than a zip may list: the container itself is refused (reading its directory is the cost)
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as z:
        for i in range(ZIP_MAX_MEMBERS + 1):  # one past the cap is enough to be refused
            z.writestr(f"f{i}.txt", b"")
    with pytest.raises(Exception, match="more than"):
        list(iter_members(many, 2**20))


@pytest.mark.engines("sqlite")
def test_a_tar_cut_short_keeps_the_members_before_the_cut_and_says_so(tiny_library, tmp_path):
    """A tar whose end is missing (a download that stopped) was listed as if whole: tarfile ends its walk silently
    where a header is missing, and a .tar.gz cut inside a member named only that member. Now the archive is said
    to be cut short in a cut zip's words, and the members read before the cut stay indexed."""
    d = tmp_path / "d"
    d.mkdir()
    rest = random.Random(7).randbytes(6000)
    plain = _tar_gz({"first.txt": b"The albatross ledger, complete.\n", "second.bin": rest}, mode="w")
    (d / "plain.tar").write_bytes(plain[:512 + 512])  # cut where the second member's header begins: no header at all
    packed = _tar_gz({"first.txt": b"The albatross ledger, packed.\n", "second.bin": rest})
    (d / "packed.tar.gz").write_bytes(packed[:len(packed) // 2])  # cut inside the second member's bytes
    rep = tiny_library.add_folder(d, embed=False)  # nothing raises out of the sync
    problems = dict(rep.problems)
    cut = "the archive is cut short (truncated): an incomplete download or copy?"
    assert problems[str(d / "plain.tar")] == problems[str(d / "packed.tar.gz")] == cut, rep.problems
    assert problems[str(d / "packed.tar.gz") + MEMBER_SEP + "second.bin"] == cut
    assert sorted(split_member(h.path)[0] for h in tiny_library.search("albatross ledger", mode="lexical").hits) == [
        str(d / "packed.tar.gz"), str(d / "plain.tar")]


def test_hostile_archive_synced_records_reasons(tiny_library, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "evil.tar.gz").write_bytes(_tar_gz({"../../escape.txt": b"Escaped pelican text.\n", "fine.txt": b"Fine pelican text.\n"}))
    (d / "bomb.zip").write_bytes(_zip({"zeros.txt": b"\0" * (50 * 2**20), "keep.txt": b"A harmless pelican note.\n"}))
    rep = tiny_library.add_folder(d)
    problems = dict(rep.problems)
    assert "zip bomb" in problems[str(d / "bomb.zip") + MEMBER_SEP + "zeros.txt"]
    assert str(d / "bomb.zip") + MEMBER_SEP + "keep.txt" in _names(tiny_library.search("harmless", mode="lexical"))
    assert any("traversal" in why for p, why in rep.problems if p.startswith(str(d / "evil.tar.gz") + MEMBER_SEP))
    hits = _names(tiny_library.search("pelican", mode="lexical"))
    assert str(d / "evil.tar.gz") + MEMBER_SEP + "fine.txt" in hits
    assert not (tmp_path / "escape.txt").exists() and sorted(os.listdir(d)) == ["bomb.zip", "evil.tar.gz"]


def test_ledger_states_in_status_json(tiny_library, docs):
    (docs / "blank.html").write_text("<html><body> </body></html>")  # read, no text found (a blank .txt is empty)
    tiny_library.add_folder(docs)
    st = tiny_library.status().to_json()
    states = st["files_by_state"]
    assert states["indexed"] >= 8 and states["no_text"] >= 1 and states["skipped"] >= 1  # the tar symlink
    assert states["ocr_pending"] == 0 and states["ocr_done"] == 0
    skipped = [r.path for s, r in tiny_library.ledger("skipped")]
    assert any(p.endswith("notes/evil") for p in skipped)


def test_gui_open_on_a_member_hands_over_a_private_copy(qtbot, tiny_library, docs):
    from searchapp.base.types import Hit
    from searchapp.gui.preview import file_url, folder_url
    from searchapp.library.members.private_copy import private_open_dir

    tiny_library.add_folder(docs)
    hit = tiny_library.search("heliotrope budget", mode="lexical").hits[0]
    url = file_url(hit)
    copy = Path(url.toLocalFile())
    assert copy.read_bytes() == b"The heliotrope budget overran by four percent.\n"
    assert copy.name == "report.txt" and str(copy).startswith(str(private_open_dir()))
    assert (copy.stat().st_mode & 0o777) == 0o600 and (private_open_dir().stat().st_mode & 0o777) == 0o700
    assert folder_url(hit).toLocalFile() == str(docs)
    msg = file_url(Hit(0, str(docs / "mailbox.mbox") + MEMBER_SEP + "1: Picnic plans", None, 0, 0, ""))
    assert Path(msg.toLocalFile()).suffix == ".eml" and b"gazpacho" in Path(msg.toLocalFile()).read_bytes()


# -- dates a file carries: out of range or garbage never stop a sync -------------------------------------
def _tar_gz_mtimes(entries: dict[str, tuple[bytes, float]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as t:  # PAX: any mtime is written
        for name, (data, mtime) in entries.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip_odd_date(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    raw = bytearray(buf.getvalue())
    for sig, at in ((b"PK\x03\x04", 10), (b"PK\x01\x02", 12)):  # DOS date and time: month 15, day 31, hour 31
        i = raw.index(sig) + at
        raw[i:i + 4] = b"\xff\xff\xff\xff"
    return bytes(raw)


def test_dates_out_of_range_or_garbage_never_stop_a_sync(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    from conftest import build_tiny_library
    from searchapp.base.config import load_config
    from searchapp.cli.main import main
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, {"plain.txt": "A plain note about the gannet colony."},
                              tiny_bi_encoder_dir, tiny_encoder)
    docs = tmp_path / "docs"
    dates = {"year 1000": "Mon, 01 Jan 1000 00:00:00 +0000", "year 9999": "Fri, 31 Dec 9999 23:59:59 -1200",
             "garbage": "the day after tomorrow", "overflow": "Mon, 01 Jan 99999999999 00:00:00 +0000",
             "fine": "Wed, 15 Jun 2022 09:00:00 +0000"}
    plain = "Tue, 02 Jan 2018 10:00:00 +0000"  # replaced in the bytes: EmailMessage refuses to build the others
    (docs / "dated.mbox").write_bytes(b"".join(
        _mbox([_mail(f"Dated {k}", f"The {k} message mentions ptarmigan.", plain)]).replace(plain.encode(), v.encode())
        for k, v in dates.items()))
    (docs / "odd.eml").write_bytes(_mail("Odd", "An odd date on a puffin.", plain).as_bytes()
                                   .replace(plain.encode(), dates["year 9999"].encode()))
    (docs / "odd.zip").write_bytes(_zip_odd_date("note.txt", b"A zipped note on the kittiwake.\n"))
    (docs / "odd.tar.gz").write_bytes(_tar_gz_mtimes({"past.txt": (b"Long ago, a razorbill.\n", -1e12),
                                                      "future.txt": (b"Far ahead, a guillemot.\n", 1e20)}))
    (docs / "later.txt").write_text("A later file about the shearwater.\n")
    for name, year in (("far.txt", 2400), ("early.txt", 1600)):  # file times past int64 nanoseconds (ext4 holds them)
        (docs / name).write_text(f"A file from {year} about the {name[:-4]} fulmar.\n")
        os.utime(docs / name, ns=(0, (year - 1970) * 365_25 * 864 * 10**9))
    assert main(["--data-dir", str(data), "index", str(docs)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Overflow" not in err
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        for word in ("ptarmigan", "puffin", "kittiwake", "razorbill", "guillemot", "shearwater", "fulmar"):
            assert lib.search(word, mode="lexical").hits, word
        assert len(lib.search("ptarmigan", mode="lexical").hits) == len(dates)
        from searchapp.store.ledger import entry_state
        mbox = str(docs / "dated.mbox")
        lib_hits = lib.search("fulmar", mode="lexical").hits
        own = {k: entry_state(lib.store, mbox + MEMBER_SEP + f"{i}: Dated {k}")[2] for i, k in enumerate(dates, 1)}
    assert own["fine"] == 1655283600 * 10**9
    assert own["year 1000"] is None and own["year 9999"] is None and own["garbage"] is None
    assert len(lib_hits) == 2
    # A second sync finds the far-dated files unchanged (their stored time is the one the scan compares).
    assert main(["--data-dir", str(data), "index", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["added"] == again["updated"] == again["failed"] == 0, again


# -- mail: a forwarded message is a member; a mail of many parts is parsed once, what is left out listed ---
def test_a_forwarded_message_is_a_member_with_its_own_headers_body_and_attachments(tiny_library, tmp_path):
    from office_files import forwarded

    d = tmp_path / "mail"
    d.mkdir()
    (d / "fwd.eml").write_bytes(forwarded().as_bytes())
    rep = tiny_library.add_folder(d)
    assert rep.failed == 0 and rep.problems == [], rep.problems
    fwd = str(d / "fwd.eml") + MEMBER_SEP + "The bridge survey.eml"
    assert _names(tiny_library.search("suspension repainting", mode="lexical")) == [fwd]
    assert _names(tiny_library.search("corrosion", mode="lexical")) == [fwd + MEMBER_SEP + "cables.txt"]
    from searchapp.store.ledger import entry_state
    state, row, date_ns, _ = entry_state(tiny_library.store, fwd)
    assert state == "indexed" and date_ns == 1514887200 * 10**9  # the forwarded message's own Date


def test_a_mail_of_many_parts_is_parsed_once_and_what_is_left_out_is_listed(tiny_library, tmp_path, monkeypatch):
    """The cap lowered to 100 parts (the whole sync's cost is its members, ~3.5 CPU s a run at 1,000): the real
    cap and its note are tests/unit/ingest/test_mail_hostile.py's; here, across a sync, the mail is parsed once,
    every part within the cap is an entry and what is past it is listed."""
    import email

    from office_files import many_parts
    from searchapp.ingest.extractors import mail_parse

    monkeypatch.setattr(mail_parse, "MAX_PARTS", 100)
    d = tmp_path / "mail"
    d.mkdir()
    (d / "many.eml").write_bytes(many_parts(1200, subject="Many parts"))  # 1,201 parts: 1,101 past the cap
    (d / "outlook.zip").write_bytes(_zip({"saved.msg": b"\xd0\xcf\x11\xe0" + b"\0" * 100}))
    parsed: list[bytes] = []
    real = email.message_from_bytes
    monkeypatch.setattr(email, "message_from_bytes",
                        lambda b, **kw: parsed.append(b[:19]) or real(b, **kw))
    rep = tiny_library.add_folder(d)
    assert parsed.count(b"Subject: Many parts") == 1  # text and attachments from one parse
    problems = dict(rep.problems)
    many = str(d / "many.eml")
    assert problems[many + MEMBER_SEP + "…"] == "only the first 100 MIME parts read; 1,101 left out"
    assert problems[str(d / "outlook.zip") + MEMBER_SEP + "saved.msg"] == "not an Outlook message (no OLE header)"
    assert _names(tiny_library.search("heron", mode="lexical")) == [many]
    skipped = {r.path: r.error for s, r in tiny_library.ledger("skipped")}
    assert skipped[many + MEMBER_SEP + "…"].startswith("only the first 100 MIME parts read")
    assert sum(1 for p in skipped if p.startswith(many + MEMBER_SEP)) == 1
    indexed = [r.path for s, r in tiny_library.ledger("indexed") if r.path.startswith(many + MEMBER_SEP)]
    assert len(indexed) == 99  # every attachment within the first 100 parts (the text body is one of them)


def _legacy_zip(names: dict[bytes, bytes]) -> bytes:
    """A zip whose names are raw bytes without the UTF-8 flag, as Windows' "Send to compressed folder" writes them in
    the machine's code page (zipfile itself can only write cp437 or flagged UTF-8)."""
    class RawName(zipfile.ZipInfo):
        def _encodeFilenameFlags(self):  # zipfile would write a non-ASCII name as flagged UTF-8
            return self.filename.encode("cp437"), self.flag_bits & ~0x800

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for raw, data in names.items():
            z.writestr(RawName(raw.decode("cp437")), data)  # written back as these very bytes, unflagged
    return buf.getvalue()


def test_korean_member_names_read_as_korean_on_a_korean_desktop(tmp_path, monkeypatch):
    """Korean names are as plausible read as Chinese (GBK) as read as Korean (cp949): "보고서_최종.txt" showed as
    "焊绊辑_弥辆.txt". The desktop's own language decides such a tie; elsewhere GBK keeps it, as before."""
    names = {"보고서_최종.txt".encode("cp949"): b"one", "회의록 2024.txt".encode("cp949"): b"two"}
    path = tmp_path / "korean.zip"
    path.write_bytes(_legacy_zip(names))
    for lang, expected in (("ko_KR.UTF-8", {"보고서_최종.txt", "회의록 2024.txt"}),
                           ("zh_CN.UTF-8", {"焊绊辑_弥辆.txt", "雀狼废 2024.txt"})):
        monkeypatch.setenv("LANG", lang)
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_CTYPE", raising=False)
        assert {m.name for m in iter_members(path, 2**20)} == expected, lang
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")  # a Japanese desktop still reads a Chinese zip's names as Chinese
    gbk = tmp_path / "gbk.zip"
    gbk.write_bytes(_legacy_zip({"审计压缩包/文件.txt".encode("gbk"): b"x"}))
    assert [m.name for m in iter_members(gbk, 2**20)] == ["审计压缩包/文件.txt"]


def test_member_names_in_a_legacy_code_page_read_as_written(tmp_path, monkeypatch):
    """Tika's Shift-JIS and GBK zips showed their names as box drawings ("ò╢Å═1.txt"); names a `name:` filter could
    never match. Accented cp437 names and unflagged UTF-8 stay as they were written."""
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # no CJK language of the desktop's own to prefer
    names = {"文章1.txt".encode("cp932"): b"one", "审计压缩包/文件.txt".encode("gbk"): b"two",
             "Résumé.txt".encode("cp437"): b"three", "naïve café.txt".encode("utf-8"): b"four",
             "Messung 20°C Labor.txt".encode("cp437"): b"five", "£Report ¿qué?.txt".encode("cp437"): b"six"}
    path = tmp_path / "legacy.zip"
    path.write_bytes(_legacy_zip(names))
    got = {m.name: m.data for m in iter_members(path, 2**20)}
    assert got == {"文章1.txt": b"one", "审计压缩包/文件.txt": b"two", "Résumé.txt": b"three",
                   "naïve café.txt": b"four", "Messung 20°C Labor.txt": b"five", "£Report ¿qué?.txt": b"six"}
    only = {m.name: m.data for m in iter_members(path, 2**20, only="文章1.txt")}  # read again by its shown name
    assert only["文章1.txt"] == b"one"
    # a library synced by an earlier version stored the cp437 reading: preview and OCR still find the member by it
    stored = "文章1.txt".encode("cp932").decode("cp437")
    assert {m.name: m.data for m in iter_members(path, 2**20, only=stored)}[stored] == b"one"


def _notes_zip(n: int) -> bytes:
    return _zip({f"notes/note{i}.txt": f"Note {i}: the heliotrope budget, line {i}.\n".encode() for i in range(n)})


def test_an_archive_renamed_is_one_rename_however_many_its_members(tiny_library, tmp_path, capsys):
    """A person renamed one file: "1 renamed or moved", as the scan line counts the archive as one file (its members
    apart), not "6 renamed or moved" for a zip and its five notes; its members' meaning is kept all the same."""
    from searchapp.cli.commands.index import print_report

    d = tmp_path / "docs"
    d.mkdir()
    (d / "notes.zip").write_bytes(_notes_zip(5))
    (d / "plain.txt").write_text("A plain note about compost.\n")
    tiny_library.add_folder(d)
    (d / "notes.zip").rename(d / "notes 2026.zip")
    rep = tiny_library.sync()
    assert rep.said("added", "updated", "unchanged", "removed") == \
        "0 added, 1 renamed or moved, 0 updated, 1 unchanged, 0 removed"
    assert rep.chunks_embedded == 1  # the members' meaning reused; the archive's listing names it: read anew
    assert (rep.moved, rep.moved_members) == (6, 5)  # --json: the entries, and of them the members gone with it
    print_report(rep, as_json=False)
    assert capsys.readouterr().out.startswith("2 files and 5 items in archives and mail scanned: 0 added, "
                                              "1 renamed or moved, 0 updated, 1 unchanged, 0 removed")
    hits = tiny_library.search("heliotrope budget", mode="lexical").hits
    assert hits and all("notes 2026.zip" in h.path for h in hits)


def test_a_file_moved_into_or_out_of_an_archive_is_a_move_of_its_own(tiny_library, tmp_path):
    """A member that moved on its own is one move, its archive not renamed: a note zipped into a new archive and
    deleted (the archive an addition), then taken out again (the archive rewritten without it: updated)."""
    d = tmp_path / "docs"
    d.mkdir()
    note, other = b"Note 0: the heliotrope budget, line 0.\n", b"Note 1: the compost heap, line 1.\n"
    (d / "note0.txt").write_bytes(note)
    (d / "plain.txt").write_text("A plain note about compost.\n")
    tiny_library.add_folder(d)
    (d / "kept.zip").write_bytes(_zip({"note0.txt": note, "note1.txt": other}))
    (d / "note0.txt").unlink()
    rep = tiny_library.sync()
    assert rep.said("added", "removed") == "2 added, 1 renamed or moved, 0 removed"  # kept.zip and note1.txt
    assert (rep.moved, rep.moved_members) == (1, 0)
    (d / "kept.zip").write_bytes(_zip({"note1.txt": other}))
    os.utime(d / "kept.zip", ns=(time.time_ns(), time.time_ns() + 10**9))
    (d / "note0.txt").write_bytes(note)
    rep = tiny_library.sync()
    assert rep.said("added", "updated", "removed") == "0 added, 1 renamed or moved, 1 updated, 0 removed"
    assert (rep.moved, rep.moved_members) == (1, 0)


def test_explain_finds_a_member_by_its_number_or_part_of_its_name_and_reads_it_whole(tiny_library, docs, capsys,
                                                                                      monkeypatch):
    """A newcomer asked `explain "personal.mbox › 24"` and was told "missing": a mail's member name is its number
    and subject, which nobody types whole. The number alone, or a part of the name met once, is that member; met
    more than once, the members like it are named. `--text` prints the message whole, as it reads."""
    import searchapp.cli.commands.status as status_cmd

    tiny_library.add_folder(docs, embed=False)
    mbox = str(docs / "mailbox.mbox")
    e = tiny_library.explain(mbox + DISPLAY_SEP + "2")
    assert e["state"] == "indexed" and e["member"] == "2: Quarterly figures", e
    assert e["shown_as"] == mbox + DISPLAY_SEP + "2: Quarterly figures"
    assert tiny_library.explain(mbox + DISPLAY_SEP + "picnic")["member"] == "1: Picnic plans"
    both = tiny_library.explain(mbox + DISPLAY_SEP + "i")  # in both names ("Picnic", "figures")
    assert both["state"] == "missing" and not both["known"]
    assert "members like it: “1: Picnic plans”; “2: Quarterly figures”" in both["reason"], both
    assert tiny_library.explain(mbox + DISPLAY_SEP + "3")["reason"].startswith("not a member of its container")
    # `similar` takes a member named so too (a verifier's `similar "personal.mbox › 11"` was "not an indexed file")
    assert tiny_library.similar(mbox + DISPLAY_SEP + "2").mode == "similar"  # no "not an indexed file"
    with pytest.raises(ConfigError, match="members like it: “1: Picnic plans”; “2: Quarterly figures”"):
        tiny_library.similar(mbox + DISPLAY_SEP + "i")

    class Args:
        path, json, text = mbox + DISPLAY_SEP + "2", False, True

    class Opened:
        def __enter__(self):
            return tiny_library

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(status_cmd, "_library", lambda config, create=False: Opened())
    assert status_cmd.cmd_explain(Args(), tiny_library.config, None, None) == 0
    out = capsys.readouterr().out
    assert "path: " + mbox + DISPLAY_SEP + "2: Quarterly figures" in out
    assert "\n    Subject: Quarterly figures\n" in out and "\n    Revenue of the walrus division rose.\n" in out, out
    (docs / "blank.md").write_text("  \n", encoding="utf-8")  # known, no text: said, not silence
    tiny_library.add_folder(docs, embed=False)
    Args.path = str(docs / "blank.md")
    assert status_cmd.cmd_explain(Args(), tiny_library.config, None, None) == 0
    assert "blank.md has no text in the library (empty)" in capsys.readouterr().err


def test_a_message_deleted_from_a_mailbox_is_one_removal_not_every_later_message_renamed(tiny_library, tmp_path):
    """A mail's name is its number in its mailbox: a newcomer deleted the first of 60 messages and was told "63
    renamed or moved, 1 updated, 1 removed". The later messages, found again in the same mailbox under a new
    number (their attachments too), are unchanged to a person; their meaning is kept."""
    d = tmp_path / "mail"
    d.mkdir()
    mails = [_mail("Picnic plans", "Bring the gazpacho on Saturday."),
             _mail("Quarterly figures", "Revenue of the walrus division rose.",
                   attachments={"summary.txt": b"Attached summary about narwhal tusks.\n"}),
             _mail("Boat trip", "The ferry to the puffin colony leaves at nine.")]
    (d / "inbox.mbox").write_bytes(_mbox(mails))
    tiny_library.add_folder(d)
    (d / "inbox.mbox").write_bytes(_mbox(mails[1:]))
    rep = tiny_library.sync()
    assert rep.said("added", "updated", "unchanged", "removed") == "0 added, 1 updated, 3 unchanged, 1 removed", \
        rep.said("added", "updated", "unchanged", "removed")
    assert rep.files_changed() == 2 and rep.renumbered == 3
    assert rep.chunks_embedded == 1  # the mailbox's listing of its subjects: read anew; the messages' kept
    hit = tiny_library.search("puffin colony", mode="lexical").hits[0]
    assert hit.path.endswith(MEMBER_SEP + "2: Boat trip")
    # one moved to another mailbox (a new file: added) is a move all the same
    (d / "archive.mbox").write_bytes(_mbox(mails[2:]))
    (d / "inbox.mbox").write_bytes(_mbox(mails[1:2]))
    rep = tiny_library.sync()
    said = rep.said("added", "updated", "unchanged", "removed")
    assert said == "1 added, 1 renamed or moved, 1 updated, 2 unchanged, 0 removed", said


def test_the_ledger_lists_a_mailboxs_messages_in_their_own_order(tiny_library, tmp_path):
    """`status --files` listed a newcomer's mailbox as 1:, 10:, 11:, …, 2:, 20: (their numbers sorted as text)."""
    from searchapp.base.member_paths import member_order

    d = tmp_path / "mail"
    d.mkdir()
    (d / "box.mbox").write_bytes(_mbox([_mail(f"Note {i}", f"Body number {i} about otters.") for i in range(1, 13)]))
    (d / "z.txt").write_text("A last file about otters.\n")
    tiny_library.add_folder(d, embed=False)
    names = [split_member(r.path)[1] or Path(r.path).name for _, r in tiny_library.ledger("indexed")]
    assert names == ["box.mbox", *(f"{i}: Note {i}" for i in range(1, 13)), "z.txt"], names
    assert sorted(["a//2: x", "a//10: y", "a//2: x//b.txt", "a//notes.txt", "a"], key=member_order) == \
        ["a", "a//2: x", "a//2: x//b.txt", "a//10: y", "a//notes.txt"]


# -- a message is dated and typed as a message, whether a file of its own or a member of an mbox ----------
OUTLOOK_2010 = 1290600000 * 10**7 + 116_444_736_000_000_000  # FILETIME (100 ns since 1601) of 2010-11-24 12:00 UTC


@pytest.fixture
def mails(tmp_path):
    """A folder of mail: an .eml (2018), an Outlook .msg (2010), an mbox of two 2022 messages, one subject ending
    like a file name, and a PDF-named text file; every file's mtime today."""
    from legacy_office_files import make_msg

    d = tmp_path / "mails"
    d.mkdir()
    (d / "parking.eml").write_bytes(_mail("Parking permit", "Your parking permit for the deposit lot.",
                                          "Fri, 03 Jan 2025 09:00:00 +0000").as_bytes())
    (d / "old.msg").write_bytes(make_msg("Outlook note", "The deposit is due, said Outlook.", filetime=OUTLOOK_2010))
    (d / "personal.mbox").write_bytes(_mbox([
        _mail("Deposit returned", "The deposit came back in full.", "Wed, 15 Jun 2022 09:00:00 +0000"),
        _mail("See report.pdf", "The deposit report, attached as a name only.", "Thu, 16 Jun 2022 09:00:00 +0000"),
    ]))
    (d / "deposit.pdf.txt").write_text("A deposit note that is no mail.\n")
    return d


def _found(lib, query: str, **filters) -> list[str]:
    from searchapp.library.query.filters import SearchFilters

    res = lib.search(query, mode="lexical", filters=SearchFilters.build(**filters) if filters else None)
    return sorted(os.path.basename(split_member(h.path)[0]) + ("//" + split_member(h.path)[1] if split_member(h.path)[1]
                                                               else "") for h in res.hits)


def test_a_message_file_is_dated_by_its_message_not_its_mtime(tiny_library, mails):
    from searchapp.store.ledger import entry_state

    rep = tiny_library.add_folder(mails)
    assert rep.failed == 0, rep.problems
    assert _found(tiny_library, "parking permit", after="2025-01-01", before="2025-02-01") == ["parking.eml"]
    assert _found(tiny_library, "outlook", before="2012-01-01") == ["old.msg"]
    assert _found(tiny_library, "deposit", before="2012-01-01") == ["old.msg"]
    assert entry_state(tiny_library.store, str(mails / "parking.eml"))[2] == 1735894800 * 10**9
    assert entry_state(tiny_library.store, str(mails / "old.msg"))[2] == 1290600000 * 10**9
    # the date a hit carries (the window's Date column, --json) and the newest-first order are the message's too
    hit = tiny_library.search("outlook", mode="lexical").hits[0]
    assert hit.path.endswith("old.msg") and hit.date_ns == 1290600000 * 10**9
    assert hit.to_json()["date"] == 1290600000  # search --json's, as explain's: seconds


def test_a_message_is_of_its_readers_type_wherever_it_is(tiny_library, mails):
    tiny_library.add_folder(mails)
    box = ["personal.mbox//1: Deposit returned", "personal.mbox//2: See report.pdf"]
    assert _found(tiny_library, "deposit", types=["eml"]) == ["parking.eml", *box]
    assert _found(tiny_library, "deposit", types=["msg"]) == ["old.msg"]
    # the mailbox too, but its listing leaves the results where its messages answer (search/listings.py)
    assert _found(tiny_library, "deposit", types=["mail"]) == ["old.msg", "parking.eml", *box]
    assert _found(tiny_library, "deposit", types=["mbox"]) == ["personal.mbox"]  # the mailbox's own listing
    assert _found(tiny_library, "deposit", types=["pdf"]) == []  # a subject ending ".pdf" is no PDF
    assert _found(tiny_library, "deposit", types=["txt"]) == ["deposit.pdf.txt"]
    # what a search that found nothing names as the types here counts messages by their reader too
    assert {t: n for t, n in tiny_library.store.file_types().items() if t in ("eml", "msg", "mbox", "pdf", "txt")} \
        == {"eml": 3, "msg": 1, "mbox": 1, "txt": 1}


def test_type_mail_is_a_type_a_search_that_found_nothing_knows(tiny_library, tmp_path):
    from searchapp.library.query.filters import SearchFilters
    from searchapp.library.search.empty_reason import why_empty
    from searchapp.library.search.result import FILTERED

    d = tmp_path / "notes"
    d.mkdir()
    (d / "a.txt").write_text("A plain note.\n")
    tiny_library.add_folder(d)
    notice = why_empty(tiny_library.store, SearchFilters.build(types=["mail"]), None, [str(d)])
    assert notice is not None and notice.kind == FILTERED and '"mail"' in notice.text, notice


def _message(subject: str, sender: str, to: str, body: str, cc: str = "") -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"], msg["Date"] = subject, sender, to, "Tue, 02 Jan 2018 10:00:00 +0000"
    if cc:
        msg["Cc"] = cc
    msg.set_content(body)
    return msg


def test_from_to_and_subject_find_messages_by_their_header_lines(tiny_library, tmp_path, monkeypatch):
    """A newcomer with a mailbox typed `from:alice` and was told "unknown field from: searched as words": Bob's
    replies quoting her came first. A message is found by who sent it, who received it (its To or Cc line) and its subject,
    from its own header lines only: not a quoted header in a reply's body, not a note that holds "From: Alice"."""
    d = tmp_path / "mail"
    d.mkdir()
    (d / "box.mbox").write_bytes(_mbox([
        _message("Roof repair quote", "Alice Nguyen <alice@example.org>", "bob@example.org",
                 "The roofer quoted 2,400 for the gutters."),
        _message("Re: Roof repair quote", "Bob Martinez <bob@example.org>", "alice@example.org",
                 "> From: Alice Nguyen\n> The roofer quoted 2,400.\nFine by me.", cc="Carol Müller <carol@example.org>"),
        _message("Lunch", "Jörg Müller <joerg@example.org>", "bob@example.org",
                 "Lunch at noon? We can talk roofs.\n\n---------- Forwarded message ----------\n"
                 "From: Alice Nguyen <alice@example.org>\nSubject: Roof repair quote\n"),
    ]))
    (d / "note.txt").write_text("From: Alice Nguyen\nA note copied from her roof repair mail.\n", encoding="utf-8")
    tiny_library.add_folder(d, embed=False)

    def found(query: str) -> list[str]:
        return sorted((split_member(h.path)[1] or Path(h.path).name)
                      for h in tiny_library.search(query, mode="lexical", k=10).hits)

    assert found("from:alice") == ["1: Roof repair quote"]
    assert found("roof from:alice") == ["1: Roof repair quote"]  # not Bob's reply quoting her, not the note
    assert found("from:ali") == ["1: Roof repair quote"]  # its last word a prefix, as name: reads a part
    assert found("from:alice@example.org") == ["1: Roof repair quote"]
    assert found("to:alice") == ["2: Re: Roof repair quote"]
    assert found("to:carol") == ["2: Re: Roof repair quote"]  # Carol received it: her Cc line (decision 0175)
    assert found("cc:carol") == ["2: Re: Roof repair quote"] and found("cc:alice") == []  # cc: the Cc line alone
    assert found("from:muller") == ["3: Lunch"] and found("from:Müller") == ["3: Lunch"]  # accents aside
    assert found('subject:"repair quote"') == ["1: Roof repair quote", "2: Re: Roof repair quote"]
    assert found("subject:roofs") == []  # in a body, not a subject
    assert found("from:bob to:alice") == ["2: Re: Roof repair quote"] and found("from:bob to:bob") == []  # both
    assert found("from:alice from:joerg") == ["1: Roof repair quote", "3: Lunch"]  # any value of one field
    res = tiny_library.search("from:alice", mode="lexical")
    assert res.warnings == () or not any("unknown field" in w for w in res.warnings), res.warnings
    from searchapp.store.postgres import pg_scope

    monkeypatch.setattr(pg_scope, "PHRASE_PAGE", 1)  # a shared library reads the messages' heads page by page
    assert found('subject:"repair quote"') == ["1: Roof repair quote", "2: Re: Roof repair quote"]


def test_to_finds_a_recipient_late_in_a_long_to_line(tiny_library, tmp_path):
    """A reviewer's: a To line of 41 recipients runs over three passages, and `to:zelda` looked at the first."""
    d = tmp_path / "mail"
    d.mkdir()
    many = ", ".join(f"Person Number{i} <person{i}@example.org>" for i in range(40)) + ", Zelda Quist <zelda@example.org>"
    (d / "box.mbox").write_bytes(_mbox([_message("Team lunch", "ann@example.org", many, "Lunch is at noon on Friday."),
                                        _message("Other", "ann@example.org", "bob@example.org", "Zelda Quist says hi.")]))
    tiny_library.add_folder(d, embed=False)
    hits = [split_member(h.path)[1] for h in tiny_library.search("to:zelda", mode="lexical").hits]
    assert hits == ["1: Team lunch"], hits


def test_a_message_deleted_before_one_whose_scan_waits_for_ocr_is_one_removal(tiny_library, tmp_path, monkeypatch):
    """A reviewer's: the scan attached to a later message, waiting for OCR (no engine) and renumbered with its
    message, was still said "1 renamed or moved" beside the message deleted."""
    from scan_files import text_image
    from searchapp.ingest.ocr.engine import ENGINE_ENV

    monkeypatch.setenv(ENGINE_ENV, "none")
    buf = io.BytesIO()
    text_image(["Lighthouse"]).save(buf, format="PNG")
    d = tmp_path / "mail"
    d.mkdir()
    mails = [_mail("Picnic plans", "Bring the gazpacho on Saturday."),
             _mail("Quarterly figures", "Revenue of the walrus division rose.", attachments={"scan.png": buf.getvalue()}),
             _mail("Boat trip", "The ferry to the puffin colony leaves at nine.")]
    (d / "inbox.mbox").write_bytes(_mbox(mails))
    tiny_library.add_folder(d, embed=False)
    (d / "inbox.mbox").write_bytes(_mbox(mails[1:]))
    rep = tiny_library.sync()
    said = rep.said("added", "updated", "unchanged", "removed", "skipped")
    assert said == "0 added, 1 updated, 3 unchanged, 1 removed, 0 skipped", (said, rep.moved, rep.renumbered)


def test_an_attachment_is_dated_by_the_message_holding_it(tiny_library, tmp_path):
    """A tester's lease, attached to a message of 2025-08-14 in an mbox, was dated "today" (the mailbox's time):
    `pet clause after:2025-08 before:2025-09` missed it. An attachment takes its message's date, in an mbox and in
    a message file alike."""
    from searchapp.store.ledger import entry_state

    d = tmp_path / "mail"
    d.mkdir()
    lease = {"lease.txt": b"Pet clause: one cat named Biscuit is permitted.\n"}
    (d / "box.mbox").write_bytes(_mbox([_mail("Lease renewal", "The lease is attached.", "Thu, 14 Aug 2025 09:00:00 +0000",
                                              attachments=lease)]))
    (d / "letter.eml").write_bytes(_mail("Invoice", "The invoice is attached.", "Fri, 03 Jan 2025 09:00:00 +0000",
                                         attachments={"invoice.txt": b"Invoice for saffron, 12 grams.\n"}).as_bytes())
    tiny_library.add_folder(d, embed=False)
    assert entry_state(tiny_library.store, str(d / "box.mbox") + MEMBER_SEP + "1: Lease renewal" + MEMBER_SEP +
                       "lease.txt")[2] == 1755162000 * 10**9
    assert entry_state(tiny_library.store, str(d / "letter.eml") + MEMBER_SEP + "invoice.txt")[2] == 1735894800 * 10**9
    assert _found(tiny_library, "pet clause", after="2025-08-01", before="2025-09-01") == [
        "box.mbox//1: Lease renewal//lease.txt"]
    assert _found(tiny_library, "saffron", before="2025-02-01") == ["letter.eml//invoice.txt"]


def test_remove_and_undo_count_files_on_disk_not_the_messages_inside(tiny_library, tmp_path):
    """A folder of one note and a mailbox of three messages was "removed … (5 files)" and "put back … (5 files)":
    the person has two files there. The messages are the mailbox's."""
    d = tmp_path / "mail"
    d.mkdir()
    (d / "box.mbox").write_bytes(_mbox([_mail(f"Note {i}", f"Body number {i}.") for i in range(3)]))
    (d / "a.txt").write_text("A plain note.\n", encoding="utf-8")
    tiny_library.add_folder(d, embed=False)
    assert tiny_library.remove_folder(d, undoable=True) == 2
    assert tiny_library.undo_remove() == (str(d), 2)
    st = tiny_library.status()
    assert st.files.get("indexed") == 2 and st.members.get("indexed") == 3, (st.files, st.members)  # all put back


@pytest.mark.engines("sqlite")
def test_similar_of_a_container_compares_its_members_text_never_its_listing(tiny_library, docs, monkeypatch):
    """`similar notes-backup.zip` compared the zip's listing (its members' names) and answered its own member first
    (a newcomer), then said "… is a container" and sent the person to a member (decision 0208): a container is
    compared by its members' text, nested ones too, its own members never its similar files; a listing is compared
    neither as the source nor as a candidate."""
    import argparse

    from searchapp.cli.commands.discover import print_similar
    from searchapp.ingest.extractors.members import is_listing_text, listing
    from searchapp.library.search.result import MEMBERS

    (docs / "loose-report.txt").write_text("The heliotrope budget overran by four percent.\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    zipped = str(docs / "archive.zip")
    from searchapp.library.search import near_copies

    read, texts = [], near_copies._FileTexts.__call__
    monkeypatch.setattr(near_copies._FileTexts, "__call__", lambda self, f: (read.append(f), texts(self, f))[1])
    res = tiny_library.similar(zipped, k=20)
    # its own text is its listing, no file's near copy: not read to compare (the loose copy's pair is one text)
    assert tiny_library.reader().file_by_path(zipped).id not in read and not res.near_copies, read
    assert res.said(MEMBERS) == "compared by the text of its 2 members: its own passage lists only their names"
    rows = _names(res)
    assert rows[0] == str(docs / "loose-report.txt"), rows  # what its report says, outside it
    assert not any(p.startswith(zipped) for p in rows + [c for h in res.hits for c in h.copies]), rows
    out = io.StringIO()  # the command says it before its rows, --json as members_notice
    print_similar(argparse.Namespace(json=False), res, out)
    assert out.getvalue().startswith(res.said(MEMBERS) + "\n 1. ") and "members_notice" in res.to_json()
    with pytest.raises(ConfigError, match="archive.zip is a container whose members hold no text on page 7"):
        tiny_library.similar(zipped, page=7)
    rows = _names(tiny_library.similar(str(docs / "letter.eml"), k=20))
    assert rows and not any(p.endswith(("archive.zip", "bundle.tar.gz", "mailbox.mbox", "inner.zip")) for p in rows)
    # a document of no text of its own but files is stored as its listing too (sync/members.py)
    assert is_listing_text("/d/slides.pptx", listing("slides.pptx", ["deck.pdf"]))
    assert not is_listing_text("/d/slides.pptx", "slides.pptx: 2 members of the board met on Monday")


@pytest.mark.engines("sqlite")
def test_similar_of_a_container_by_words_leaves_its_own_members_out_too(tiny_library, docs):
    """While meaning fills, the rows found by the container's members' distinctive words: its own members, which
    hold those words most, are never among them."""
    (docs / "loose-report.txt").write_text("The heliotrope budget overran by four percent again.\n", encoding="utf-8")
    tiny_library.add_folder(docs, embed=False)
    zipped = str(docs / "archive.zip")
    res = tiny_library.similar(zipped, k=5)
    rows = _names(res)
    assert str(docs / "loose-report.txt") in rows and all(h.by == "words" for h in res.hits), rows
    assert not any(p.startswith(zipped) for p in rows + [c for h in res.hits for c in h.copies]), rows
