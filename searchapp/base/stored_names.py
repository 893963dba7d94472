"""File names that are not UTF-8: how the library stores them, finds them on disk again, and shows them (decision 0179).

A Linux file name is bytes. Files copied from old Windows disks, zips and Samba shares carry names in cp1252 or
Latin-1 (`R\\xe9sum\\xe9.txt`), which Python hands over with each byte that is not UTF-8 as a lone surrogate
(PEP 383: 'R\\udce9sum\\udce9.txt'); such a str cannot be written as UTF-8, so SQLite, JSON, a UTF-8 terminal
and Qt all refuse it. Three forms, one function to go from one to the other:

- stored (`stored_name`): valid UTF-8 names as they are; in any other name, each part (between slashes) that is
  not UTF-8 with each such byte, and each backslash, written as the four characters `\\xNN`
  ('R\\\\xe9sum\\\\xe9.txt'). Valid Unicode, so every layer can hold it; a name already stored stays as it is
  (a `key` pasted back from `--json` finds its file); a folder's stored name begins those of the names in it.
- on disk (`disk_path`): the stored form with its escapes undone, the exact bytes again (as Python's str).
- shown (`guessed_name`): each such byte read as Windows-1252 ('Résumé.txt'), for people only: the bytes'
  encoding is a guess, and a guess is never used to find a file.

Why the form is idempotent rather than marked: on Linux every character but NUL and "/" may be part of a name,
so no marker can tell "escaped" from "named like that", and a name no one can tell apart (a folder holding both
`R\\xe9sum\\xe9.txt` as bytes and a file literally named `R\\\\xe9sum\\\\xe9.txt`) shares one row: the one on
disk under the literal name wins. Undoing escapes is tried only on a part that `stored_name` could have written
(the round trip gives it back), so `a\\x41.txt` or `C:\\xfiles` are never taken for escaped names.
"""

from __future__ import annotations

import os
import re
from typing import Optional

__all__ = ["stored_name", "disk_path", "disk_bytes", "guessed_name", "cp1252_guess"]

_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # a byte that was not UTF-8 (surrogateescape)
_SURROGATE = re.compile("[\ud800-\udfff]")


def stored_name(path: str | os.PathLike[str]) -> str:
    """`path` as the library stores it: itself when it is valid UTF-8, else each of its parts (between slashes)
    that is not, with each byte that is not UTF-8 and each backslash written as `\\xNN` (a backslash too, so the
    bytes come back exactly: `a\\b\\xe9`). Part by part, so a folder's stored name begins every stored name
    under it (a folder `a\\b` keeps its backslash whatever the names below it are)."""
    s = os.fspath(path)
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return os.sep.join(_stored_part(part) for part in s.split(os.sep))


def _stored_part(part: str) -> str:
    try:
        part.encode("utf-8")
        return part
    except UnicodeEncodeError:
        pass
    try:
        raw = os.fsencode(part)
    except UnicodeEncodeError:  # a surrogate no file system gave (a high one): no exact bytes to keep
        return _SURROGATE.sub("\ufffd", part)
    return raw.replace(b"\\", b"\\x5c").decode("utf-8", "backslashreplace")


def _unescaped(stored: str) -> Optional[bytes]:
    """The bytes a stored name holds, when `stored_name` wrote one of its parts for a part that is not UTF-8; else
    None. A part is read back only when writing its bytes gives it again (`a\\x41` or `C:\\xfiles` are names)."""
    if "\\x" not in stored:
        return None
    parts, escaped = [], False
    for part in stored.split(os.sep):
        raw = part.encode("utf-8")
        if "\\x" in part:
            undone = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
            if _stored_part(os.fsdecode(undone)) == part:
                raw, escaped = undone, True
        parts.append(raw)
    return os.fsencode(os.sep).join(parts) if escaped else None


def disk_path(stored: str) -> str:
    """The name a stored name refers to on disk (a str with surrogates where the bytes are not UTF-8); the stored
    name itself when a file of that very name exists (see the module doc)."""
    raw = _unescaped(stored)
    if raw is None or os.path.lexists(stored):
        return stored
    return os.fsdecode(raw)


def disk_bytes(stored: str) -> Optional[bytes]:
    """The exact bytes of a stored name that is not UTF-8 on disk (what `--json` gives as `path_bytes_b64`);
    None for a name that is UTF-8."""
    path = disk_path(stored)
    return None if path == stored else os.fsencode(path)


def cp1252_guess(text: str) -> str:
    """`text` with each byte that was not UTF-8 (a surrogate escape) read as Windows-1252, the likeliest origin
    of a name or a word that is not UTF-8 (Latin-1's letters are the same); unassigned bytes and any other lone
    surrogate become U+FFFD. Valid text comes back as it is."""
    if text.isascii():
        return text
    text = _ESCAPED_BYTE.sub(lambda m: bytes([ord(m.group()) - 0xDC00]).decode("cp1252", "replace"), text)
    return _SURROGATE.sub("\ufffd", text)


def guessed_name(stored: str) -> str:
    """A stored name as people read it: with escaped bytes read as Windows-1252 (`R\\xe9sum\\xe9.txt` shows as
    `Résumé.txt`); a name that is UTF-8 as it is."""
    raw = _unescaped(stored)
    return stored if raw is None else cp1252_guess(os.fsdecode(raw))
