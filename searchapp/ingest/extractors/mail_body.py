"""A message body made readable: what in it is data rather than prose is left out, never the whole message.

A newsletter can be mostly tracking links (`https://click.example.com/ls/click?upn=…` of 200 characters each);
judged whole, such a mail was refused as "not prose" and lost its subject, sender and sentences with it. So:
- a link longer than text_caps.LONG_WORD loses what makes it data: its query and fragment, and its path from the
  first long letter-and-digit stretch on (`click.example.com/ls/click…`). The site and the path's words are
  worth finding (`docs.example.org/guide/install-windows`, `github.com/org/repo/issues/1234`), a tracking tail
  is not, and nothing is fetched either way;
- a paragraph that is still not prose (a pasted base64 block, a hash list) is left out, and counted; a body that
  holds a private key is refused whole, as any file holding one is (ingest/secrets.py).
A delivery report's machine-readable part (message/delivery-status) is text: who could not be reached, why.
"""

from __future__ import annotations

import re
from email.message import Message
from typing import Callable

from ..secrets import refuse_secret_text
from ..text_caps import LONG_WORD, data_spans, not_prose_reason

__all__ = ["readable_body", "delivery_status"]

_URL = re.compile(r"\b(?:https?|ftp)://([^\s/?#<>\"'()\[\]]+)[^\s<>\"'()\[\]]*", re.I)
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
MAX_STATUS_BLOCKS = 100
MAX_STATUS_FIELDS = 30


MAX_LINK_KEPT = 160  # characters of a link's site and path kept: a path's words, not a whole listing


def _short(m: re.Match[str]) -> str:
    url = m.group(0)
    if len(url) <= LONG_WORD:
        return url
    site = m.group(1).rpartition("@")[2]  # user:password@ is never shown
    path = re.split(r"[?#]", url[m.end(1) - m.start(0):], maxsplit=1)[0]
    data = next(data_spans(path), None)  # text_caps' signs of data: a token, a UUID
    kept = (site + (path[:data[0]] if data else path))[:MAX_LINK_KEPT]
    if "@" not in m.group(1) and url.endswith(kept):
        return url  # nothing that is data: the link as written
    return kept + "…"


def readable_body(text: str) -> tuple[str, list[str]]:
    """(the body with long links shortened and paragraphs that are not prose left out, notes saying so).
    SecretFileError for a body holding a private key: the message is refused (decision 0177), not kept without
    its key paragraph, as a notes file holding one is (the registry looks at the body only as left here)."""
    refuse_secret_text(text)
    notes: list[str] = []
    shortened = 0

    def short(m: re.Match[str]) -> str:
        nonlocal shortened
        out = _short(m)
        shortened += out != m.group(0)
        return out

    text = _URL.sub(short, text)
    if shortened:
        notes.append(f"{shortened:,} long link(s) shortened (their query or data left out)")
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
