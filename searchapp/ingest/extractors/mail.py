"""Mail: .eml (one message) and .mbox (for now one document, a page per message).

A message's text is its Subject, From, To and Date lines, a blank line, the body (text/plain preferred, else
text/html reduced to its visible text by the HTML reader: nothing is fetched, scripts and images are dropped),
then "Attachments: a.pdf, b.xlsx" naming the attached files (a forwarded message is named "Its subject.eml").
Long tracking links are shortened and paragraphs that are not prose left out (mail_body.py); a delivery
report's status part is text. Attachments and forwarded messages are read as members of the message
(members.py). At most MAX_PARTS MIME parts are parsed (mail_parse.py), the rest counted in a note.

`message_document` is the unit: the .mbox reader uses it for each message, and the later step that makes
each message of an mbox its own search result (with its own date) will call it the same way. Until then an
.mbox is one file with one page per message (page = message number), capped at MAX_MESSAGES messages; the
whole file is within the size cap like any file.

The mbox is split here, on lines starting with "From " (the rule of the stdlib's mailbox.mbox), rather than
with mailbox.mbox itself: that opens the file read-write and indexes all of it, and a search tool opens the
user's files read-only and reads no more than the cap.

Outlook .msg is read by mail_msg.py (its MAPI properties in an OLE compound file), laid out as an .eml is.
"""

from __future__ import annotations

import email.utils
import re
from email.message import EmailMessage, Message
from pathlib import Path
from typing import Iterator, Optional

from ...base.entry_dates import date_ns
from ...base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.terminal import CONTROL_CHARS
from ...base.types import Document
from .encoding import clean_text, decode_text, read_capped
from .html import html_to_text
from .mail_body import delivery_status, readable_body
from .mail_parse import MAX_PARTS, parse, parts, parts_note
from .paged import PagedText
from .title import clean_title

__all__ = ["EML_SUFFIXES", "MBOX_SUFFIXES", "MSG_SUFFIXES", "MSG_REASON", "extract_eml", "extract_mbox",
           "extract_msg", "message_document", "parse_message", "split_mbox", "header", "message_date",
           "forwarded_name", "MAX_MESSAGES", "MAX_PARTS"]

EML_SUFFIXES = frozenset({".eml"})
MBOX_SUFFIXES = frozenset({".mbox"})
MSG_SUFFIXES = frozenset({".msg"})
MSG_REASON = "not an Outlook message (no OLE header)"

HEADERS = ("Subject", "From", "To", "Cc", "Date")
MAX_HEADER_CHARS = 2000  # a To: line of thousands of recipients is cut
MAX_RAW_HEADER = 4 * MAX_HEADER_CHARS  # raw characters parsed: room for encoded words around 2,000 decoded
MAX_ATTACHMENTS_LISTED = 100
MAX_NAME_CHARS = 200
MAX_MESSAGES = 10_000  # per .mbox
_WS = re.compile(r"\s+")
_FROM_LINE = re.compile(rb"^From ", re.M)


def _one_line(value: str, cap: int) -> str:
    return _WS.sub(" ", CONTROL_CHARS.sub(" ", value[:4 * cap])).strip()[:cap]


def header(msg: Message, name: str) -> str:
    """A header's decoded value as one line; "" when missing or too broken to decode. Its raw value is cut
    before the header parser sees it (_raw_capped)."""
    try:
        raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), None)
        if raw is None:
            return ""
        value = msg.policy.header_fetch_parse(name, _raw_capped(str(raw)))
        return _one_line(str(value), MAX_HEADER_CHARS)
    except Exception:  # the header parser on hostile input: the rest of the message is still good
        return ""


def _raw_capped(raw: str) -> str:
    """At most MAX_RAW_HEADER characters of a raw header value, cut after a space or comma when there is one in
    its second half (an address or an encoded word is not cut in two). The stdlib's header parser takes time
    super-linear in its input: a To: of 40,000 addresses took 34 s, a Subject of 40,000 encoded words 100 s,
    all of it before the MAX_HEADER_CHARS cut."""
    if len(raw) <= MAX_RAW_HEADER:
        return raw
    cut = max(raw.rfind(" ", 0, MAX_RAW_HEADER), raw.rfind(",", 0, MAX_RAW_HEADER))
    return raw[:cut if cut > MAX_RAW_HEADER // 2 else MAX_RAW_HEADER]


def message_date(msg: Message) -> tuple[Optional[int], str]:
    """(the Date header in ns since the epoch, "") or (None, why it is not used: "" when there is none).
    Never raises: a year 1000 or 9999, or no date at all, leaves the entry its file's own date."""
    try:  # unparsed: the header registry's own parse raises OverflowError on a year of 11 digits
        value = _one_line(str(next((v for k, v in msg.raw_items() if k.lower() == "date"), "")), MAX_HEADER_CHARS)
    except Exception:
        value = ""
    if not value:
        return None, ""
    try:
        ns = date_ns(email.utils.parsedate_to_datetime(value))
    except Exception:  # ValueError, OverflowError (a year of 11 digits), TypeError: not a date
        return None, f"Date header not understood: {value[:80]!r}"
    return (ns, "") if ns is not None else (None, f"Date header out of range: {value[:80]!r}")


def _decoded(part: Message) -> str:
    """A text part's content as str, with its declared charset when that is a real one."""
    try:
        payload = part.get_payload(decode=True)  # base64 / quoted-printable undone, leniently
        charset = part.get_content_charset()
    except Exception:
        return ""
    if not isinstance(payload, bytes):
        return ""
    try:
        return decode_text(payload, declared=charset)
    except (UnsupportedFileError, ExtractionError):  # binary content labelled as text
        return ""


def _body(msg: EmailMessage, cancel: Optional[CancelToken]) -> tuple[str, Optional[Message]]:
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except MemoryError:
        raise
    except Exception:  # RecursionError on parts nested thousands deep, or a broken structure: headers remain
        return "", None
    if part is None:
        return "", None
    text = _decoded(part)
    if part.get_content_type() == "text/html":
        text = html_to_text(text, title=False, cancel=cancel)
    return text, part


def forwarded_name(part: Message) -> str:
    """The name a forwarded message (a message/rfc822 part) goes by: its file name, else "Subject.eml"."""
    try:
        name = part.get_filename()
    except Exception:
        name = None
    name = _one_line(name, MAX_NAME_CHARS) if isinstance(name, str) else ""
    if not name:
        inner = part.get_payload(0) if isinstance(part.get_payload(), list) and part.get_payload() else None
        subject = header(inner, "Subject") if isinstance(inner, Message) else ""
        name = (subject or "forwarded message")[:MAX_NAME_CHARS - 4] + ".eml"
    if not name.strip(". "):  # "." or ".." is no name
        name = "forwarded message.eml"
    return name.replace("/", "\u2215").replace("\\", "\u2216")  # a name, never a path


def _attachments(msg: Message, body: Optional[Message]) -> list[str]:
    names: list[str] = []
    more = 0
    for part in parts(msg):
        if part is body:
            continue
        name: Optional[str]
        if part.get_content_type() == "message/rfc822":
            name = forwarded_name(part)
        else:
            try:
                name = part.get_filename()
            except Exception:
                name = None
            name = _one_line(name, MAX_NAME_CHARS) if isinstance(name, str) else ""
        if not name:
            continue
        if len(names) < MAX_ATTACHMENTS_LISTED:
            names.append(name)
        else:
            more += 1
    if more:
        names.append(f"and {more} more")
    return names


def message_document(msg: EmailMessage, max_chars: Optional[int] = None,
                     cancel: Optional[CancelToken] = None, parts_left_out: int = 0) -> Document:
    """One message as a Document (see the module doc); its title is the subject. `parts_left_out`: MIME parts
    the parse left out (mail_parse.Parsed), said in a note."""
    lines = [f"{name}: {value}" for name in HEADERS if (value := header(msg, name))]
    body, part = _body(msg, cancel)
    body, notes = readable_body(body)
    reports = [r for p in parts(msg) if p.get_content_type() == "message/delivery-status"
               and (r := delivery_status(p, lambda v: _one_line(v, MAX_HEADER_CHARS)))]
    body = "\n\n".join(t for t in [body.strip(), *reports] if t)
    if max_chars is not None:
        body = body[:max_chars + 1]  # the registry cuts exactly and says so
    text = "\n".join(lines) + "\n\n" + body
    attachments = _attachments(msg, part)
    if attachments:
        text += "\n\nAttachments: " + ", ".join(attachments)
    when, why = message_date(msg)
    notes += [n for n in (why, parts_note(parts_left_out)) if n]
    return Document(clean_text(text).strip(), kind="eml", notes=tuple(notes), title=clean_title(header(msg, "Subject")),
                    date_ns=when)  # a message file is dated as a message of an mbox is


def parse_message(data: bytes) -> EmailMessage:
    """`data` parsed, at most MAX_PARTS MIME parts of it (mail_parse.parse says what was left out)."""
    return parse(data).msg


def extract_eml(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    parsed = parse(read_capped(path, max_bytes))
    return message_document(parsed.msg, max_chars, cancel, parsed.parts_left_out)


def extract_msg(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    from .mail_msg import read_msg
    from .ole import OleFile, sniff

    if sniff(path) != "ole":
        raise UnsupportedFileError(MSG_REASON)
    with OleFile(path) as ole:
        return read_msg(ole, max_bytes, max_chars, cancel)


def split_mbox(data: bytes) -> Iterator[bytes]:
    """Each message of an mbox, without its "From " separator line."""
    starts = [m.start() for m in _FROM_LINE.finditer(data)]
    if not starts:
        raise ExtractionError('not an mbox file: no "From " line starts a message')
    for a, b in zip(starts, starts[1:] + [len(data)], strict=True):
        head = data.find(b"\n", a, b)
        yield data[head + 1:b] if head >= 0 else b""


def extract_mbox(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    pages = PagedText(max_chars)
    pages.note("one page per message")
    failed: list[int] = []
    capped = 0
    for number, raw in enumerate(split_mbox(read_capped(path, max_bytes)), start=1):
        if cancel is not None:
            cancel.check()
        if number > MAX_MESSAGES:
            pages.note(f"only the first {MAX_MESSAGES:,} messages read")
            break
        if pages.full:
            break
        try:
            parsed = parse(raw)
            capped += parsed.parts_left_out > 0
            pages.add(number, message_document(parsed.msg, max_chars, cancel).text)
        except (MemoryError, Cancelled):
            raise
        except Exception:  # e.g. RecursionError from the parser: one hostile message, the others are kept
            failed.append(number)
    if failed:
        pages.note(f"{len(failed)} message(s) could not be read (first: message {failed[0]})")
    if capped:
        pages.note(f"{capped} message(s) had MIME parts past the first {MAX_PARTS:,} left out")
    return pages.document("mbox")
