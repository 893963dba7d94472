"""A password written inside a connection string (decision 0197): `postgres://user:PASSWORD@host/db`,
`https://user:TOKEN@github.com/…`, `redis://:PASSWORD@host`, `jdbc:mysql://host/db?user=u&password=PASSWORD`.

Such a string stands in READMEs, notes, mails and config files beside words a person searches the file by, so the
file is not refused: the password alone is hidden, each of its characters written as `*` (the text keeps its
length, so every passage's and page's offsets stay where they were), in `extract`, which a sync and a preview both
read through. The index and a preview never hold it; the entry's note says that one was hidden, never what.

A password is one by decision 0190's rule on a value written out (written_credentials.is_credential): no
placeholder (`<password>`, `${DB_PASS}`, `****`, `password`, `changeme`, `xxx`), no default, no word of the
scheme's or the user's (`postgres://postgres:postgres1@`), read once its %-escapes are decoded (`a%20secret` is "a
secret", a sample with a space); a user without a password (`ssh://git@host`) is none.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from urllib.parse import unquote
from ..base.types import Document
from .written_credentials import is_credential

__all__ = ["connection_passwords", "hide_connection_passwords", "CONNECTION_MARKS", "HIDDEN_NOTE"]

# The userinfo of a URL with a password: "://", a user (none in `redis://:pw@`), ":", the password, "@". RFC 3986
# ends the authority at "/", "?" or "#", so neither holds one; quotes and angle brackets end a URL in text, and a
# comma a host of a multi-host URL (`https://foo.com:123,foo:bar@bar.com`: "123," is a port). The password runs to
# the authority's last "@": people write one unescaped (`mysql://root:Xk9@q2Lm@db`), and ending it at the first "@"
# left "q2Lm" in the index, or all of it where the part before was too short to judge. Begun at its literal "://",
# the engine skips from one URL to the next at the speed of a substring search; the user's run never backtracks
# and the password's backtracks within its 256 characters: each "://" costs a few hundred steps at most.
_USERINFO = re.compile(r"://(?P<user>[^\s/?#@:\"'<>]{0,128}+):(?P<password>[^\s/?#,\"'<>]{1,256})@")
# A JDBC URL's or a query's password parameter (`?user=u&password=…`, SQL Server's `;password=…`): begun at the "=",
# rare in prose, with its name asserted behind it; read as a URL's only when a "://" stands before it in the same
# word (looked for in _URL_BACK characters, no more).
_PARAMETER = re.compile(r"=(?:(?<=[?&;]password=)|(?<=[?&;]pwd=))(?P<password>[^\s&;#\"'<>]{1,256}+)", re.IGNORECASE)
_URL_BACK = 2048
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}$")
_LOOKED_AT = 1000  # passwords judged, at most: a text of a million costs this many judgements
CONNECTION_MARKS = ("://",)  # what a library's stored passages are asked for (SQL LIKE, decision 0184's way)
HIDDEN_NOTE = "secret: a password written in a connection string hidden"  # `status` counts the entries noted so
_MASK = "*"
log = logging.getLogger(__name__)


def connection_passwords(text: str) -> list[tuple[int, int, str]]:
    """(start, end, scheme) of each password written out in a connection string of `text`, in order. Past
    _LOOKED_AT of a kind, each is hidden unjudged: a text holding more was read with the later ones in it (1,000
    docs' samples, then a live password), and hiding a sample costs nothing but its stars."""
    found: list[tuple[int, int, str]] = []
    if "://" not in text:  # the common case, at the speed of a substring search
        return found
    for n, m in enumerate(_USERINFO.finditer(text)):
        scheme = _scheme(text, m.start())
        if n >= _LOOKED_AT or is_credential(unquote(m.group("password")), f"{scheme} {unquote(m.group('user'))}"):
            found.append((m.start("password"), m.end("password"), scheme))
    for n, m in enumerate(_PARAMETER.finditer(text)):
        if n >= _LOOKED_AT:  # no URL looked for before it either: each look reads up to _URL_BACK characters
            found.append((m.start("password"), m.end("password"), ""))
            continue
        url = _url_before(text, m.start())
        if url >= 0 and is_credential(unquote(m.group("password")), _scheme(text, url)):
            found.append((m.start("password"), m.end("password"), _scheme(text, url)))
    return sorted(found)


def _scheme(text: str, at: int) -> str:
    """The scheme written before the "://" at `at` ("postgres", "mongodb+srv"), or ""."""
    m = _SCHEME.search(text, max(0, at - 32), at)
    return m.group(0).lower() if m is not None else ""


def _url_before(text: str, at: int) -> int:
    """Where the "://" of the URL the character at `at` is part of stands, or -1: one before it in the same word
    (no space, quote or angle bracket between), within _URL_BACK characters."""
    start = max(0, at - _URL_BACK)
    word_start = max(text.rfind(c, start, at) for c in " \t\r\n\"'<>")
    return text.rfind("://", max(start, word_start + 1), at)


def hide_connection_passwords(doc: Document, where: str = "") -> Document:
    """`doc` with each password of a connection string written as as many `*` (in its text and its title, which
    the window and a search's hits show too), and a note saying how many (and of which schemes) were hidden, said
    as the caps' notes are (a sync's output names the file); `doc` itself when it holds none. `where`: the file's
    name in the warning."""
    found = connection_passwords(doc.text)
    in_title = connection_passwords(doc.title) if "://" in doc.title else []
    if not found and not in_title:
        return doc
    schemes = ", ".join(dict.fromkeys(s or "url" for _, _, s in found + in_title))
    note = f"{HIDDEN_NOTE} ({len(found) or len(in_title)}: {schemes})"
    log.warning("%s: %s", where or "file", note)
    return replace(doc, text=_masked(doc.text, found), title=_masked(doc.title, in_title), notes=(*doc.notes, note))


def _masked(text: str, found: list[tuple[int, int, str]]) -> str:
    """`text` with each of the `found` spans written as as many `*` (its length kept: every offset stays)."""
    parts: list[str] = []
    at = 0
    for start, end, _ in found:
        if start < at:  # (a URL's userinfo and a parameter of the same password: hidden once)
            continue
        parts += [text[at:start], _MASK * (end - start)]
        at = end
    parts.append(text[at:])
    return "".join(parts)
