"""Members of containers (zip, tar.gz, mbox, mail attachments) indexed as entries of their own."""

from __future__ import annotations

import io
import os
import tarfile
import time
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP, display_path, split_member
from searchapp.ingest.extractors.members import (MAX_DEPTH, iter_members,
                                                  )
from searchapp.store.ledger import state_counts


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def _mail(subject: str, body: str, date: str = "Tue, 02 Jan 2018 10:00:00 +0000",
          attachments: dict[str, bytes] = {}) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"], msg["Date"] = subject, "ann@example.org", "bob@example.org", date
    msg.set_content(body)
    for name, data in attachments.items():
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg


def _mbox(messages: list[EmailMessage]) -> bytes:
    return b"".join(b"From ann@example.org Tue Jan  2 10:00:00 2018\n" + m.as_bytes().replace(b"\nFrom ", b"\n>From ")
                    + b"\n" for m in messages)


def _tar_gz(entries: dict[str, bytes], links: dict[str, str] = {}) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in links.items():
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
    from searchapp.library.filters import SearchFilters

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
