"""Outlook .msg (MS-OXMSG): a message saved from Outlook, an OLE compound file of MAPI properties.

Each property is a stream named for its tag, `__substg1.0_<id><type>`: the subject (0037), the sender (0C1A,
5D01), the To line (0E04), the plain body (1000; the HTML body 1013 when there is none, reduced to its visible
text by the HTML reader), read as UTF-16 (type 001F) or in the message's code page (001E). The date is a fixed
property of `__properties_version1.0`. The text is laid out as an .eml's (mail.py): headers, the body,
"Attachments: a.pdf, b.xlsx". Each attachment storage (`__attach_version1.0_#n`) holds its file name (3707,
3704) and bytes (37010102): they are the message's members (members.py), indexed as files of their own.

Not read: the RTF body (1009, compressed; a message saved with only an RTF body gives its headers), and an
Outlook item attached to a message (named, with the reason). The extract-msg package reads all of this but is
GPL-3.0 and brings RTF and HTML parsers of its own; this is the part of the format a search needs (see
docs/decisions/0110-legacy-office-readers.md).
"""

from __future__ import annotations

import email.utils
import struct
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator, Optional

from ...base.entry_dates import date_ns
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text
from .html import html_to_text
from .mail_body import readable_body
from .ole import OleFile
from .title import clean_title

__all__ = ["read_msg", "msg_attachments", "MAX_ATTACHMENTS", "NESTED_MESSAGE"]

MAX_ATTACHMENTS = 500
MAX_PROPERTY_BYTES = 2**20  # a subject or a name
NESTED_MESSAGE = "an Outlook item attached to a message: not read"
_MAX_HEADER_CHARS = 2000
_ATTACH = "__attach_version1.0_#"
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=timezone.utc)


class _Props:
    """The string and binary properties of one storage ("" the message itself, else an attachment's)."""

    def __init__(self, ole: OleFile, storage: str = "", codepage: str = "cp1252") -> None:
        self.ole, self.prefix, self.codepage = ole, storage + "/" if storage else "", codepage

    def text(self, prop: int, cap: int = MAX_PROPERTY_BYTES, required: bool = False) -> str:
        """A string property; "" when missing. `required` (the body): a damaged one fails the file, else it is
        left out."""
        for kind, codec in (("001F", "utf-16-le"), ("001E", self.codepage)):
            name = f"{self.prefix}__substg1.0_{prop:04X}{kind}"
            raw = self.ole.stream(name, cap) if required and self.ole.exists(name) else self.ole.optional(name, cap)
            if raw is not None:
                return raw.decode(codec, "replace").rstrip("\x00")
        return ""

    def binary(self, prop: int, cap: int) -> Optional[bytes]:
        return self.ole.optional(f"{self.prefix}__substg1.0_{prop:04X}0102", cap)

    def fixed(self, header: int) -> dict[int, bytes]:
        """Tag -> 8-byte value of the fixed-size properties (`header`: 32 bytes for a message, 8 below it)."""
        raw = self.ole.optional(self.prefix + "__properties_version1.0", 2**20) or b""
        out: dict[int, bytes] = {}
        for at in range(header, len(raw) - 15, 16):
            tag = struct.unpack_from("<I", raw, at)[0]
            out[tag] = raw[at + 8:at + 16]
        return out


def _one_line(value: str) -> str:
    return " ".join(value.split())[:_MAX_HEADER_CHARS]


def _codepage(fixed: dict[int, bytes]) -> str:
    for tag in (0x3FDE0003, 0x3FFD0003):  # PidTagInternetCodepage, PidTagMessageCodepage
        if tag in fixed:
            number = struct.unpack_from("<i", fixed[tag])[0]
            name = "utf-8" if number == 65001 else f"cp{number}"
            try:
                "".encode(name)
                return name
            except LookupError:
                continue
    return "cp1252"


def _date(fixed: dict[int, bytes]) -> Optional[datetime]:
    for tag in (0x00390040, 0x0E060040):  # PidTagClientSubmitTime, PidTagMessageDeliveryTime (PT_SYSTIME)
        if tag in fixed:
            ticks = struct.unpack_from("<Q", fixed[tag])[0]
            try:
                return _FILETIME_EPOCH + timedelta(microseconds=ticks // 10)
            except (OverflowError, ValueError):
                continue
    return None


def read_msg(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    fixed = _Props(ole).fixed(32)
    props = _Props(ole, codepage=_codepage(fixed))
    subject = _one_line(props.text(0x0037))
    sender = _one_line(props.text(0x0C1A))
    address = _one_line(props.text(0x5D01) or props.text(0x0C1F))
    if address and not address.upper().startswith("/O=") and address not in sender:
        sender = f"{sender} <{address}>" if sender else address
    sent = _date(fixed)
    headers = [("Subject", subject), ("From", sender), ("To", _one_line(props.text(0x0E04))),
               ("Cc", _one_line(props.text(0x0E03))),  # PR_DISPLAY_CC, as To is PR_DISPLAY_TO
               ("Date", email.utils.format_datetime(sent) if sent is not None else "")]
    lines = [f"{name}: {value}" for name, value in headers if value]
    body = props.text(0x1000, max_bytes, required=True)
    if not body.strip():
        html = props.binary(0x1013, max_bytes)
        markup = html.decode(props.codepage, "replace") if html is not None else props.text(0x1013, max_bytes)
        body = html_to_text(markup, title=False, cancel=cancel) if markup else ""
    body, notes = readable_body(clean_text(body))
    if max_chars is not None:
        body = body[:max_chars + 1]  # the registry cuts exactly and says so
    text = "\n".join(lines) + "\n\n" + body.strip()
    names = [name for name, _, _ in _attachments(ole, props.codepage, 0)]
    if names:
        text += "\n\nAttachments: " + ", ".join(names[:100]) + (f", and {len(names) - 100} more" if len(names) > 100 else "")
    return Document(clean_text(text).strip(), kind="msg", notes=tuple(notes), title=clean_title(subject),
                    date_ns=date_ns(sent))  # dated by its message, as an .eml is (mail.message_document)


def _attachments(ole: OleFile, codepage: str, max_bytes: int) -> Iterator[tuple[str, Optional[bytes], str]]:
    """(file name, bytes or None, why not) of each attachment; bytes only read when `max_bytes` > 0."""
    storages = [s for s in ole.storages() if s.startswith(_ATTACH)]
    for n, storage in enumerate(sorted(storages)):
        if n >= MAX_ATTACHMENTS:
            yield "", None, f"only the first {MAX_ATTACHMENTS} attachments read"
            return
        props = _Props(ole, storage, codepage)
        name = _one_line(props.text(0x3707) or props.text(0x3704) or props.text(0x3001)) or f"attachment {n + 1}"
        name = name.replace("/", "\u2215").replace("\\", "\u2216")  # a name, never a path
        if ole.exists(f"{storage}/__substg1.0_3701000D"):
            yield name, None, NESTED_MESSAGE
            continue
        if max_bytes <= 0:
            yield name, None, ""
            continue
        data = props.binary(0x3701, max_bytes)
        yield (name, data, "") if data is not None else (name, None, "attachment data missing or too large")


def msg_attachments(src: Path | bytes, max_bytes: int) -> Iterator[tuple[str, Optional[bytes], str]]:
    """The attachments of a .msg (a path, or its bytes held in memory) for members.py."""
    with OleFile(src) as ole:
        codepage = _codepage(_Props(ole).fixed(32))
        yield from _attachments(ole, codepage, max_bytes)
