"""A folder of mail as a new user has it, synced: Thunderbird's mbox files without a suffix and their .msf indexes,
a Maildir, an Outlook .pst; and a member's warnings name the member, never its private copy's temporary path."""

from __future__ import annotations

import logging
import tempfile
from email.message import EmailMessage
from pathlib import Path

from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP


def _mail(subject: str, body: str, attachments: dict[str, bytes] | None = None) -> bytes:
    msg = EmailMessage()
    msg["DKIM-Signature"] = "v=1; a=rsa-sha256; d=example.com; b=" + "QUJD" * 40
    msg["Subject"], msg["From"], msg["To"] = subject, "ann@example.org", "bob@example.org"
    msg["Date"] = "Tue, 02 Jan 2018 10:00:00 +0000"
    msg.set_content(body)
    for name, data in (attachments or {}).items():
        msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
    return msg.as_bytes()


def _mail_folder(root: Path) -> Path:
    tb = root / "thunderbird" / "Local Folders"
    tb.mkdir(parents=True)
    (tb / "Inbox").write_bytes(b"".join(b"From - Mon Dec  2 12:00:00 2024\n" + m + b"\n" for m in (
        _mail("Picnic plans", "Bring the gazpacho on Saturday."),
        _mail("Walrus report", "The walrus division grew."))))
    (tb / "Inbox.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n< <(a=c)> (B8=Subject)(B9=From)>\n")
    for folder in ("cur", "new", "tmp"):
        (root / "Maildir" / folder).mkdir(parents=True)
    (root / "Maildir" / "cur" / "1733140000.M1P1.host:2,S").write_bytes(
        _mail("Is dinner ready?", "We lost the game. Are you hungry yet?"))
    (root / "Outlook.pst").write_bytes(b"!BDN" + b"\x00" * 512)
    (root / "NOTES").write_bytes(b"From here on: minutes.\nName: Bob\n\nThe heron counted fish.\n")
    return root


def test_mail_stores_are_read_as_mail(tiny_library, tmp_path: Path) -> None:
    root = _mail_folder(tmp_path / "mail")
    rep = tiny_library.add_folder(root)
    inbox = str(root / "thunderbird" / "Local Folders" / "Inbox")
    assert [h.path for h in tiny_library.search("gazpacho saturday", mode="lexical").hits] == [
        inbox + MEMBER_SEP + "1: Picnic plans"]  # a message is an entry of its own, as a .mbox's is
    assert tiny_library.search("walrus division", mode="lexical").hits[0].path == inbox + MEMBER_SEP + "2: Walrus report"
    maildir = str(root / "Maildir" / "cur" / "1733140000.M1P1.host:2,S")
    assert [h.path for h in tiny_library.search("hungry game", mode="lexical").hits] == [maildir]
    assert not tiny_library.search("QUJDQUJD", mode="lexical").hits  # the signature is no text
    assert [h.path for h in tiny_library.search("heron", mode="lexical").hits] == [str(root / "NOTES")]
    problems = dict(rep.problems)
    assert problems[str(root / "Outlook.pst")] == (
        "an Outlook .pst data file: not read (export the folders to .mbox or .eml)")
    assert not any(p.endswith(".msf") for p in problems), problems  # left out quietly, like other program files
    assert not tiny_library.search("mork", mode="lexical").hits


def test_a_members_warnings_name_the_member_not_its_temporary_copy(tiny_library, tmp_path: Path, caplog) -> None:
    """A member's text with a paragraph that is not prose: the warning (printed by `index`) named the private copy,
    /tmp/searchapp-members-…/member-…, instead of the mailbox and member."""
    docs = tmp_path / "docs"
    docs.mkdir()
    junk = b"A short note on the avocet.\n\n" + b"QUJD" * 2000 + b"\n"
    (docs / "box.mbox").write_bytes(b"From ann Tue Jan  2 10:00:00 2018\n" + _mail(
        "Data", "See the attached data.", attachments={"data.txt": junk}) + b"\n")
    caplog.set_level(logging.WARNING)
    rep = tiny_library.add_folder(docs)
    member = str(docs / "box.mbox") + DISPLAY_SEP + "1: Data" + DISPLAY_SEP + "data.txt"
    said = [r.getMessage() for r in caplog.records] + [why for _, why in rep.problems] + list(rep.notes)
    assert any(s.startswith(member + ": 1 paragraph(s) left out, not prose") for s in said), said
    temp = tempfile.gettempdir()
    assert not any("searchapp-member" in s or "member-" in s and temp in s for s in said), said
    assert [h.path for h in tiny_library.search("avocet", mode="lexical").hits] == [
        str(docs / "box.mbox") + MEMBER_SEP + "1: Data" + MEMBER_SEP + "data.txt"]


def test_a_members_preview_warns_by_the_members_name(tiny_library, tmp_path: Path, caplog) -> None:
    """Read again for a preview or `explain`, a member comes from a private copy too: its warning names the member."""
    from searchapp.library.search.preview import file_text

    docs = tmp_path / "docs"
    docs.mkdir()
    junk = b"A short note on the avocet.\n\n" + b"QUJD" * 2000 + b"\n"
    (docs / "box.mbox").write_bytes(b"From ann Tue Jan  2 10:00:00 2018\n" + _mail(
        "Data", "See the attached data.", attachments={"data.txt": junk}) + b"\n")
    key = str(docs / "box.mbox") + MEMBER_SEP + "1: Data" + MEMBER_SEP + "data.txt"
    caplog.set_level(logging.WARNING)
    assert "avocet" in file_text(key, tiny_library.config).text
    said = [r.getMessage() for r in caplog.records]
    assert said and all(s.startswith(str(docs / "box.mbox") + DISPLAY_SEP + "1: Data") for s in said), said


def test_an_mbox_without_a_suffix_among_many_files_is_not_read_ahead_as_text(tiny_library, tmp_path: Path,
                                                                                monkeypatch, opened_files) -> None:
    """Files are read in groups (read_groups.py) from MIN_GROUPED on: a file without a suffix is kept out of them,
    so its bytes, read once for its hash, also tell whether it is a mailbox (a text file is opened once)."""
    from searchapp.library.sync import read_groups

    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    root = _mail_folder(tmp_path / "mail")
    for i in range(read_groups.MIN_GROUPED + 2):
        (root / f"note{i}.txt").write_text(f"Note {i} about the plover.\n")
    tiny_library.add_folder(root)
    assert opened_files.count(str((root / "NOTES").resolve())) == 1
    inbox = str(root / "thunderbird" / "Local Folders" / "Inbox")
    assert [h.path for h in tiny_library.search("gazpacho saturday", mode="lexical").hits] == [
        inbox + MEMBER_SEP + "1: Picnic plans"]
    assert [h.path for h in tiny_library.search("heron", mode="lexical").hits] == [str(root / "NOTES")]


def test_a_mailbox_without_a_suffix_renamed_is_one_move(tiny_library, tmp_path: Path) -> None:
    """A reviewer's: a Thunderbird Inbox renamed was "6 renamed or moved" (its 5 messages each a move): whether a
    moved entry held the others was asked of its file, gone by then, which only its bytes tell a mailbox. The
    stored rows tell it: a .mbox renamed and an Inbox renamed read alike."""
    d = tmp_path / "mail"
    d.mkdir()
    box = b"".join(b"From - Mon Dec  2 12:00:00 2024\n" + _mail(f"Subject {i}", f"Body {i} about walruses.") + b"\n"
                   for i in range(5))
    (d / "Inbox").write_bytes(box)
    (d / "Inbox.mbox").write_bytes(box.replace(b"walruses", b"narwhals"))
    (d / "plain.txt").write_text("A plain note about compost.\n")
    tiny_library.add_folder(d, embed=False)
    (d / "Inbox").rename(d / "Archive")
    (d / "Inbox.mbox").rename(d / "Archive.mbox")
    rep = tiny_library.sync()
    assert rep.said("added", "removed") == "0 added, 2 renamed or moved, 0 removed", rep.said("added", "removed")
