"""Find the files to index under some roots, and say why every other file was left out.

Walks iteratively (an explicit stack, so deep trees cannot hit the recursion limit) and never
opens a file: everything is decided from names and `stat`. Hidden entries and `skip_dirs` are
configuration, not failures, so they are not listed in `skipped` (listing every `.DS_Store` or
`.git` would bury the entries a user needs to see): hidden and excluded files are counted by rule, and files of a
known type that is no document by suffix, so that every file met is counted somewhere (decision 0180). A file
named like a secret (`[scan] secret_files`) is listed, as "excluded": the person sees that their keys were left
out; so is a file a tool wrote for another tool (a lockfile, a minified bundle, a JSON file over `[scan]
max_json_mb`: ingest/generated.py).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ..base.config import ScanConfig
from ..base.entry_dates import clamped_ns
from ..base.progress import CancelToken, ProgressFn, report
from ..base.types import SkippedFile
from .exclude import Excluder, in_scope
from .fsnames import is_within
from .generated import generated_reason
from .secrets import named_secret, secret_pattern
from .extractors.registry import supported_suffixes
from .ocr.images import image_suffixes  # read by the sync's OCR step
from .extractors.sniff import KNOWN_BINARY_SUFFIXES

__all__ = ["ScannedFile", "ScanResult", "scan", "PROGRESS_EVERY", "CHECK_AGAIN", "RACY_NS", "CTIME_IS_CHANGE", "changed_in_place",
           "now_ns", "LINKED"]

PROGRESS_EVERY = 500  # entries between progress reports / cancel checks

_MB = 1024 * 1024


# A file changed less than this before it was listed may change again under the same mtime and ctime: a
# filesystem's clock steps (FAT keeps mtimes to 2 s; Linux's file times move with the kernel's tick), so a write
# right after the sync read it can leave both as they were. Such a file is read again at the next sync (git's
# "racily clean" entries). Wider than FAT's step, for a network share whose clock runs a little behind ours.
RACY_NS = 3_000_000_000
# Windows' st_ctime is the file's creation time, which no edit moves: there the mtime alone can be judged.
CTIME_IS_CHANGE = os.name != "nt"


CHECK_AGAIN = 0  # ctime_ns of a file listed within RACY_NS of its last change: read (hashed) again next time


def changed_in_place(stored_ctime: Optional[int], ctime: Optional[int]) -> bool:
    """Whether a file with its stored size and mtime may still hold other bytes (decision 0150): its ctime moved
    (an edit, then `touch -r` or a copy that kept the mtime; also a chmod or a rename, which only cost a hash), or
    it had changed just before the sync that read it (`stored_ctime` CHECK_AGAIN: a second edit in the same tick of
    the filesystem's clock leaves both times as they were). A ctime not known (None) judges nothing. The one rule
    of the sync and of `explain` (library/report/on_disk.py)."""
    if stored_ctime == CHECK_AGAIN:
        return True
    return stored_ctime is not None and ctime is not None and stored_ctime != ctime


# The rule word of a link left out because what it points to is indexed at its own path (decision 0192): an
# `excluded` entry, as a secret is, so the reason begins with it ("link: to /x/b, indexed at its own path").
LINKED = "link"


def now_ns() -> int:
    """The wall clock a scan starts at (its own function: tests set a scan's "now" without the process's)."""
    return time.time_ns()


@dataclass(frozen=True)
class ScannedFile:
    path: Path  # absolute, as reached under the root (symlinks not resolved)
    size: int
    mtime_ns: int
    # st_ctime_ns: changed by every write, and by no tool that resets mtime (touch -r, rsync -t, an unzip), so
    # an edit that keeps size and mtime is still seen (decision 0150). CHECK_AGAIN for a file changed just
    # before the scan (RACY_NS); None where there is none to read (an archive's member).
    ctime_ns: Optional[int] = None


@dataclass
class ScanResult:
    files: list[ScannedFile] = field(default_factory=list)  # sorted by path
    skipped: list[SkippedFile] = field(default_factory=list)
    # folders left out by `skip_dirs`: name -> how many (configuration, not a skip of a file: said on a first sync)
    skipped_dirs: dict[str, int] = field(default_factory=dict)
    # Files met and never opened, counted so that every file met is somewhere (decision 0180): those of a type that
    # is no document (an image while OCR is off, a program, a video), by suffix; those left out by a rule of
    # [scan], by rule ("hidden", "exclude"). A folder left out is not walked: the files in it are not met.
    not_documents: dict[str, int] = field(default_factory=dict)
    left_out_by_rules: dict[str, int] = field(default_factory=dict)
    folders_left_out: dict[str, int] = field(default_factory=dict)  # by rule ("hidden", "exclude", "skip_dirs")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"), (stat.S_ISLNK, "symlink"),
    ):
        if test(mode):
            return name
    return "special file"


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class _Walker:
    def __init__(self, config: ScanConfig, progress: Optional[ProgressFn], cancel: Optional[CancelToken],
                 within: Optional[Path] = None, leave_out: Optional[Path] = None, indexed: Sequence[str] = ()) -> None:
        self.config = config
        self.left_out = _folder_key(leave_out)
        self.within = os.path.realpath(within) if within is not None else None
        self.within_named = os.path.abspath(within) if within is not None else None
        # (real path, path as the library names it) of every indexed folder, the innermost first: a link whose
        # target one of them reaches at its own path is not followed (link_refusal), whichever scan meets it
        self.indexed = _places(indexed)
        self.places = self.indexed  # and the folder being walked (run)
        self.progress = progress
        self.cancel = cancel
        self.suffixes = supported_suffixes() | (image_suffixes() if config.ocr else frozenset())
        self.max_bytes = config.max_file_mb * _MB
        self.skip_dirs = frozenset(config.skip_dirs)
        self.exclude = Excluder(config.exclude)
        self.files: dict[str, ScannedFile] = {}  # keyed by path: overlapping roots list a file once
        self.skipped: list[SkippedFile] = []
        self.skipped_dirs: dict[str, int] = {}
        self.not_documents: dict[str, int] = {}
        self.left_out_by_rules: dict[str, int] = {}
        self.folders_left_out: dict[str, int] = {}
        self.visited: dict[tuple[int, int], str] = {}  # (st_dev, st_ino) of directories -> first path
        # Folders reached through a symlink wait until no plain folder is left, so a folder is
        # listed under its real location rather than under a link that happened to come first.
        self.plain: list[tuple[str, tuple[int, int]]] = []
        self.linked: list[tuple[str, tuple[int, int]]] = []
        self.seen = 0
        self.root_real = ""  # realpath of the root being walked: links may not lead out of it (by default)
        self.root_named = ""  # the root being walked, as named (absolute)
        self.started_ns = now_ns()  # file times are the wall clock's (change_mark)

    def skip(self, path: str, reason: str, status: str = "skipped") -> None:
        self.skipped.append(SkippedFile(path, reason, status))

    def count_left_out(self, entry: os.DirEntry[str], rule: str) -> None:
        """A hidden or excluded entry, never opened: a file counted by its rule, a folder (not walked: the files in
        it are not met) apart."""
        try:
            counts = (self.left_out_by_rules if entry.is_file() else
                      self.folders_left_out if entry.is_dir() else None)
        except OSError:
            return  # gone since it was listed: nothing met
        if counts is not None:
            counts[rule] = counts.get(rule, 0) + 1

    def hidden_secret(self, entry: os.DirEntry[str]) -> bool:
        """A hidden file named like a secret (`.env`, `.netrc`, `.pgpass`): not left out as hidden but met as any
        file is, so consider_file lists it as a secret, never opened (decision 0177): counted among "hidden", it
        was not said to be left out as a secret. A hidden folder (`.ssh`, a virtualenv named `.env`) or link
        stays hidden."""
        if secret_pattern(entry.name, self.config.secret_files) is None:
            return False
        try:
            return entry.is_file(follow_symlinks=False)
        except OSError:
            return False  # gone since it was listed: count_left_out meets nothing either

    def tick(self) -> None:
        self.seen += 1
        if self.seen % PROGRESS_EVERY == 0:
            report(self.progress, "scanning", self.seen)
            if self.cancel is not None:
                self.cancel.check()

    def add_root(self, root: Path) -> None:
        path = os.path.abspath(os.fspath(root))
        try:
            st = os.stat(path)  # a root the user named is followed even when links are not (like find -H)
        except OSError as exc:
            self.skip(path, f"cannot read: {_why(exc)}", "failed")
            return
        suffix = os.path.splitext(path)[1].lower()
        if stat.S_ISREG(st.st_mode) and suffix in KNOWN_BINARY_SUFFIXES and suffix not in self.suffixes:
            self.skip(path, f'unsupported type "{suffix}"')  # named by the user: say why, not quietly
            return
        self.consider(path, st)

    def consider(self, path: str, st: os.stat_result, via_link: bool = False) -> None:
        """Classify one entry whose (followed, when configured) stat is `st`."""
        mode = st.st_mode
        if stat.S_ISDIR(mode) and (st.st_dev, st.st_ino) == self.left_out:
            return  # the library's own folder: its database and vectors are no documents (left out quietly)
        if stat.S_ISDIR(mode):
            (self.linked if via_link else self.plain).append((path, (st.st_dev, st.st_ino)))
        elif stat.S_ISREG(mode):
            self.consider_file(path, st)
        elif stat.S_ISLNK(mode):
            self.skip(path, "symlink (following symlinks is off)")
        else:
            self.skip(path, f"not a regular file ({_kind(mode)})")

    def consider_file(self, path: str, st: os.stat_result) -> None:
        secret = secret_pattern(os.path.basename(path), self.config.secret_files)
        if secret is not None:  # never opened; listed, so a person sees their keys were left out (decision 0177)
            self.skip(path, named_secret(secret), "excluded")
            return
        generated = generated_reason(os.path.basename(path), st.st_size, self.config)
        if generated is not None:  # a lockfile, a minified bundle, a JSON dump: listed with its rule (decision 0178)
            self.skip(path, generated, "excluded")
            return
        suffix = os.path.splitext(path)[1].lower()
        if suffix in KNOWN_BINARY_SUFFIXES and suffix not in self.suffixes:
            # images, archives, programs: never opened, not listed one by one, counted by type
            self.not_documents[suffix] = self.not_documents.get(suffix, 0) + 1
            return
        # Any other name is a candidate: extraction decides by content whether it is plain text.
        if st.st_size > self.max_bytes:
            self.skip(path, f"too large ({st.st_size / _MB:.1f} MB > {self.config.max_file_mb:g} MB)")
        elif path not in self.files:
            self.files[path] = ScannedFile(Path(path), st.st_size, clamped_ns(st.st_mtime_ns), self.change_mark(st))

    def change_mark(self, st: os.stat_result) -> Optional[int]:
        """ScannedFile.ctime_ns for `st`: its ctime, or CHECK_AGAIN when it changed too recently to be trusted
        (compared with the clock at the scan's start, earlier than any read: a superset of the racy files). The
        time of the last change is the ctime, which every write moves to now: an mtime set ahead (an archive
        made east of here, `touch -d`, a camera's wrong clock) would keep a file "just changed" at every sync
        until that date. A change stamped after the scan's start (the clock set back since) is no recent one."""
        ctime = int(st.st_ctime_ns) if CTIME_IS_CHANGE else 0  # 0: none (Windows, some FUSE filesystems)
        age = self.started_ns - (ctime or st.st_mtime_ns)
        if -RACY_NS < age < RACY_NS:  # a share's clock may run a little ahead of ours; far ahead: set back since
            return CHECK_AGAIN
        return ctime or None  # none: size and mtime alone, as before decision 0150

    def walk_dir(self, directory: str) -> None:
        follow = self.config.follow_symlinks
        try:
            with os.scandir(directory) as it:
                for entry in it:  # iteration itself can raise OSError (e.g. the folder vanished)
                    self.tick()
                    name = entry.name
                    if name.startswith(".") and not self.hidden_secret(entry):
                        self.count_left_out(entry, "hidden")
                        continue
                    path = os.path.join(directory, name)
                    if self.exclude and self.exclude.entry(path, name):
                        self.count_left_out(entry, "exclude")
                        continue  # `[scan] exclude`: configuration, not a failure
                    try:
                        if entry.is_symlink() and not follow:
                            self.skip(path, "symlink (following symlinks is off)")
                            continue
                        st = entry.stat(follow_symlinks=follow)
                    except FileNotFoundError:
                        reason = "broken symlink" if entry.is_symlink() else "vanished during scan"
                        self.skip(path, reason, "failed")
                        continue
                    except OSError as exc:
                        if exc.errno == errno.ELOOP:
                            self.skip(path, "symlink loop")
                        else:
                            self.skip(path, f"cannot stat: {_why(exc)}", "failed")
                        continue
                    if stat.S_ISDIR(st.st_mode) and name in self.skip_dirs:
                        self.skipped_dirs[name] = self.skipped_dirs.get(name, 0) + 1
                        self.folders_left_out["skip_dirs"] = self.folders_left_out.get("skip_dirs", 0) + 1
                        continue
                    if entry.is_symlink():
                        refused = self.link_refusal(path, directory, st)
                        if refused:
                            self.skip(path, *refused)
                            continue
                    self.consider(path, st, via_link=entry.is_symlink())
        except OSError as exc:
            self.skip(directory, f"unreadable folder: {_why(exc)}", "failed")

    def link_refusal(self, path: str, directory: str, st: os.stat_result) -> Optional[tuple[str, str]]:
        """(reason, status) when a (followed, existing) symlink is not walked: it points at a folder holding the
        link (a loop, e.g. `a -> ..`); at a file or folder an indexed folder's scan reaches at its own path (this
        folder's or another's: indexed there, so never a second time under the link's name, whichever scan meets
        the link: decision 0192); or out of the indexed folder while [scan] follow_symlinks_out is off."""
        target = os.path.realpath(path)
        if stat.S_ISDIR(st.st_mode) and is_within(os.path.realpath(directory), target):
            return "symlink loop", "skipped"
        at = self.indexed_at(target)
        if at is not None:
            named, folder = at
            where = "" if folder == self.root_named else f" in the indexed folder {folder}"
            return f"{LINKED}: to {named}, indexed at its own path{where}", "excluded"
        if not self.config.follow_symlinks_out and not is_within(target, self.root_real):
            return f"symlink to {target}, outside the indexed folder ([scan] follow_symlinks_out is off)", "skipped"
        return None

    def indexed_at(self, target: str) -> Optional[tuple[str, str]]:
        """(`target` as the library names it, the indexed folder that holds it) for a link's real `target`, when
        that folder's own scan reaches it there; None when none does (outside them all, or in a hidden, skipped or
        excluded folder of one: then the link is its only way in)."""
        for real, folder in self.places:
            if is_within(target, real):
                named = folder if target == real else os.path.join(folder, os.path.relpath(target, real))
                if in_scope(folder, named, self.config.skip_dirs, self.config.exclude):
                    return named, folder
        return None

    def link_on_the_way(self, path: str) -> Optional[tuple[str, str, str]]:
        """(link, reason, status) for the first link between the indexed folder (`within`) and `path`, itself
        included, that a full scan of the folder would not follow; None when there is none. A scoped sync (`index
        SUBFOLDER`, a watcher's changes) decides as the full sync does: it followed `a/b-link -> ../b` into a second
        copy of b that the next full sync removed, for ever."""
        assert self.within_named is not None
        if not is_within(path, self.within_named) or path == self.within_named:
            return None
        current = self.within_named
        for part in os.path.relpath(path, self.within_named).split(os.sep):
            directory, current = current, os.path.join(current, part)
            if not os.path.islink(current):
                continue
            if not self.config.follow_symlinks:
                return current, "symlink (following symlinks is off)", "skipped"
            try:
                st = os.stat(current)
            except OSError:
                return None  # broken or a loop: add_root says so
            refused = self.link_refusal(current, directory, st)
            if refused:
                return (current, *refused)
        return None

    def next_dir(self) -> Optional[str]:
        """Pop the next folder not seen yet (by device and inode: this is what stops symlink loops)."""
        while self.plain or self.linked:
            path, key = (self.plain or self.linked).pop()
            first = self.visited.get(key)
            if first is None:
                self.visited[key] = path
                return path
            if path == first:  # the same root given twice
                continue
            loop = is_within(path, first)  # path != first here
            self.skip(path, "symlink loop" if loop else f"same folder as {first}")
        return None

    def run(self, roots: Iterable[Path]) -> ScanResult:
        if self.cancel is not None:
            self.cancel.check()
        for root in roots:
            self.root_real = self.within or os.path.realpath(root)
            self.root_named = self.within_named or os.path.abspath(root)
            self.places = _places([self.root_named], self.indexed)
            if self.within_named is not None:  # a changed path under an indexed folder, not a new root
                refused = self.link_on_the_way(os.path.abspath(root))
                if refused is not None:
                    link, reason, status = refused
                    if link == os.path.abspath(root):  # the link itself, as the full scan lists it
                        self.skip(link, reason, status)
                    continue  # a path through it: not there for a full scan (its entries go as gone)
            self.add_root(root)
            while (directory := self.next_dir()) is not None:
                self.walk_dir(directory)
        report(self.progress, "scanning", self.seen)
        files = sorted(self.files.values(), key=lambda f: f.path)
        return ScanResult(files, self.skipped, self.skipped_dirs, self.not_documents, self.left_out_by_rules,
                          self.folders_left_out)


def _places(folders: Iterable[str], more: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(real path, absolute path) of `folders`, with `more` such pairs, the innermost first (indexed_at)."""
    named = {os.path.abspath(f): os.path.realpath(f) for f in folders}
    pairs = dict.fromkeys([*((real, f) for f, real in named.items()), *more])
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def _folder_key(path: Optional[Path]) -> Optional[tuple[int, int]]:
    """(device, inode) of a folder, None when there is none (by inode: a link to it or another spelling of it is
    the same folder)."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def scan(
    roots: Iterable[Path],
    config: ScanConfig,
    progress: Optional[ProgressFn] = None,
    cancel: Optional[CancelToken] = None,
    within: Optional[Path] = None,
    leave_out: Optional[Path] = None,
    indexed: Sequence[str] = (),
) -> ScanResult:
    """Files under `roots` (folders or single files) that may hold text (any name but a known binary
    type: extraction decides by content), plus every skip with its reason.

    Never raises for file-system problems (they become `skipped` entries); raises `Cancelled`
    when `cancel` is set (checked every PROGRESS_EVERY entries). Symlinks may not lead out of each root
    (or out of `within`, the indexed folder, when `roots` are paths under it) unless
    `config.follow_symlinks_out`; a symlink to a folder holding it (a loop) is never walked. `leave_out`: a folder
    never walked (the library's data dir, when it lies inside an indexed folder: its SQLite journal, vectors and
    lock files were indexed as documents, and rewritten by every sync). `indexed`: the library's folders (as on
    disk): a link to what one of them (or the folder walked) reaches at its own path is never followed, but listed
    as `excluded` (LINKED: one file, one path, however it is synced; decision 0192).
    """
    return _Walker(config, progress, cancel, within, leave_out, indexed).run(roots)
