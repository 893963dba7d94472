"""Mail stores whose files have no suffix: a Thunderbird or Unix mbox ("Inbox", "Sent") and a Maildir message
("cur/1733140000.M1P1.host:2,S"), told by their first bytes, so each is read as a .mbox or an .eml is.

Only a file whose suffix no reader takes is looked at (the registry asks), and only its first SNIFF_BYTES: a
header block is all it takes. Pure byte matching, no mail parser: a command that reads a README imports nothing
more for it (registry.py, issue 45).

An mbox starts with a "From " line followed by header fields; a Maildir message is a file in a cur/ or new/ folder
that starts with header fields. Either way the fields must include real mail headers (HEADER_NAMES): a note that
begins "From here on:" and goes on "Name: Bob" is text, not a mailbox.

A message saved anywhere else without a suffix (a Maildir file copied out of its folder, `1700000000.M1P2.host:2,S`;
an export's `message` or `1.`) is one too when its header block also holds a field only a mail on its way holds
(SENT_NAMES: Received, Message-ID, MIME-Version, ...): a note that begins "Subject: notes / From: me / To: you" is
written so by a person, a message that went through a mail server never lacks all of those.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from ...base.safe_open import open_regular, read_at_most

__all__ = ["SNIFF_BYTES", "MAILDIR_FOLDERS", "SENT_NAMES", "mail_suffix", "sniff_mail"]

SNIFF_BYTES = 64 * 1024  # room for a header block of long Received: chains and DKIM signatures
MAILDIR_FOLDERS = frozenset({"cur", "new"})  # tmp/ holds messages still being written: left to the text reader
MIN_MAIL_HEADERS = 2  # of HEADER_NAMES: one "Subject:" line could begin any note
HEADER_NAMES = frozenset(
    "from to cc subject date message-id received return-path delivered-to reply-to sender mime-version "
    "content-type dkim-signature x-mozilla-status in-reply-to references".split()
)
# Fields a mail server or a mail program writes, and a person's note does not: one of them among the headers makes a
# file outside a Maildir folder a message (a note may well begin with Subject:, From: and To:)
SENT_NAMES = frozenset("received message-id mime-version return-path delivered-to dkim-signature x-mozilla-status "
                       "in-reply-to references".split())
_FROM_LINE = re.compile(rb"From \S+ [^\r\n]*\r?\n")
_FIELD = re.compile(rb"([!-9;-~]{1,76}):")  # RFC 5322 field name: printable ASCII but ':' (cut: a name, not a line)


def _mail_headers(head: bytes, sent: bool = False) -> bool:
    """Whether `head` begins with an RFC 5322 header block holding at least MIN_MAIL_HEADERS known mail fields
    (`sent`: one of them of SENT_NAMES). Every line up to the first blank one (or the sample's end) must be a field or
    a folded continuation."""
    lines = head.split(b"\n")
    if len(head) >= SNIFF_BYTES:
        lines = lines[:-1]  # the last line may be cut off by the sample
    known: set[bytes] = set()
    for i, line in enumerate(lines):
        line = line.rstrip(b"\r")
        if not line:
            break
        if line[:1] in (b" ", b"\t"):
            if i == 0:
                return False  # a continuation of nothing
            continue
        m = _FIELD.match(line)
        if m is None:
            return False
        known.add(m.group(1).lower())
    return len(known & _HEADER_BYTES) >= MIN_MAIL_HEADERS and (not sent or bool(known & _SENT_BYTES))


_HEADER_BYTES = frozenset(n.encode() for n in HEADER_NAMES)
_SENT_BYTES = frozenset(n.encode() for n in SENT_NAMES)


def mail_suffix(path: str | os.PathLike[str], head: bytes) -> str:
    """".mbox" or ".eml" when `head` (a file's first bytes) is a mailbox or a message, "" otherwise. A file in
    a Maildir folder is one message even when a delivery agent wrote a "From " line first; one elsewhere that starts
    with the header fields of a mail that was sent is one message too."""
    if b"\x00" in head:
        return ""
    folder = os.path.basename(os.path.dirname(os.fspath(path)))
    if folder in MAILDIR_FOLDERS:
        m = _FROM_LINE.match(head)
        return ".eml" if _mail_headers(head[m.end():] if m else head) else ""
    m = _FROM_LINE.match(head)
    if m:
        return ".mbox" if _mail_headers(head[m.end():]) else ""
    return ".eml" if _mail_headers(head, sent=True) else ""


def sniff_mail(path: str | os.PathLike[str], head: Optional[bytes] = None) -> str:
    """mail_suffix of `path`, from `head` (its bytes, when the caller holds them) or its first SNIFF_BYTES.
    Never raises: a file that cannot be read is no mail here (its reader says why)."""
    if head is None:
        try:
            with open_regular(path) as fh:
                head = read_at_most(fh, SNIFF_BYTES)
        except Exception:  # OSError, UnsupportedFileError (a FIFO, a folder): the reader reports it
            return ""
    return mail_suffix(path, head[:SNIFF_BYTES])
