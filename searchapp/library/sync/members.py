"""The sync of a container's members (ingest/extractors/members.py): each member is an entry of its own.

A member is read only when its container is read again (the container's size, mtime or sha256 changed);
an unchanged container keeps its members as they are (`members_by_container` marks them seen). A member whose bytes
are unchanged keeps its passages. Members no longer in the container, or whose container is gone, are not
seen, so the sync removes them with the vanished files. An image member (and a PDF member with pages lacking
a text layer) waits for the OCR step like a file on disk; that step reads its bytes again from the container
(ocr/step.py), so nothing is kept on disk between the two.

Extractors read paths, so each member's bytes are written, one at a time, to a private copy (private_copy.py)
in a folder that is removed when the container is done; nothing else of a container touches the disk.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from ...base.config import Config
from ...base.errors import Cancelled, ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from ...ingest.extractors import extract
from ...base.member_paths import MEMBER_SEP, display_path, member_key, split_member
from ...ingest.extractors.mail_parse import parse_once
from ...ingest.extractors.embedded import DOCUMENT_SUFFIXES
from ...ingest.extractors.members import (Member, container_suffix, is_container, iter_members, listing,
                                          may_be_container)
from ...ingest.scan import ScannedFile
from ...ingest.generated import generated_reason, left_out_by_scan
from ...ingest.secrets import left_out_by_name, named_secret, secret_pattern
from ...ingest.valid_text import valid_unicode
from ...store import FileRow
from ...store.ledger import EMPTY
from .newer_reader import newer_reader
from .ocr_waits import PENDING, image_ocr_off, ocr_turned_on, pdf_waits_for_ocr, waits_for_ocr
from .file_boundary import file_failure, one_line
from .file_budget import FileBudget, too_long
from ..members.private_copy import write_private_copy
from ..members.temp_copies import private_temp_dir
from .contract import SyncReport

__all__ = ["Found", "index_container", "members_by_container", "is_container", "may_be_container", "secret_member",
           "left_out_changed", "IndexDoc", "RecordProblem"]


@dataclass(frozen=True)
class Found:
    """What the sync's read of a container found before index_container reads it: its `suffix`
    (container_suffix), its whole bytes (`data`, when that read kept them: hashed_with_bytes), and whether only its
    members are read (`members_only`: a document whose own text came from OCR, its bytes unchanged: the OCR step
    reads its own entry again, from its cache, where the words pass would drop its OCR'd passages until then)."""

    suffix: str = ""
    data: Optional[bytes] = None
    members_only: bool = False


class IndexDoc(Protocol):
    """Chunk and queue one entry, a member or the container's own text (words_pass._Sync.index_doc)."""

    def __call__(self, path: str, old: Optional[FileRow], f: ScannedFile, sha: str, doc: Document,
                 date_ns: Optional[int] = None, ocr: Optional[str] = None) -> None: ...


# Record a skip or failure of an entry: (path, its stored row, status, reason, the scanned file it is in).
RecordProblem = Callable[[str, Optional[FileRow], str, str, ScannedFile], None]


def members_by_container(existing: dict[str, FileRow]) -> dict[str, list[str]]:
    """{container: keys of its stored members} over the sync's `existing` rows, built once per sync: looking
    them up per unchanged file by scanning every row made an unchanged sync quadratic in the file count."""
    members: dict[str, list[str]] = {}
    for key in existing:
        container, member = split_member(key)
        if member is not None:
            members.setdefault(container, []).append(key)
    return members


def secret_member(name: str, config: Config) -> Optional[str]:
    """The `[scan] secret_files` pattern a member's name (its last part: `home/.ssh/id_rsa`) matches, else None."""
    return secret_pattern(name.rsplit("/", 1)[-1], config.scan.secret_files)


def left_out_changed(keys: list[str], existing: dict[str, FileRow], config: Config) -> bool:
    """Whether the settings that leave a member out unread would now decide otherwise for a stored one: the
    container is read again, and its members with it, each as the rules now say (a file on disk is told by the
    scan, which applies them to every file it lists)."""
    return any(_left_out_now(existing[k], split_member(k)[1] or "", config) for k in keys)


def _left_out_now(row: FileRow, name: str, config: Config) -> bool:
    """Whether `row`, a member named `name`, is left out otherwise than the rules now say. By name, `secret_files`:
    one named like a secret that is not left out as one (indexed before the rule, or before the setting named it),
    or one left out by a name the setting no longer matches. Then, as _one_member applies them, by `lockfiles` and
    `max_json_mb` (its row's size is its bytes'): one left out by them that they no longer leave out, or one
    indexed that they now would (a member skipped for another reason, empty or unreadable, is left as it is)."""
    secret = secret_member(name, config) is not None
    if secret != left_out_by_name(row.error):
        return True
    if secret:
        return False
    by_scan = left_out_by_scan(generated_reason(name.rsplit("/", 1)[-1], row.size, config.scan))
    return by_scan != left_out_by_scan(row.error) and (not by_scan or row.status == "indexed")


def index_container(f: ScannedFile, path: str, existing: dict[str, FileRow], sha: str, config: Config,
                    cancel: Optional[CancelToken], rep: SyncReport, index_doc: IndexDoc, problem: RecordProblem,
                    check_cancel: Callable[[], None], *, found: Found = Found()) -> set[str]:
    """Index the container `f` (stored as `path`) and each of its members; returns the member keys met.

    `index_doc(path, old, scanned, sha, doc, date_ns, ocr=None)` chunks and queues one entry; `problem(path, old,
    status, reason, scanned)` records a skip or failure. `found`: what the read that hashed it found (Found).
    Raises Cancelled (the caller commits what is done)."""
    seen: set[str] = set()  # filled as members are met: kept when the container fails halfway
    with parse_once():  # a mail is read as text, then as the container of its attachments: parsed once
        try:
            _index_container(f, path, existing, sha, config, cancel, rep, index_doc, problem, check_cancel, seen,
                             found)
        except Exception as exc:  # the per-file boundary, for the container (a BadZipFile, a struct.error, ...)
            reason = file_failure(exc)
            if reason is None:
                raise
            # Its members met so far are stored and counted: they must not be purged as vanished.
            problem(path, existing.get(path), "failed", reason, f)
    return seen


def _index_container(f: ScannedFile, path: str, existing: dict[str, FileRow], sha: str, config: Config,
                     cancel: Optional[CancelToken], rep: SyncReport, index_doc: IndexDoc, problem: RecordProblem,
                     check_cancel: Callable[[], None], seen: set[str], found: Found) -> None:
    max_bytes = int(config.scan.max_file_mb * 2**20)
    names: list[str] = []
    old_self = existing.get(path)
    # by name, or by content for a mailbox or message without a suffix and a document holding files
    suffix = found.suffix or container_suffix(f.path, found.data)
    own: Optional[Document] = None
    document = suffix in DOCUMENT_SUFFIXES  # a PDF or an Office file holding files: read by its reader, as ever
    # a message is its own text, its attachments its members; a document's own entry stays as it is when only its
    # members are read (Found.members_only)
    if (suffix in (".eml", ".msg") or document) and not found.members_only:
        budget = FileBudget(cancel, config.scan.file_budget_s) if document else cancel
        try:
            own = extract(f.path, max_bytes=max_bytes, max_chars=config.scan.max_text_chars, cancel=budget)
        except Cancelled:
            if not isinstance(budget, FileBudget) or not budget.expired:
                raise  # the sync's own cancel
            problem(path, old_self, "failed", too_long(budget.seconds), f)
            return
        except UnsupportedFileError as exc:  # skipped, or excluded: a message holding a key (decision 0177)
            problem(path, old_self, exc.status, str(exc), f)
            return
        except ExtractionError as exc:
            problem(path, old_self, "failed", str(exc), f)
            return
    # An attachment is dated by the message holding it (a lease sent 2025-08-14 was "today", the mailbox's time,
    # and date filters lost it): the dates of the members read so far, by name, and the message's own
    dates: dict[str, Optional[int]] = {}
    with private_temp_dir("members") as tmp:  # mkdtemp: 0700
        try:
            for m in iter_members(f.path, max_bytes, cancel, suffix=suffix, data=found.data):
                check_cancel()
                key = member_key(path, m.name)
                names.append(m.name)  # its reason, if not read, is its own row's (problem below)
                if m.date_ns is None:
                    m.date_ns = _holders_date(m.name, dates, own.date_ns if own is not None else None)
                dates[m.name] = m.date_ns
                if key in seen:
                    continue
                seen.add(key)
                rep.scanned += 1
                rep.members += 1
                old = existing.get(key)
                scanned = ScannedFile(f.path, len(m.data or b""), f.mtime_ns)
                if m.data is None:
                    problem(key, old, "skipped", m.reason, scanned)
                    continue
                try:
                    _one_member(key, m, old, scanned, tmp, config, cancel, rep, index_doc, problem)
                except Exception as exc:  # the per-file boundary, for one member: the others are read
                    reason = file_failure(exc)
                    if reason is None:
                        raise
                    problem(key, old, "failed", reason, scanned)
        except Cancelled:
            raise
        except (ExtractionError, UnsupportedFileError) as exc:
            status = exc.status if isinstance(exc, UnsupportedFileError) else "failed"
            problem(path, old_self, status, str(exc), f)
            return
        except (OSError, MemoryError, RecursionError) as exc:
            problem(path, old_self, "failed", one_line(f"cannot read container: {exc}"), f)
            return
    if found.members_only:
        return
    ocr = pdf_waits_for_ocr(own, config) if document and own is not None else None
    if own is None or (document and names and ocr != PENDING and not own.text.strip()):
        # A document of no text of its own but files (a slide of nothing but an embedded PDF) is found by what it
        # holds, as an archive is: "no text found" listed it as a problem beside its members, found (a newcomer).
        # A scan waiting for OCR keeps its wait: its text comes from there.
        text = listing(os.path.basename(path), names)
        # a tar member's name may hold surrogates (tarfile decodes with surrogateescape)
        kind = own.kind if own is not None else "mbox" if suffix == ".mbox" else "archive"
        own = Document(valid_unicode(text), kind=kind)
    index_doc(path, old_self, f, sha, own, None, ocr=ocr)


def _holders_date(name: str, dates: dict[str, Optional[int]], own: Optional[int]) -> Optional[int]:
    """The date of the nearest member holding `name` that has one (a message, for its attachment), else `own`
    (the container's: a message file's date for its attachments)."""
    while MEMBER_SEP in name:
        name = name.rsplit(MEMBER_SEP, 1)[0]
        if dates.get(name) is not None:
            return dates[name]
    return own


def _one_member(key: str, m: Member, old: Optional[FileRow], scanned: ScannedFile, tmp: str, config: Config,
                cancel: Optional[CancelToken], rep: SyncReport, index_doc: IndexDoc, problem: RecordProblem) -> None:
    assert m.data is not None  # a member without bytes is recorded as skipped before it comes here
    sha = hashlib.sha256(m.data).hexdigest()
    secret = secret_member(m.name, config)
    if secret is not None:  # a backup.zip of a home folder holds its .ssh/id_rsa too: never read (decision 0177)
        problem(key, old, "excluded", named_secret(secret), scanned)
        return
    generated = generated_reason(m.name.rsplit("/", 1)[-1], len(m.data), config.scan)
    if generated is not None:  # a project's zip holds its lockfiles and bundles too (decision 0178)
        problem(key, old, "excluded", generated, scanned)
        return
    if not m.data:
        problem(key, old, "skipped", EMPTY, scanned)
        return
    if (old is not None and old.sha256 == sha and old.status == "indexed" and not newer_reader(old)
            and not ocr_turned_on(old, config)):
        rep.unchanged += 1
        return
    if waits_for_ocr("member" + m.suffix, config):  # an image: read by the OCR step, like an image file
        index_doc(key, old, scanned, sha, Document("", kind="image"), m.date_ns, ocr="pending")
        return
    ocr_off = image_ocr_off("member" + m.suffix, config)
    if ocr_off is not None:
        problem(key, old, "skipped", ocr_off, scanned)
        return
    copy = write_private_copy(tmp, m.data, m.suffix)
    budget = FileBudget(cancel, config.scan.file_budget_s)  # each member has a file's budget
    try:
        # shown: its warnings name the member ("box.mbox › 3: Hello"), never the private copy's temporary path
        doc = extract(copy, max_bytes=int(config.scan.max_file_mb * 2**20),
                      max_chars=config.scan.max_text_chars, cancel=budget, shown=display_path(key))
    except Cancelled:
        if not budget.expired:
            raise  # the sync's own cancel
        problem(key, old, "failed", too_long(budget.seconds), scanned)
        return
    except UnsupportedFileError as exc:  # skipped, or excluded for a secret's text
        problem(key, old, exc.status, str(exc), scanned)
        return
    except ExtractionError as exc:
        problem(key, old, "failed", str(exc).replace(str(copy), "member"), scanned)
        return
    finally:
        copy.unlink(missing_ok=True)
    index_doc(key, old, scanned, sha, doc, m.date_ns, ocr=pdf_waits_for_ocr(doc, config))
