"""`explain PATH`: why a file is (or is not) found — its folder, the rule that applies, its state, its text.

The rules are the scan's own (ingest/scan.py through roots.in_scope and ingest/exclude.py, the names of secrets
of ingest/secrets.py, the registry's supported types, the size cap), asked about one path instead of
re-implemented. A member of a container is named by its key (`a.zip//x.pdf`) or as shown (`a.zip › x.pdf`).
"""

from __future__ import annotations

import os
from typing import Any, Optional

from ...base.config import Config
from ...ingest.exclude import Excluder
from ...ingest.extractors import supported_suffixes
from ...base.member_paths import display_path, key_of, path_bytes, split_member
from ...ingest.extractors.sniff import KNOWN_BINARY_SUFFIXES
from ...ingest.ocr.images import image_suffixes
from ...base.stored_names import disk_path
from ...ingest.generated import generated_reason
from ...ingest.secrets import named_secret, secret_pattern
from ...ingest.fsnames import is_within
from ...store import Store
from ...store.rows import FileRow
from ...store.ledger import STATES, entry_notes, entry_state, entry_text, entry_vectors
from ..members.names import members_like, members_said
from ..sync.ocr_waits import image_ocr_off
from ..sync.roots import named_in_library, owning_root
from .on_disk import moved_to, since_sync
from .status import scanned_counts

__all__ = ["explain", "entry_fields", "STATES"]

TEXT_SHOWN = 300
OWN_FOLDER = "the library's own folder, where its database and vectors live: never indexed"


def _rule(config: Config, root: str, path: str) -> Optional[tuple[str, str]]:
    """(state, reason) when a scan rule leaves `path` (stored, as `root`) out, else None."""
    scan = config.scan
    on_disk = disk_path(path)
    if is_within(os.path.realpath(on_disk), os.path.realpath(config.data_dir)):  # the scan's leave_out (ingest/scan.py)
        return "excluded", OWN_FOLDER
    if path != root:
        parts = os.path.relpath(path, root).split(os.sep)
        hidden = [p for p in parts if p.startswith(".")]
        # a hidden file named like a secret is met by the scan as any file (ingest/scan.py hidden_secret): said below
        named_secret_file = hidden == parts[-1:] and os.path.isfile(on_disk) and not os.path.islink(on_disk) and (
            secret_pattern(parts[-1], scan.secret_files) is not None)
        if hidden and not named_secret_file:
            return "excluded", f"hidden: {hidden[0]!r} starts with a dot"
        folders = parts if os.path.isdir(on_disk) else parts[:-1]  # a folder named in skip_dirs is itself skipped
        skipped = [i for i, p in enumerate(folders) if p in scan.skip_dirs]
        if skipped:  # the outermost decides: root/node_modules/pkg/node_modules is inside the first one
            first = skipped[0]
            where = "a skipped folder" if first == len(parts) - 1 == len(folders) - 1 else "inside a skipped folder"
            return "excluded", f"{where} {folders[first]!r} ([scan] skip_dirs)"
        pattern = Excluder(scan.exclude).pattern_under(root, path) if scan.exclude else None
        if pattern is not None:  # the one that left it out: a list of every pattern left the person guessing
            return "excluded", f"matches the [scan] exclude pattern {pattern!r}"
    secret = None if os.path.isdir(path) else secret_pattern(os.path.basename(path), scan.secret_files)
    if secret is not None:  # a file named by the person too: the scan refuses it as a root (ingest/scan.py)
        return "excluded", named_secret(secret)
    generated = None if os.path.isdir(path) else generated_reason(os.path.basename(path), _size(on_disk), scan)
    if generated is not None:  # before a known binary type, as the scan decides (yarn.lock is a ".lock")
        return "excluded", generated
    suffix = os.path.splitext(path)[1].lower()
    if suffix in KNOWN_BINARY_SUFFIXES and suffix not in supported_suffixes():
        if suffix not in image_suffixes():
            return "skipped", f'unsupported type "{suffix}" (not read by any extractor)'
        ocr_off = image_ocr_off(path, config)  # images are read by OCR alone, as the scan decides
        if ocr_off is not None:
            return "skipped", ocr_off
    try:
        size = os.stat(on_disk).st_size
    except OSError:
        return None  # no rule of [scan]: explain says what is on disk (on_disk.py)
    if size > scan.max_file_mb * 2**20:
        return "skipped", f"too large ({size / 2**20:.1f} MB > {scan.max_file_mb:g} MB, [scan] max_file_mb)"
    return None


def _size(path: str) -> int:
    """A file's size, 0 when it cannot be read (the rules after generated_reason's say why)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def explain(config: Config, store: Store, path: str, owner: Optional[str] = None) -> dict[str, Any]:
    """Everything the library knows and would decide about `path` (see the module doc), as plain data. `owner`:
    on a shared library, the machine whose entry is meant (library/shared_paths.py)."""
    roots = [r.path for r in store.roots()]
    typed = key_of(path)
    key = named_in_library(typed, roots)  # typed through a link: the entry is named where it really is
    if key != typed and entry_state(store, typed, owner) is not None:
        # ...unless the sync kept an entry for the link itself: one it skipped (a loop, `a/self -> ../a`) says why;
        # its target named "a folder: 1 file under it", that file being the link's own entry
        key = typed
    container, member = split_member(key)
    root = owning_root(container, roots)
    out: dict[str, Any] = {"path": key, "shown_as": display_path(key), "container": container if member else None,
                 "member": member, "folder": root, "state": None, "reason": None, "rule": None,
                 "kind": None, "passages": 0, "vectors": 0, "text": "", "date": None, "notes": [],
                 "known": False, "on_disk": None, "on_disk_note": None, "moved_to": None,
                 **path_bytes(key)}  # known: the library holds an entry for it (indexed, ...)
    if key != typed:
        out["reached_as"] = display_path(typed)
    if root is None:
        out.update(state="outside", reason="not under any indexed folder (`searchapp index FOLDER` adds one)")
        return out
    rule = _rule(config, root, container)
    if rule is not None:
        out["rule"] = rule[1]
    row = entry_state(store, key, owner)
    if row is None and member is not None and rule is None:
        like = members_like(store, container, member)
        if len(like) == 1:  # `box.mbox › 24` for its message "24: Re: the deposit": the one member meant
            key, member = like[0], split_member(like[0])[1]
            out.update(path=key, shown_as=display_path(key), member=member)
            row = entry_state(store, key, owner)
        elif like:
            out.update(state="missing", reason=members_said(like))
            return out
    if row is None:
        if rule is not None:
            out.update(state=rule[0], reason=rule[1])
        elif (moved := moved_to(store, key)) is not None:  # a sync found it renamed: said where it went
            out.update(state="missing", reason=moved[1], moved_to=display_path(moved[0]))
        elif member is not None:
            out.update(state="missing", reason="not a member of its container as last read (or not synced yet)")
        elif not os.path.lexists(disk_path(container)):
            out.update(state="missing", reason="no such file")
        elif os.path.isdir(disk_path(container)):
            _folder(store, root, container, out)
        else:
            out.update(state="not_synced", reason="not indexed yet: `searchapp index` reads it")
        return out
    out.update(entry_fields(store, row))
    read = row[1] if member is None else store.file_by_path(container)  # a member's file is its container
    now = since_sync(read) if read is not None else None
    if now is not None:  # this machine's entry: what is on disk now beside what the last sync read
        out.update(on_disk=now[0], on_disk_note=now[1])
    return out


def _folder(store: Store, root: str, folder: str, out: dict[str, Any]) -> None:
    """A folder is no entry of its own: say what of it is in the library ("not indexed yet" was said of a folder,
    also of an empty one, as if `index` would read it as a file)."""
    row = next((r for r in store.roots() if r.path == root), None)
    under = list(store.files_under(row.id, folder)) if row is not None else []
    if under:
        # known: its files are in the library (exit 0); `status --files` and explain of each say more. Its files
        # apart from what was read out of its archives and mail, as status counts them (decision 0163): a mail
        # folder's "100 files" read beside status's "52 files, 48 items in archives and mail".
        members = sum(1 for path in under if split_member(path)[1] is not None)
        out.update(state="folder", known=True,
                   reason=f"a folder: {scanned_counts(len(under), members)} under it in the library")
        return
    try:
        with os.scandir(disk_path(folder)) as listing:
            empty = next(listing, None) is None
    except OSError:
        empty = False
    out.update(state="folder", reason="a folder, empty: nothing to index" if empty else
               "a folder: nothing under it is in the library (explain a file in it says why)")


def entry_fields(store: Store, row: tuple[str, FileRow, Optional[int], Optional[str]]) -> dict[str, Any]:
    """What `explain` says of a stored entry (store/ledger.entry_state's row)."""
    state, frow, date_ns, _ocr = row
    text, passages = entry_text(store, frow.id, TEXT_SHOWN)
    return dict(known=True, state=state, reason=frow.error, kind=frow.kind, passages=passages,
                vectors=entry_vectors(store, frow.id), text=text, date=date_ns / 1e9 if date_ns else None,
                notes=entry_notes(store, frow.id))
