"""How a member of a container (an archive entry, an mbox message, a mail attachment) is named.

Decision: its key is the container's path, MEMBER_SEP (two path separators), then the member's name inside
it; a member of a member adds one more MEMBER_SEP. A real path never holds two separators in a row (every
path the scan meets is normalised), so a member can never share a row with a file on disk; and should a key
ever reach open(), the file system reads it as a path *through* the container file and refuses it (ENOTDIR)
instead of opening something else. Member names never hold MEMBER_SEP (ingest/extractors/members.py makes
them plain). People see DISPLAY_SEP instead: `archive.zip › folder/file.pdf`. A name may hold `›` itself (a
member named `inner.zip › fake.txt` is not the member fake.txt of inner.zip), so a shown name has its `›` and
its backslashes escaped: `archive.zip › inner.zip \\› fake.txt`; key_of reads both forms back.
"""

from __future__ import annotations

import base64
import os
import re
from typing import Any, Iterable, Optional

from .stored_names import disk_bytes, disk_path, guessed_name, stored_name

__all__ = ["MEMBER_SEP", "DISPLAY_SEP", "split_member", "on_disk", "member_order", "member_key", "display_path", "display_name", "display_folder",
           "container_of", "member_fields", "path_bytes", "shown_member", "key_of", "name_words"]

MEMBER_SEP = os.sep * 2
DISPLAY_SEP = " › "
_WORD = re.compile(r"\w+", re.UNICODE)


def split_member(path: str) -> tuple[str, Optional[str]]:
    """(container path, member name) for a member key; (path, None) for a file on disk."""
    i = path.find(MEMBER_SEP, 1)  # a leading "//" (POSIX allows it as a root) is not a separator
    return (path, None) if i < 0 else (path[:i], path[i + len(MEMBER_SEP):])


def on_disk(paths: Iterable[str]) -> int:
    """How many of `paths` (files' paths and members' keys) are files on disk: what "N files" counts. A folder of
    one mailbox of 60 messages removed was "61 files"."""
    return sum(1 for p in paths if split_member(p)[1] is None)


def member_order(path: str) -> tuple[Any, ...]:
    """A sort key that lists a container's members in their own order: a mailbox's message 2 before message 10
    (their names begin with their number, which sorted as text gave 1, 10, 11, …, 2, 20). Files themselves keep
    the order of their paths, each before its members."""
    first, member = split_member(path)
    members = member.split(MEMBER_SEP) if member is not None else []
    return (first, *((int(n), name) if (n := name.split(":", 1)[0]).isdigit() and ":" in name else (_LAST, name)
                     for name in members))


_LAST = 2**63  # a member without a number: after the numbered ones, by name


def container_of(path: str) -> str:
    """The file on disk that holds `path` (the path itself for a file)."""
    return split_member(path)[0]


def member_key(container: str, name: str) -> str:
    return container + MEMBER_SEP + name


def shown_member(member: str) -> str:
    """A member's name (nested parts joined by MEMBER_SEP) as people see it: parts joined by DISPLAY_SEP, a `›`
    or a backslash inside a part escaped with a backslash, so no name reads as a nested member."""
    return DISPLAY_SEP.join(p.replace("\\", "\\\\").replace("›", "\\›") for p in member.split(MEMBER_SEP))


def display_path(path: str) -> str:
    """`archive.zip › folder/file.pdf` for a member key, the path itself for a file; a name that is not UTF-8 as
    guessed (base/stored_names.py: guessed_name)."""
    container, member = split_member(path)
    shown = guessed_name(container)
    return shown if member is None else shown + DISPLAY_SEP + shown_member(member)


def display_name(path: str) -> str:
    """What a list's File column shows: the file's name, or `archive.zip › folder/file.pdf` for a member."""
    container, member = split_member(path)
    name = os.path.basename(guessed_name(container))
    return name if member is None else name + DISPLAY_SEP + shown_member(member)


def name_words(path: str) -> list[str]:
    """The lower-case words of a file's own name (a member's: its last part), `_` a space: what a search means by
    a name holding a word "as a whole word" (library/search: named.py, listings.py). `tax` is no word of
    `syntax.md`, nor `quote` of `quoted.mbox`: a name is matched as typed, never by a stem or a prefix."""
    return [w.lower() for w in _WORD.findall(os.path.basename(split_member(path)[1] or path).replace("_", " "))]


def key_of(path: str) -> str:
    """The key for a path as a person typed it: a key (`a.zip//x.pdf`), the shown form (`a.zip › x.pdf`, escapes
    read back), or a file's path; the container or file made absolute, and stored as the library stores names (a
    name that is not UTF-8 as typed in a shell, or as `--json` gives its key: base/stored_names.py). A shown form
    splits after the first part that is a file, so a folder named with ` › ` still works; a path that exists is a
    file's."""
    if MEMBER_SEP in path[1:]:
        container, member = split_member(path)
        return _stored_key(container, member or "")
    cuts = [m.start() for m in re.finditer(re.escape(DISPLAY_SEP), path)]
    if not cuts or os.path.lexists(path):
        return stored_name(_absolute(path))
    cut = next((c for c in cuts if os.path.isfile(disk_path(_absolute(path[:c])))), cuts[0])
    parts = path[cut + len(DISPLAY_SEP):].split(DISPLAY_SEP)  # a › inside a name is escaped: never a cut
    return _stored_key(path[:cut], MEMBER_SEP.join(re.sub(r"\\(.)", r"\1", p) for p in parts))


def _stored_key(container: str, member: str) -> str:
    return member_key(stored_name(_absolute(container)), stored_name(member))


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def display_folder(path: str) -> str:
    """What a list's Folder column shows: the folder holding the file, or holding a member's container."""
    return os.path.dirname(guessed_name(split_member(path)[0]))


def member_fields(path: str) -> dict[str, Optional[str]]:
    """The JSON every output gives an entry: `path` as shown, `container` and `member` (null for a file); and
    only where the name on disk is not UTF-8, `path_bytes_b64`: its exact bytes (a member's container's), which
    a script opens where `path` is a guess (decision 0179)."""
    container, member = split_member(path)
    return {"path": display_path(path), "container": container if member is not None else None, "member": member,
            **path_bytes(path)}


def path_bytes(path: str) -> dict[str, str]:
    """`{"path_bytes_b64": ...}`, the exact bytes of the name on disk of `path` (a member: its container's) where
    it is not UTF-8; else nothing."""
    raw = disk_bytes(split_member(path)[0])
    return {} if raw is None else {"path_bytes_b64": base64.b64encode(raw).decode("ascii")}
