"""Members of containers: zip and tar entries, mbox messages, mail attachments, files embedded in a PDF, an Office
Open XML, Word, Excel or PowerPoint 97-2003 or RTF document (embedded.py) — each indexed as its own entry.

How a member is named (its key, `archive.zip//folder/file.pdf`, shown as `archive.zip › folder/file.pdf`): see
base/member_paths.py. Member names are made plain here: `..`, absolute names, empty parts and control
characters are refused or dropped, so a name never holds the separator itself.

Everything is read in memory with caps (bytes per member, bytes per container, members per container,
nesting depth); nothing is extracted to disk here. Links, devices and other special tar entries are skipped
with a reason, like encrypted or oversized members.
"""

from __future__ import annotations

import binascii
import io
import os
import quopri
import re
from dataclasses import dataclass
from pathlib import Path
from email.message import Message
from typing import Callable, Iterator, Optional, Sequence, cast

from ...base.member_paths import DISPLAY_SEP, MEMBER_SEP, display_path, member_key, shown_member, split_member
from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.stored_names import cp1252_guess, disk_path
from ...base.terminal import CONTROL_CHARS
from ...base.types import Document
from .embedded import DOCUMENT_SUFFIXES, embedded_files, holds_files
from .encoding import read_capped
from .tar_stream import STREAM_ERRORS, WalkCapReached, cut_short, ended_short, open_tar
from .mail import forwarded_name, header, message_date, parse_message, split_mbox
from .mail_msg import msg_attachments
from .mail_parse import parse, parts, parts_note
from .registry import sniffable, sniffed_suffix, takes_data
from .ziputil import MAX_TOTAL_BYTES, TRUNCATED, SafeZip, bomb_reason, entry_name

__all__ = ["MEMBER_SEP", "DISPLAY_SEP", "MAX_DEPTH", "MAX_MEMBERS", "ARCHIVE_SUFFIXES", "Member", "is_container", "is_listing_text",
           "container_suffix", "hashed_with_bytes", "named_container", "may_be_container", "iter_members", "split_member", "display_path", "member_key",
           "listing", "is_listing", "extract_archive", "read_member"]

MAX_DEPTH = 2  # a container inside a container is read; one inside that is skipped with a reason
MAX_MEMBERS = 2_000  # entries indexed per container (a zip's directory may list up to ziputil.MAX_MEMBERS)
MAX_NAME_CHARS = 240
ARCHIVE_SUFFIXES = frozenset({".zip", ".tar", ".tgz", ".gz"})  # .gz: only .tar.gz is an archive
_MAIL = frozenset({".eml", ".mbox", ".msg"})
_TARS = frozenset({".tar", ".tgz", ".tar.gz"})  # by _suffix(), which sees ".tar.gz" whole
_UNREAD = "not read (another member was asked for)"
_ENCODED = frozenset({"base64", "quoted-printable"})  # a forwarded message's transfer encodings that are undone


@dataclass
class Member:
    name: str  # inside the top container, nested parts joined by MEMBER_SEP
    data: Optional[bytes] = None  # None: skipped, see reason
    reason: str = ""
    date_ns: Optional[int] = None  # a message's Date header: the entry's own date for filters and sorting
    suffix: str = ""  # how to read `data` (".eml" for an mbox message)


def _suffix(name: str) -> str:
    low = name.lower()
    return ".tar.gz" if low.endswith(".tar.gz") else os.path.splitext(low)[1]


def named_container(name: str) -> bool:
    """Whether entries are read out of a file of this name (the reader decides by content)."""
    s = _suffix(name)
    return s in _MAIL or s == ".zip" or s in _TARS


def container_suffix(path: str | os.PathLike[str], data: Optional[bytes] = None) -> str:
    """How a file on disk is read as a container (".zip", ".tar.gz", ".mbox", ".eml", …), "" when it is none: by its
    name, else by its bytes: a PDF's or an Office file's whether it holds files (embedded.py), and, for a name no
    reader takes, its first bytes (an mbox or Maildir message without a suffix, mail_sniff.py). `data`: the whole
    file's bytes when the caller holds them (the read that hashed it: hashed_with_bytes), then the file is not
    opened again. Never for a member's name: there is no file of that name to look at."""
    name = os.fspath(path)
    if named_container(name):
        return _suffix(name)
    if _suffix(name) in DOCUMENT_SUFFIXES:  # a PDF or an Office file holding files (embedded.py); else its reader's
        return _suffix(name) if holds_files(Path(name) if data is None else data, name) else ""
    return sniffed_suffix(name, data)


def is_container(path: str | os.PathLike[str], data: Optional[bytes] = None) -> bool:
    """Whether entries are read out of this file on disk (container_suffix)."""
    return bool(container_suffix(path, data))


def hashed_with_bytes(path: str | os.PathLike[str]) -> bool:
    """Whether the read that hashes this file keeps its bytes (when within the file cap: file_sha256_and_bytes):
    its reader reads them (takes_data), or it is a PDF or an Office file, whose embedded files are told from them
    (container_suffix). A changed PDF was read once more only to tell whether it holds files (decision 0203)."""
    name = os.fspath(path)
    return takes_data(name) or _suffix(name) in DOCUMENT_SUFFIXES


def may_be_container(path: str | os.PathLike[str]) -> bool:
    """Whether this file on disk is a container by its name, or may be one by its first bytes, which are not read
    here (the sync's read-ahead keeps such a file in-process, where its bytes are read once for hash and sniff)."""
    name = os.fspath(path)
    return named_container(name) or sniffable(name)


def is_listing(path: str | os.PathLike[str]) -> bool:
    """Whether a container's own entry is its listing (an archive, an mbox: `listing`), not a message of its own
    (.eml, .msg: their attachments are their members). By its name alone: a search asks it of every candidate, and
    opening files to sniff them there is no search's to do (a Thunderbird Inbox's listing is not told apart)."""
    name = os.fspath(path)
    return named_container(name) and _suffix(name) not in (".eml", ".msg")


def _plain_name(raw: str) -> tuple[Optional[str], str]:
    """(name to store, "") or (None, why it is refused): traversal and absolute names never pass. Bytes that are
    not UTF-8 (a tar's names, which tarfile keeps as surrogates) are read as cp1252, as a file's name is shown
    (decision 0179): the same name each time the container is read, so `read_member` finds it again."""
    name = CONTROL_CHARS.sub("", cp1252_guess(raw).replace("\\", "/"))
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return None, f"absolute name refused: {name[:80]!r}"
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None, f"path traversal refused: {name[:80]!r}"
    if not parts:
        return None, "empty name"
    return "/".join(parts)[:MAX_NAME_CHARS], ""


def _refused_key(raw: str) -> str:
    """A refused name as stored and shown: its plain parts only (no `..`, no root), marked, so the key never
    reads as a path out of the container (`../../tmp/x` is `tmp/x (name refused)`); the reason keeps the raw
    name, quoted."""
    plain = CONTROL_CHARS.sub("", cp1252_guess(raw).replace("\\", "/"))
    parts = [p for p in plain.split("/") if p not in ("", ".", "..")]
    return ("/".join(parts)[:80] or "(no name)") + " (name refused)"


class _Budget:
    def __init__(self, max_member: int, max_total: int, cancel: Optional[CancelToken]) -> None:
        self.max_member, self.left, self.count, self.cancel = max_member, max_total, 0, cancel
        self.walk_left = max_total  # bytes a compressed tar may make this pass decompress, skipped bodies included

    def walk(self, n: int) -> bool:
        """Whether `n` more bytes may be decompressed to walk a compressed tar (tar_stream.py)."""
        if n > self.walk_left:
            return False
        self.walk_left -= n
        return True

    def walk_note(self) -> str:
        return f"rest of the archive not read: walking it would decompress more than {MAX_TOTAL_BYTES // 2**20} MB"

    def take(self, n: int) -> str:
        """"" when `n` more bytes may be read, else the reason they may not."""
        if self.cancel is not None:
            self.cancel.check()
        if n > self.max_member:
            return f"too large ({n / 2**20:.1f} MB > {self.max_member / 2**20:g} MB)"
        if n > self.left:
            return f"archive budget of {MAX_TOTAL_BYTES // 2**20} MB uncompressed used up"
        self.left -= n
        return ""


# An archive's entry: (raw name, its bytes or None, why it is not read, date in ns or None, the suffix it is read as).
_Entry = tuple[str, Optional[bytes], str, Optional[int], str]
_Want = Callable[[str], bool]  # is this raw entry name's body wanted (iter_members' `only`)


def _zip_members(src: Path | bytes, budget: _Budget, want: _Want) -> Iterator[tuple[str, Optional[bytes], str]]:
    # The directory's entry count is checked first; each member's size, the archive's budget and each member's
    # compression ratio (read: a bomb refused alone, never inflated) below, member by member.
    with SafeZip(src, archive=True) as z:
        for info in z.zf.infolist():
            if info.is_dir():
                continue
            name = entry_name(info)  # as its maker wrote it (a Japanese Windows zip's names are not cp437)
            if want(info.filename) and not want(name):
                name = info.filename  # asked for by the name an earlier version stored (read as cp437)
            why = bomb_reason(info) or budget.take(info.file_size)  # a bomb takes none of the budget
            if why or not want(name):  # not wanted: named, never inflated (budget taken all the same)
                yield name, None, why or _UNREAD
                continue
            try:
                yield name, z.read(info.filename), ""
            except ExtractionError as exc:  # encrypted, corrupt or lying about its size: this member only
                yield name, None, str(exc)


def _tar_members(src: Path | bytes, budget: _Budget, want: _Want) -> Iterator[tuple[str, Optional[bytes], str]]:
    """A skipped member's body is never read: a plain tar seeks past it, a compressed one decompresses past it
    within the pass's walk budget (tar_stream.py), so a gzip bomb costs one capped pass, not its size. A tar cut
    short is said in a zip's words (ziputil.TRUNCATED), raised once the members before the cut are yielded (a sync
    keeps those, and records the archive as failed, as it does a zip cut short)."""
    fh = io.BytesIO(src) if isinstance(src, bytes) else open_regular(src)
    try:
        with open_tar(fh, budget.walk) as tf:
            seen = 0
            while True:
                try:
                    m = tf.next()
                except WalkCapReached:
                    yield "", None, budget.walk_note()
                    return
                except STREAM_ERRORS as exc:
                    if cut_short(exc):
                        raise ExtractionError(TRUNCATED.format("archive")) from None
                    if seen == 0:
                        raise ExtractionError(f"corrupt tar archive: {exc}") from None
                    yield "", None, f"rest of the archive unreadable: {exc}"
                    return
                if m is None:
                    if ended_short(tf):  # tarfile ends without a word where a header is cut or missing
                        raise ExtractionError(TRUNCATED.format("archive"))
                    return
                seen += 1
                if seen > 10 * MAX_MEMBERS:  # walking headers of a huge archive costs decompression too
                    yield "", None, f"only the first {10 * MAX_MEMBERS:,} entries looked at"
                    return
                if m.isdir():
                    continue
                if not m.isreg():
                    kind = "symlink" if m.issym() else "hard link" if m.islnk() else "device or fifo"
                    yield m.name, None, f"{kind} member not read"
                    continue
                why = budget.take(m.size)
                if why or not want(m.name):
                    yield m.name, None, why or _UNREAD
                    continue
                try:
                    f = tf.extractfile(m)
                    data = f.read(m.size) if f is not None else b""
                except WalkCapReached:
                    yield m.name, None, budget.walk_note()
                    return
                except STREAM_ERRORS as exc:
                    if not cut_short(exc):
                        yield m.name, None, f"unreadable: {exc}"
                        return
                    yield m.name, None, TRUNCATED.format("archive")  # the member the cut fell in
                    raise ExtractionError(TRUNCATED.format("archive")) from None
                yield m.name, data[: m.size], ""
    except WalkCapReached:
        raise ExtractionError(budget.walk_note()) from None
    except STREAM_ERRORS as exc:
        if cut_short(exc):
            raise ExtractionError(TRUNCATED.format("archive")) from None
        raise ExtractionError(f"corrupt tar archive: {exc}") from None
    finally:
        fh.close()


def _mail_members(src: Path | bytes, suffix: str, budget: _Budget) -> Iterator[_Entry]:
    """(name, data, reason, date_ns, suffix): an mbox's messages, or an .eml's attachments and forwarded messages."""
    data = src if isinstance(src, bytes) else read_capped(src, budget.max_member)
    if suffix == ".mbox":
        for n, raw in enumerate(split_mbox(data), start=1):
            if budget.cancel is not None:
                budget.cancel.check()
            msg = parse_message(raw)
            subject = header(msg, "Subject").replace("/", "∕").replace("\\", "∖") or "(no subject)"
            yield f"{n}: {subject}"[:MAX_NAME_CHARS], raw, "", message_date(msg)[0], ".eml"
        return
    if suffix == ".msg":  # Outlook's: its attachments are streams of its compound file (mail_msg.py)
        for name, body, why in msg_attachments(data, budget.max_member):
            taken = budget.take(len(body)) if body is not None else ""
            yield name, None if taken else body, taken or why, None, ""
        return
    parsed = parse(data)
    yield from _attachments(parsed.msg, budget)
    if parsed.parts_left_out:  # listed and kept in the ledger like any member left out
        yield "", None, parts_note(parsed.parts_left_out), None, ""


def _attachments(msg: Message, budget: _Budget) -> Iterator[_Entry]:
    for part in parts(msg):
        if budget.cancel is not None:
            budget.cancel.check()
        if part.get_content_type() == "message/rfc822":  # a forwarded message: an entry with its own headers
            yield _forwarded(part, budget)
            continue
        try:
            name = part.get_filename()
        except Exception:
            name = None
        if not isinstance(name, str) or not name.strip():
            continue
        try:
            payload = part.get_payload(decode=True)
        except Exception:
            payload = None
        if not isinstance(payload, bytes):
            yield name, None, "attachment could not be decoded", None, ""
            continue
        why = budget.take(len(payload))
        yield (name, None, why, None, "") if why else (name, payload, "", None, "")


def _forwarded(part: Message, budget: _Budget) -> _Entry:
    name = forwarded_name(part)
    try:
        # typeshed's get_payload(i) is a union (Message | str | Any); a message/rfc822 part's payload 0 is its
        # Message, and a broken part's str fails at as_bytes() (AttributeError), which the except below takes.
        inner = cast(Message, part.get_payload(0))
        data = inner.as_bytes()
        encoding = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        if encoding in _ENCODED:  # decoded, it is smaller than its encoded text, within the container's cap
            data = _decoded_message(data, encoding)
            inner = parse_message(data)
    except Exception:  # IndexError (empty), headers the generator cannot write again, base64 that is not
        return name, None, "forwarded message could not be read", None, ".eml"
    why = budget.take(len(data))
    return (name, None, why, None, ".eml") if why else (name, data, "", message_date(inner)[0], ".eml")


def _decoded_message(encoded: bytes, encoding: str) -> bytes:
    """A forwarded message sent base64 or quoted-printable (RFC 2046 allows neither for message/rfc822, GroupWise
    sends base64): the parser took its encoded text for a message without headers, whose bytes these are."""
    if encoding == "base64":
        return binascii.a2b_base64(encoded)  # lenient: line breaks and other characters outside base64 dropped
    return quopri.decodestring(encoded.lstrip(b"\r\n"))


def _entries(src: Path | bytes, suffix: str, budget: _Budget, want: _Want) -> Iterator[_Entry]:
    if suffix == ".zip":
        return ((n, d, r, None, "") for n, d, r in _zip_members(src, budget, want))
    if suffix in _TARS:
        return ((n, d, r, None, "") for n, d, r in _tar_members(src, budget, want))
    if suffix in _MAIL:
        return _mail_members(src, suffix, budget)
    if suffix in DOCUMENT_SUFFIXES:
        return ((n, d, r, None, "") for n, d, r in embedded_files(src, suffix, budget.max_member, budget.take, want))
    raise UnsupportedFileError(f'unsupported archive type "{suffix}"')


def iter_members(path: Path, max_member_bytes: int, cancel: Optional[CancelToken] = None,
                 max_total: int = MAX_TOTAL_BYTES, only: Optional[str] = None, suffix: str = "",
                 data: Optional[bytes] = None) -> Iterator[Member]:
    """Every entry of a container, with its bytes or the reason it is skipped, one at a time (a caller keeps
    at most one member in memory). Raises ExtractionError when the container itself cannot be read.
    `only`: the one member whose bytes are wanted; the archive entries around it are named, with the reason
    _UNREAD, but not read (the budget counts them all the same, so it reads what a sync would). `suffix`: its
    container_suffix, when the caller knows it already; `data`: a document's bytes (a PDF's, an Office file's) when
    the caller holds them whole: its files are read from them, the file not opened again."""
    budget = _Budget(max_member_bytes, max_total, cancel)
    suffix = suffix or container_suffix(path) or _suffix(os.fspath(path))
    src: Path | bytes = data if data is not None and suffix in DOCUMENT_SUFFIXES else path
    yield from _walk(src, suffix, "", 1, budget, set(), only)


def _wanted(only: Optional[str], prefix: str) -> _Want:
    """For an archive's raw entry names: is its key `only`, or a container on the way to it?"""
    if only is None:
        return lambda raw: True

    def want(raw: str) -> bool:
        name = _plain_name(raw)[0]
        return name is not None and (only == prefix + name or only.startswith(prefix + name + MEMBER_SEP))
    return want


def _walk(src: Path | bytes, suffix: str, prefix: str, depth: int, budget: _Budget, names: set[str],
          only: Optional[str] = None) -> Iterator[Member]:
    for raw, data, why, date_ns, how in _entries(src, suffix, budget, _wanted(only, prefix)):
        if not raw:  # a note about the rest of the container
            yield Member(prefix + "…", None, why)
            continue
        name, refused = (cp1252_guess(raw), "") if how == ".eml" else _plain_name(raw)
        if name is None:
            yield Member(prefix + _refused_key(raw), None, refused)
            continue
        key = prefix + name
        if key in names:
            yield Member(key, None, "duplicate name in the archive (the first one is indexed)")
            continue
        names.add(key)
        if len(names) > MAX_MEMBERS:
            yield Member(prefix + "…", None, f"only the first {MAX_MEMBERS:,} members read")
            return
        inner = how or _suffix(name)
        if data is not None and inner in DOCUMENT_SUFFIXES and depth < MAX_DEPTH and holds_files(data, name):
            yield Member(key, data, why, date_ns, inner)  # a document is an entry of its own, its files below it
            try:
                yield from _walk(data, inner, key + MEMBER_SEP, depth + 1, budget, names, only)
            except (ExtractionError, UnsupportedFileError) as exc:  # its own entry's reader says it too
                yield Member(key + MEMBER_SEP + "…", None, f"embedded files not read: {exc}")
            continue
        if data is not None and named_container(name) or how == ".eml":
            if how == ".eml" or inner in _MAIL:  # a message is an entry of its own, its attachments below it
                yield Member(key, data, why, date_ns, how or inner)
            if data is None:
                continue
            if depth >= MAX_DEPTH:
                if inner not in _MAIL:
                    yield Member(key, None, f"nested deeper than {MAX_DEPTH} containers: not read")
                continue
            try:
                yield from _walk(data, inner, key + MEMBER_SEP, depth + 1, budget, names, only)
            except (ExtractionError, UnsupportedFileError) as exc:
                yield Member(key, None, str(exc))
            continue
        yield Member(key, data, why, date_ns, inner)


def listing(container: str, names: Sequence[str]) -> str:
    """A container's own text: its file name, then its members' names (`Member.name`, written as shown), one a line,
    so that an archive is found by what it holds (docs/formats.md). Names only: why a member was not read is that
    member's own reason (its row in the Not indexed list), never the container's words. Written as "name (not read:
    why)", the reasons of a zip of 135 imploded members were its text: it came first for "moby dick whale", its
    snippet the error, and first for "unsupported compression method"."""
    return f"{container}: {_counted(container, names)}\n" + "\n".join(shown_member(n) for n in names)


def is_listing_text(container: str, text: str) -> bool:
    """Whether `text` is `container`'s listing (listing above: its name, then how many members), as a document of
    no text of its own but files is stored: told by its heading, its name being no archive's (is_listing)."""
    heading = r": \d+ (?:member|message)s?(?: and \d+ (?:inside them|attachments?))?(?:\n|$)"  # _counted's
    return re.match(re.escape(os.path.basename(container)) + heading, text) is not None


def _counted(container: str, names: Sequence[str]) -> str:
    """How many members the heading says: those of the container itself, and those inside them apart ("60
    messages and 3 attachments": "63 members" said of a mailbox of 60 messages counted their attachments as
    messages). A note about the rest of a container ("…") is no member."""
    named = [n for n in names if n.rpartition(MEMBER_SEP)[2] != "…"]
    own = sum(MEMBER_SEP not in n for n in named)
    mbox = _suffix(container) == ".mbox"
    said = f"{own} {'message' if mbox else 'member'}{'s' if own != 1 else ''}"
    inner = len(named) - own
    return said + (f" and {inner} {'attachment' if mbox else 'inside them'}{'s' if mbox and inner != 1 else ''}"
                   if inner else "")


def extract_archive(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                    cancel: Optional[CancelToken] = None) -> Document:
    """An archive's own entry: the list of its members (each member is indexed as an entry of its own)."""
    if _suffix(os.fspath(path)) == ".gz":
        raise UnsupportedFileError('unsupported type ".gz" (only .tar.gz archives are read)')
    names = [m.name for m in iter_members(Path(path), max_bytes, cancel)]
    return Document(listing(os.path.basename(path), names), kind="archive")


def read_member(path: str, max_bytes: int, cancel: Optional[CancelToken] = None) -> Member:
    """The member a key names, read again from its container (Open, preview, explain)."""
    container, name = split_member(path)
    if name is None:
        raise ExtractionError(f"not a member of a container: {path}")
    for m in iter_members(Path(disk_path(container)), max_bytes, cancel, only=name):  # a stored key: decision 0179
        if m.name == name:
            if m.data is None:
                raise ExtractionError(f"{display_path(path)}: {m.reason}")
            return m
    raise ExtractionError(f"{display_path(path)}: no longer in its container")
