"""Mail stores without a suffix (a Thunderbird or Unix mbox, a Maildir message) told by their first bytes; Outlook's
.pst/.ost said plainly; Thunderbird's .msf left out; a forwarded message sent base64 decoded."""

from __future__ import annotations

import base64
import quopri
from email.message import EmailMessage
from pathlib import Path

import pytest

from searchapp.base.config import ScanConfig
from searchapp.base.errors import UnsupportedFileError
from searchapp.base.member_paths import MEMBER_SEP
from searchapp.ingest.extractors import extract, reader_version, takes_data
from searchapp.ingest.extractors import mail_sniff
from searchapp.ingest.extractors.mail_sniff import SNIFF_BYTES, mail_suffix
from searchapp.ingest.extractors.members import container_suffix, is_container, iter_members
from searchapp.ingest.scan import scan


def _mail(subject: str, body: str, dkim: bool = False) -> bytes:
    msg = EmailMessage()
    if dkim:  # first, as a receiving server adds it: what the text reader took for the message's text
        msg["DKIM-Signature"] = "v=1; a=rsa-sha256; d=example.com; b=" + "QUJD" * 40
    msg["Subject"], msg["From"], msg["To"] = subject, "ann@example.org", "bob@example.org"
    msg["Date"] = "Tue, 02 Jan 2018 10:00:00 +0000"
    msg.set_content(body)
    return msg.as_bytes()


def _mbox(*messages: bytes) -> bytes:
    return b"".join(b"From - Mon Dec  2 12:00:00 2024\nX-Mozilla-Status: 0001\n" + m + b"\n" for m in messages)


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    tb = tmp_path / "Local Folders"
    tb.mkdir()
    (tb / "Inbox").write_bytes(_mbox(_mail("Picnic plans", "Bring the gazpacho on Saturday."),
                                     _mail("Walrus report", "The walrus division grew.")))
    (tb / "Inbox.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n< <(a=c)> // (f=iso-8859-1)\n")
    for folder in ("cur", "new", "tmp"):
        (tmp_path / "Maildir" / folder).mkdir(parents=True)
    (tmp_path / "Maildir" / "cur" / "1733140000.M1P1.host:2,S").write_bytes(
        _mail("Is dinner ready?", "We lost the game. Are you hungry yet?", dkim=True))
    return tmp_path


def test_an_mbox_without_a_suffix_is_a_mailbox_of_messages(stores: Path) -> None:
    inbox = stores / "Local Folders" / "Inbox"
    assert is_container(inbox) and container_suffix(inbox) == ".mbox"
    members = list(iter_members(inbox, 2**20))
    assert [m.name for m in members] == ["1: Picnic plans", "2: Walrus report"]
    assert all(m.suffix == ".eml" and m.data for m in members)
    doc = extract(inbox)  # read whole (explain, a preview): as a .mbox is, a page a message
    assert doc.kind == "mbox" and "walrus division" in doc.text and "X-Mozilla-Status" not in doc.text
    # its messages are read as .eml files are, like a .mbox's
    assert reader_version(f"{inbox}{MEMBER_SEP}2: Walrus report") == reader_version(f"a.mbox{MEMBER_SEP}2: x")


def test_a_maildir_message_is_one_message(stores: Path) -> None:
    msg = stores / "Maildir" / "cur" / "1733140000.M1P1.host:2,S"
    assert container_suffix(msg) == ".eml"
    doc = extract(msg)
    assert doc.kind == "eml" and doc.title == "Is dinner ready?"
    assert "hungry yet" in doc.text and "DKIM" not in doc.text and "QUJD" not in doc.text
    new = stores / "Maildir" / "new" / "1733140001.M2P2.host"
    new.write_bytes(_mail("Second", "A new one."))
    assert extract(new).kind == "eml"
    # its attachments are read by their own names, not as an mbox's messages
    assert reader_version(f"{msg}{MEMBER_SEP}scan.png") is None  # an image: OCR's, as a file of that name


@pytest.mark.parametrize("text", [
    b"From here on we keep the minutes.\nName: Bob\nAge: 3\n\nThe rest.\n",  # no mail header follows
    b"From the desk of Bob\nSubject: lunch\n\nOne mail-looking line is no message.\n",  # one alone
    b"From nobody today\n\nDate: Monday\nFrom: Bob\n",  # headers only after a blank line
    b"Subject: notes\nFrom: me\nTo: you\n\nNo From line: outside a Maildir folder, text.\n",
])
def test_plain_text_beginning_with_from_stays_text(tmp_path: Path, text: bytes) -> None:
    note = tmp_path / "NOTES"
    note.write_bytes(text)
    assert not is_container(note)
    assert extract(note).kind == "text"


@pytest.mark.parametrize("name", ["1700000000.M1P2.host:2,S", "message", "1."])
def test_a_sent_message_saved_outside_a_maildir_folder_is_one_message(tmp_path: Path, name: str) -> None:
    """A Maildir file copied out of its folder, an export's `message` or `1.`: read as text, headers and all."""
    msg = tmp_path / "Saved mail" / name
    msg.parent.mkdir()
    msg.write_bytes(_mail("Allotment rota", "The rota for the allotment is attached.", dkim=True))
    assert container_suffix(msg) == ".eml"
    doc = extract(msg)
    assert doc.kind == "eml" and doc.title == "Allotment rota" and "QUJD" not in doc.text
    assert reader_version(f"{msg}{MEMBER_SEP}rota.pdf") == reader_version("rota.pdf")  # an attachment: its own


def test_mail_in_a_file_a_reader_takes_by_name_keeps_that_reader(tmp_path: Path) -> None:
    saved = tmp_path / "cur" / "saved.txt"
    saved.parent.mkdir()
    saved.write_bytes(_mbox(_mail("Hello", "Body text.")))
    assert not is_container(saved) and extract(saved).kind == "text"


def test_sniffing_reads_a_bounded_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = mail_sniff.read_at_most
    monkeypatch.setattr(mail_sniff, "read_at_most", lambda fh, n: asked.append(n) or real(fh, n))
    big = tmp_path / "Archive"
    big.write_bytes(_mbox(_mail("Big", "x " * 100)) + b"y" * (4 * SNIFF_BYTES))
    assert container_suffix(big) == ".mbox" and asked == [SNIFF_BYTES]
    # a header block longer than the head is judged on the lines it holds (the cut last one left out)
    long_headers = b"From a b\nReturn-Path: <a@b>\nDate: Mon\n" + b"Received: from x\n" * (SNIFF_BYTES // 10)
    assert mail_suffix("Archive", long_headers[:SNIFF_BYTES]) == ".mbox"
    assert mail_suffix("Archive", b"From a b\nDate: Mon\nSubject: x\x00\n") == ""  # binary: never mail


def test_thunderbird_index_files_are_left_out_quietly(stores: Path) -> None:
    found = scan([stores], ScanConfig())
    names = [f.path.name for f in found.files]
    assert "Inbox" in names and "Inbox.msf" not in names
    assert not any(s.path.endswith(".msf") for s in found.skipped)


@pytest.mark.parametrize(("suffix", "what"), [(".pst", "an Outlook .pst data file"),
                                              (".ost", "an Outlook .ost offline data file")])
def test_outlook_data_files_are_said_plainly(tmp_path: Path, suffix: str, what: str) -> None:
    store = tmp_path / f"Outlook{suffix}"
    store.write_bytes(b"!BDN" + b"\x00" * 512)
    assert not takes_data(store)  # not read into memory only to be refused
    with pytest.raises(UnsupportedFileError) as exc:
        extract(store)
    assert str(exc.value) == f"{what}: not read (export the folders to .mbox or .eml)"


def test_text_read_before_without_a_suffix_is_read_again() -> None:
    """Files without a suffix read as text by version 2 (_TEXT_STEPS 1 + sniffed 1) may be mail now."""
    assert (reader_version("Inbox") or 0) > 2


def _forwarding(encoding: str, inner: bytes) -> bytes:
    body = base64.encodebytes(inner) if encoding == "base64" else quopri.encodestring(inner)
    return (b"MIME-Version: 1.0\nSubject: outer\nFrom: a@b\nContent-Type: multipart/mixed; boundary=\"XX\"\n\n"
            b"--XX\nContent-Type: text/plain\n\nSee attached.\n"
            b"--XX\nContent-Type: message/rfc822\nContent-Transfer-Encoding: " + encoding.encode()
            + b"\nContent-Disposition: attachment; filename=\"test.eml\"\n\n" + body + b"\n--XX--\n")


@pytest.mark.parametrize("encoding", ["base64", "quoted-printable"])
def test_a_forwarded_message_sent_encoded_is_decoded(tmp_path: Path, encoding: str) -> None:
    mail = tmp_path / "fwd.eml"
    mail.write_bytes(_forwarding(encoding, _mail("test2", "The inner body mentions ptarmigans=all.")))
    fwd = next(m for m in iter_members(mail, 2**20) if m.name == "test.eml")
    assert fwd.data is not None and fwd.date_ns == 1514887200 * 10**9, fwd.reason
    copy = tmp_path / "copy.eml"
    copy.write_bytes(fwd.data)
    doc = extract(copy)
    assert doc.title == "test2" and "ptarmigans=all" in doc.text


def test_an_encoded_forwarded_message_counts_against_the_budget_decoded(tmp_path: Path) -> None:
    """Decoding is bounded by the mail's own cap (decoded is shorter than its base64); what it makes is taken from
    the container's budget like any member's bytes."""
    mail = tmp_path / "fwd.eml"
    inner = _mail("big", "word " * 20_000)
    mail.write_bytes(_forwarding("base64", inner))
    fwd = next(m for m in iter_members(mail, 2**20, max_total=len(inner) - 1) if m.name == "test.eml")
    assert fwd.data is None and "budget" in fwd.reason
    fwd = next(m for m in iter_members(mail, 2**20, max_total=len(inner) + 100) if m.name == "test.eml")
    assert fwd.data is not None and b"word word" in fwd.data
