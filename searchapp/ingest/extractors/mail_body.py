"""A message body made readable: what in it is data rather than prose is left out, never the whole message.

A newsletter can be mostly tracking links (`https://click.example.com/ls/click?upn=…` of 200 characters each);
judged whole, such a mail was refused as "not prose" and lost its subject, sender and sentences with it. So:
- a link longer than text_caps.LONG_WORD is shortened to its site (`click.example.com/…`): the site is a word
  worth finding, the tracking tail is not, and nothing is fetched either way;
- a paragraph that is still not prose (a pasted base64 block, a hash list) is left out, and counted.
A delivery report's machine-readable part (message/delivery-status) is text: who could not be reached, why.
"""

from __future__ import annotations

import re
from email.message import Message
from typing import Callable

from ..text_caps import LONG_WORD, not_prose_reason

__all__ = ["readable_body", "delivery_status"]

_URL = re.compile(r"\b(?:https?|ftp)://([^\s/?#<>\"'()\[\]]+)[^\s<>\"'()\[\]]*", re.I)
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
MAX_STATUS_BLOCKS = 100
MAX_STATUS_FIELDS = 30


def _short(m: re.Match[str]) -> str:
    url = m.group(0)
    if len(url) <= LONG_WORD:
        return url
    site = m.group(1).rpartition("@")[2]  # user:password@ is never shown
    return site[:LONG_WORD] + "/…"


def readable_body(text: str) -> tuple[str, list[str]]:
    """(the body with long links shortened and paragraphs that are not prose left out, notes saying so)."""
    notes: list[str] = []
    shortened = 0

    def short(m: re.Match[str]) -> str:
        nonlocal shortened
        out = _short(m)
        shortened += out != m.group(0)
        return out

    text = _URL.sub(short, text)
    if shortened:
        notes.append(f"{shortened:,} long link(s) shortened to their site")
    paragraphs = _PARAGRAPHS.split(text)
    kept = [p for p in paragraphs if not_prose_reason(p) is None]
    if len(kept) < len(paragraphs):
        notes.append(f"{len(paragraphs) - len(kept):,} paragraph(s) of the body that are not prose left out "
                     "(base64, hashes or the like)")
        text = "\n\n".join(kept)
    return text, notes


def delivery_status(part: Message, one_line: Callable[[str], str]) -> str:
    """A message/delivery-status part as "Field: value" lines, a blank line between recipients."""
    try:
        blocks = part.get_payload()
        if not isinstance(blocks, list):
            return ""
        out = []
        for block in blocks[:MAX_STATUS_BLOCKS]:
            if isinstance(block, Message):
                lines = [f"{k}: {one_line(str(v))}" for k, v in list(block.raw_items())[:MAX_STATUS_FIELDS]]
                out.append("\n".join(line for line in lines if not line.endswith(": ")))
        return "\n\n".join(b for b in out if b)
    except Exception:  # a report too broken to read: the rest of the message is still good
        return ""
