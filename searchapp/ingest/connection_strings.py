"""A password written inside a connection string (decision 0197): `postgres://user:PASSWORD@host/db`,
`https://user:TOKEN@github.com/…`, `redis://:PASSWORD@host`, `jdbc:mysql://host/db?user=u&password=PASSWORD`, and
one of keys and values outside a URL (ADO.NET's and ODBC's `Server=db;User Id=sa;Password=PASSWORD;`,
`Data Source=…;Pwd={PASSWORD}`, a JDBC URL's properties `jdbc:h2:mem:x;USER=sa;PASSWORD=…`, libpq's `host=db
user=u password=PASSWORD`).

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

__all__ = ["connection_passwords", "hide_connection_passwords", "may_hold_one", "CONNECTION_MARKS", "HIDDEN_NOTE"]

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
# A connection string of keys and values (0197's amendment): a `password` or `pwd` key, whole (`;`, a space, a quote
# or `{` before it: a form's `&password=` and a `db_password=` are none), `=`, its value (ODBC braces one holding a
# `;`, ADO.NET quotes it; a closing brace or quote inside is written twice, `{ab}}c}`, `"ab""c"`: _escaped_end).
# Begun at the "=", its key asserted behind it as _PARAMETER's is: the engine skips from one
# "=" to the next at the speed of a character search (2,000 small files, 10 MB: 8 ms; asking first whether a text
# holds one of _PAIR_MARKS took 25 ms, four substring searches of every text).
_PAIR = re.compile(r"""=(?:(?<=password=)|(?<=pwd=)|(?<=password[ ]=)|(?<=pwd[ ]=))[ \t]{0,4}+
    (?P<password>\{[^}\n]{1,256}\}|"[^"\n]{1,256}"|'[^'\n]{1,256}'|[^;\s"'<>{}]{1,256}+)""", re.IGNORECASE | re.VERBOSE)
_PAIR_KEY = re.compile(r"(?:^|(?<=[;\s\"'{]))(?P<key>password|pwd)[ ]?$", re.IGNORECASE | re.MULTILINE)
# ... beside another pair of a connection string (a server, a database, a user, a driver) in the same run: a line,
# or a quoted string, within _PAIR_AROUND characters either side, the pairs joined by ";" or spaces, never "&"
_CONNECTION_KEY = re.compile(r"""(?:^|(?<=[;\s"'{]))(?:server|data[ ]source|host|hostname|address|addr|database
    |initial[ ]catalog|dbname|user[ ]?id|uid|user|username|user[ ]name|driver|provider|dsn)[ ]?=""",
                             re.IGNORECASE | re.VERBOSE | re.MULTILINE)
_PAIR_MARKS = ("assword", "ASSWORD", "wd", "WD")  # a pair's key, case by case (`Password`, `PWD`, `pwd`)
_PAIR_AROUND = 512
_LOOKED_AT = 1000  # passwords judged, at most: a text of a million costs this many judgements
# What a library's stored passages are asked for (SQL LIKE, decision 0184's way): a URL, or a pair's key, each
# case written (PostgreSQL's LIKE heeds it)
CONNECTION_MARKS = ("://", *_PAIR_MARKS)
HIDDEN_NOTE = "secret: a password written in a connection string hidden"  # `status` counts the entries noted so
_MASK = "*"
log = logging.getLogger(__name__)


def connection_passwords(text: str) -> list[tuple[int, int, str]]:
    """(start, end, scheme) of each password written out in a connection string of `text`, in order. Past
    _LOOKED_AT of a kind, each is hidden unjudged: a text holding more was read with the later ones in it (1,000
    docs' samples, then a live password), and hiding a sample costs nothing but its stars."""
    found: list[tuple[int, int, str]] = []
    found += _pairs(text)
    if "://" not in text:  # the common case, at the speed of a substring search
        return sorted(found)
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
    # one password found as a URL's parameter and as a pair (`jdbc:sqlserver://db;user=sa;password=…`): once,
    # named by the URL's scheme, as far as the longer reading goes: a pair's value runs to ";" where a
    # parameter's stops at "&" or "#" (`password=ab#cd`), and the part past the shorter one was left shown
    named: dict[int, tuple[int, str]] = {}
    for start, end, scheme in found:
        had_end, had = named.get(start, (end, scheme))
        name = had if scheme.endswith("=") else scheme  # a pair's label ends with "=" ("Password=")
        named[start] = (max(end, had_end), name)
    return sorted((start, end, scheme) for start, (end, scheme) in named.items())


def may_hold_one(text: str) -> bool:
    """Whether `text` may hold a connection string's password at all (substring searches only): a URL or a pair."""
    return "://" in text or "=" in text


def _pairs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "Password=") of each password written as a connection string's pair (`…;Password=…;`)."""
    found: list[tuple[int, int, str]] = []
    for n, m in enumerate(_PAIR.finditer(text)):
        key = _PAIR_KEY.search(text, max(0, m.start() - 10), m.start())
        if key is None:  # `&password=` (a form), `db_password=` (a setting: 0190's rule's)
            continue
        start, after = m.span("password")
        end, value = after, text[start:after]
        if text[start] in "{\"'":  # its braces or quotes are no part of it; one written twice inside is one
            closing = "}" if text[start] == "{" else text[start]
            after = _escaped_end(text, after, closing)
            start, end = start + 1, after - 1
            value = text[start:end].replace(closing * 2, closing)  # `}}` read as a template's end otherwise
        label = key.group("key") + "="
        if n >= _LOOKED_AT:
            found.append((start, end, label))
            continue
        run_start, run_end = _run(text, key.start(), after)
        run = text[run_start:key.start()] + text[after:run_end]
        if _CONNECTION_KEY.search(run) is not None and is_credential(value, run):
            found.append((start, end, label))
    return found


def _escaped_end(text: str, end: int, closing: str) -> int:
    """The end of a braced or quoted value whose match ends at `end`, past its closing brace or quote: further on
    where that one is written twice (`{ab}}c}`, `"ab""c"`: ODBC's and ADO.NET's escapes), which ended the value
    there and left the rest shown. Its line and _PAIR_AROUND characters at most; a search, not a pattern: an
    alternation in _PAIR took 6 s on a 2 MB line of `Pwd={`."""
    limit = min(len(text), end + _PAIR_AROUND)
    while end < limit and text[end] == closing:
        after = text.find(closing, end + 1, limit)
        if after < 0 or "\n" in text[end + 1:after]:
            break
        end = after + 1
    return end


def _run(text: str, start: int, end: int) -> tuple[int, int]:
    """The part of its line, or of its quoted string, text[start:end] stands in: _PAIR_AROUND characters either
    side at most."""
    back = max(0, start - _PAIR_AROUND)
    run_start = max(text.rfind(c, back, start) for c in "\n\"'<>") + 1 or back
    ahead = [i for i in (text.find(c, end, end + _PAIR_AROUND) for c in "\n\"'<>") if i >= 0]
    return max(run_start, back), min(ahead, default=min(len(text), end + _PAIR_AROUND))


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
    in_title = connection_passwords(doc.title) if may_hold_one(doc.title) else []
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
        start = max(start, at)  # spans that overlap are hidden as one, to the end of the longer
        if end <= start:
            continue
        parts += [text[at:start], _MASK * (end - start)]
        at = end
    parts.append(text[at:])
    return "".join(parts)
