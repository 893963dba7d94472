"""A message's bytes into a parsed message: its MIME parts capped before the parser sees them, parsed once.

The stdlib parser builds every part in full: a 28 MB mail of 300,000 tiny parts cost minutes and 400 MB,
of which the sync read 1,000 parts. So the bytes are cut first, at the start of part MAX_PARTS + 1: the
boundary delimiter lines (`--` and a boundary some Content-Type header declares) are counted in one
regex pass, and what follows the cut is left out and counted (`Parsed.parts_left_out`). A cut message is a
multipart without its closing delimiter, which the parser takes leniently.

A sync reads a mail's text and then its attachments (and an mbox message's text, then its attachments):
inside `parse_once()` a message already parsed from the same bytes is reused rather than parsed again.
"""

from __future__ import annotations

import contextlib
import contextvars
import email
import email.policy
import re
from collections import OrderedDict
from dataclasses import dataclass
from email.message import EmailMessage, Message
from typing import Iterator, Optional

__all__ = ["MAX_PARTS", "Parsed", "parse", "parse_once", "parts", "parts_note"]

MAX_PARTS = 1000  # MIME parts read per message
_KEPT = 4  # messages remembered inside parse_once(): a mail, or an mbox message and the one before it
_BOUNDARY = re.compile(rb'boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.I)
_DELIMITER = re.compile(rb"^--([^\r\n]{1,300})", re.M)


@dataclass(frozen=True)
class Parsed:
    msg: EmailMessage
    parts_left_out: int = 0  # MIME parts after the first MAX_PARTS, never parsed


def _cut(data: bytes) -> tuple[bytes, int]:
    """(data up to the start of part MAX_PARTS + 1, how many parts follow there)."""
    if data.count(b"\n--") < MAX_PARTS:  # the usual mail: no delimiter scan at all
        return data, 0
    boundaries = {a or b for a, b in _BOUNDARY.findall(data)}
    if not boundaries:
        return data, 0
    cut, count = len(data), 0
    for m in _DELIMITER.finditer(data):
        rest = m.group(1).rstrip(b" \t")
        if rest in boundaries:  # a delimiter opens a part; a close delimiter (rest ends in "--") does not
            count += 1
            if count == MAX_PARTS + 1:
                cut = m.start()
    return data[:cut], max(0, count - MAX_PARTS)


def _parse(data: bytes) -> Parsed:
    head, left_out = _cut(data)
    return Parsed(email.message_from_bytes(head, policy=email.policy.default), left_out)


_once: contextvars.ContextVar[Optional[OrderedDict[bytes, Parsed]]] = contextvars.ContextVar("mail_parse_once", default=None)


def parse(data: bytes) -> Parsed:
    """`data` parsed, with at most MAX_PARTS parts; inside parse_once(), the same bytes are parsed once."""
    kept = _once.get()
    if kept is None:
        return _parse(data)
    found = kept.get(data)
    if found is None:
        found = kept[data] = _parse(data)
        while len(kept) > _KEPT:
            kept.popitem(last=False)
    else:
        kept.move_to_end(data)
    return found


@contextlib.contextmanager
def parse_once() -> Iterator[None]:
    """Within this block (this thread or task only), a message parsed from bytes equal to earlier ones is the
    earlier message: the sync reads one mail as text and as a container of attachments. Nothing is kept after."""
    token = _once.set(OrderedDict())
    try:
        yield
    finally:
        _once.reset(token)


def parts(msg: Message) -> Iterator[Message]:
    """The leaf parts of `msg` in order, at most MAX_PARTS looked at. Only multipart/* is walked into: a
    forwarded message (message/rfc822) or a delivery report (message/delivery-status) is one part, its
    inner parts its own. A stack, not recursion, so nesting cannot hit the recursion limit."""
    stack, seen = [msg], 0
    while stack and seen <= MAX_PARTS:  # the message itself and its MAX_PARTS parts
        part = stack.pop()
        seen += 1
        payload = part.get_payload() if part.get_content_maintype() == "multipart" else None
        if isinstance(payload, list):
            stack.extend(reversed([p for p in payload if isinstance(p, Message)]))
        else:
            yield part


def parts_note(left_out: int) -> str:
    return f"only the first {MAX_PARTS:,} MIME parts read; {left_out:,} left out" if left_out else ""
