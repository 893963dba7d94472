"""Scanning real folder trees: skips with reasons, size caps without reading, symlinks, cancellation."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from opened_files import files_opened

from searchapp.base.config import ScanConfig
from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken, Progress
from searchapp.ingest.scan import PROGRESS_EVERY, ScanResult, scan

needs_symlinks = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


def touch(path: Path, data: bytes = b"hello") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def names(result: ScanResult, root: Path) -> list[str]:
    return [f.path.relative_to(root).as_posix() for f in result.files]


def reasons(result: ScanResult, root: Path) -> dict[str, str]:
    return {Path(s.path).relative_to(root).as_posix(): s.reason for s in result.skipped}


def test_tree_with_hidden_vcs_and_unsupported(tmp_path: Path) -> None:
    for rel in ("b.md", "a.txt", "sub/c.pdf", "sub/deeper/d.DOCX", ".hidden/x.txt", ".h.txt",
                "node_modules/pkg/y.txt", ".git/objects/z.txt", "__pycache__/m.py", "sub/photo.jpg", "Makefile"):
        touch(tmp_path / rel)
    result = scan([tmp_path], ScanConfig(ocr=False))
    # No extension: a candidate (extraction decides by content); a known binary type: left out quietly.
    assert names(result, tmp_path) == ["Makefile", "a.txt", "b.md", "sub/c.pdf", "sub/deeper/d.DOCX"]
    assert reasons(result, tmp_path) == {}
    f = result.files[1]
    assert f.path.is_absolute() and f.size == 5 and f.mtime_ns == os.stat(f.path).st_mtime_ns


def test_custom_skip_dirs(tmp_path: Path) -> None:
    touch(tmp_path / "keep/a.txt")
    touch(tmp_path / "drafts/b.txt")
    touch(tmp_path / "node_modules/c.txt")
    result = scan([tmp_path], ScanConfig(skip_dirs=("drafts",)))
    assert names(result, tmp_path) == ["keep/a.txt", "node_modules/c.txt"]


def test_sparse_10gb_file_skipped_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:
        fh.truncate(10 * 2**30)  # sparse: no disk space used
    touch(tmp_path / "small.txt")
    with files_opened() as seen:
        result = scan([tmp_path], ScanConfig(max_file_mb=50))
    assert names(result, tmp_path) == ["small.txt"]
    assert reasons(result, tmp_path)["huge.txt"].startswith("too large (10240.0 MB > 50 MB)")
    assert str(big) not in seen  # never opened: refused by its size alone


def test_fractional_size_cap(tmp_path: Path) -> None:
    touch(tmp_path / "two_kb.txt", b"x" * 2048)
    result = scan([tmp_path], ScanConfig(max_file_mb=0.001))
    assert result.files == []
    assert "too large" in reasons(result, tmp_path)["two_kb.txt"]


def test_single_file_root_and_missing_root(tmp_path: Path) -> None:
    f = touch(tmp_path / "one.md")
    result = scan([f, tmp_path / "missing"], ScanConfig())
    assert [x.path for x in result.files] == [f]
    [missing] = result.skipped
    assert missing.status == "failed" and "cannot read" in missing.reason
    assert scan([touch(tmp_path / "pic.png")], ScanConfig()).files  # an image is read by OCR
    result = scan([touch(tmp_path / "pic.png")], ScanConfig(ocr=False))
    assert result.files == [] and result.skipped[0].reason == 'unsupported type ".png"'


def test_relative_root_becomes_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path / "d/a.txt")
    monkeypatch.chdir(tmp_path)
    result = scan([Path("d")], ScanConfig())
    assert [f.path for f in result.files] == [Path(os.path.abspath("d/a.txt"))]


def test_overlapping_roots_list_files_once(tmp_path: Path) -> None:
    touch(tmp_path / "sub/a.txt")
    touch(tmp_path / "b.txt")
    result = scan([tmp_path, tmp_path / "sub", tmp_path], ScanConfig())
    assert names(result, tmp_path) == ["b.txt", "sub/a.txt"]


@needs_symlinks
def test_symlink_loop_terminates(tmp_path: Path) -> None:
    touch(tmp_path / "d/a.txt")
    touch(tmp_path / "d/sub/b.txt")
    os.symlink(tmp_path / "d", tmp_path / "d/sub/back_to_d")
    os.symlink("..", tmp_path / "d/sub/up")
    os.symlink("self", tmp_path / "d/self")  # a link to itself: stat fails with ELOOP
    result = scan([tmp_path / "d"], ScanConfig(follow_symlinks=True))
    assert names(result, tmp_path) == ["d/a.txt", "d/sub/b.txt"]
    why = reasons(result, tmp_path)
    assert why["d/sub/back_to_d"] == "symlink loop"
    assert why["d/sub/up"] == "symlink loop"
    assert why["d/self"] == "symlink loop"


@needs_symlinks
def test_symlinks_followed_or_not(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    touch(outside / "o.txt")
    root = tmp_path / "root"
    touch(root / "real/r.txt")
    os.symlink(outside, root / "linked_dir")
    os.symlink(outside / "o.txt", root / "linked_file.txt")
    os.symlink(root / "real", root / "alias")  # same folder twice
    os.symlink(tmp_path / "nowhere.txt", root / "broken.txt")

    followed = scan([root], ScanConfig(follow_symlinks=True, follow_symlinks_out=True))
    assert names(followed, root) == ["linked_dir/o.txt", "linked_file.txt", "real/r.txt"]
    why = reasons(followed, root)
    # the real location is indexed, never a second time under the link's name (decision 0192)
    assert why["alias"] == f"link: to {root / 'real'}, indexed at its own path"
    assert {s.path: s.status for s in followed.skipped}[str(root / "alias")] == "excluded"
    assert why["broken.txt"] == "broken symlink"

    plain = scan([root], ScanConfig(follow_symlinks=False))
    assert names(plain, root) == ["real/r.txt"]
    why = reasons(plain, root)
    assert set(why) == {"linked_dir", "linked_file.txt", "alias", "broken.txt"}
    assert all("symlink" in r for r in why.values())

    # A root the user named is followed even when links inside it are not.
    via_link = scan([root / "linked_dir"], ScanConfig(follow_symlinks=False))
    assert [f.path for f in via_link.files] == [root / "linked_dir" / "o.txt"]


@needs_symlinks
@pytest.mark.parametrize("how", ["full", "subfolder", "the link", "through the link"])
def test_a_link_to_what_is_indexed_is_left_out_however_it_is_scanned(tmp_path: Path, how: str) -> None:
    """A link whose target an indexed folder reaches at its own path is never followed: not by the full scan, nor by
    a scoped one (`index SUBFOLDER`, a watcher's paths), which once followed `a/b-link -> ../b` into a second copy
    of b that the next full scan removed, for ever; nor into another indexed folder. A link to a hidden folder, which
    no scan reaches, is still the way in (decision 0192)."""
    root, other = tmp_path / "t2", tmp_path / "ref"
    touch(root / "b/tax.md")
    touch(root / "a/garden.md")
    touch(root / ".private/diary.md")
    touch(other / "mail/m.eml")
    os.symlink("../b", root / "a/b-link")
    os.symlink("../b/tax.md", root / "a/tax-link.md")
    os.symlink(other / "mail", root / "a/mail-link")
    os.symlink("../.private", root / "a/private-link")
    indexed = [str(root), str(other)]
    config = ScanConfig(follow_symlinks_out=True)  # out of t2, but into another indexed folder: still left out
    asked = {"full": [root], "subfolder": [root / "a"], "the link": [root / "a/b-link"],
             "through the link": [root / "a/b-link/tax.md"]}[how]
    result = scan(asked, config, within=None if how == "full" else root, indexed=indexed)
    files = names(result, root)
    walked = how in ("full", "subfolder")
    assert [f for f in files if "link" in f] == (["a/private-link/diary.md"] if walked else [])
    assert ("b/tax.md" in files) == (how == "full")
    left = {Path(s.path).relative_to(root).as_posix(): (s.status, s.reason) for s in result.skipped}
    if walked:
        assert left["a/b-link"] == ("excluded", f"link: to {root / 'b'}, indexed at its own path")
        assert left["a/tax-link.md"] == ("excluded", f"link: to {root / 'b/tax.md'}, indexed at its own path")
        assert left["a/mail-link"] == ("excluded", f"link: to {other / 'mail'}, indexed at its own path in the "
                                                   f"indexed folder {other}")
    elif how == "the link":
        assert left == {"a/b-link": ("excluded", f"link: to {root / 'b'}, indexed at its own path")}
    else:  # its entries under the link go, as the full scan never lists them
        assert files == [] and left == {}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_fifo_skipped_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    result = scan([tmp_path], ScanConfig())
    assert result.files == []
    assert reasons(result, tmp_path) == {"pipe.txt": "not a regular file (fifo)"}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read any folder")
def test_unreadable_folder_recorded(tmp_path: Path) -> None:
    touch(tmp_path / "ok.txt")
    locked = tmp_path / "locked"
    touch(locked / "secret.txt")
    locked.chmod(0)
    try:
        result = scan([tmp_path], ScanConfig())
    finally:
        locked.chmod(0o755)
    assert names(result, tmp_path) == ["ok.txt"]
    [skip] = result.skipped
    assert skip.status == "failed" and skip.reason.startswith("unreadable folder")


def test_scandir_errors_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Works as root too: the folder listing itself fails."""
    touch(tmp_path / "ok.txt")
    touch(tmp_path / "locked/secret.txt")
    real_scandir = os.scandir

    def scandir(path):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = scan([tmp_path], ScanConfig())
    assert names(result, tmp_path) == ["ok.txt"]
    assert reasons(result, tmp_path) == {"locked": "unreadable folder: Permission denied"}
    assert result.skipped[0].status == "failed"


def test_deep_tree_needs_no_recursion(tmp_path: Path) -> None:
    # A recursive walk would need a frame per level: run with a recursion limit below the depth.
    frames, frame = 0, sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    depth, old_limit = 300, sys.getrecursionlimit()
    current = tmp_path
    try:
        for _ in range(depth):
            os.mkdir(current / "d")
            current = current / "d"
        touch(current / "bottom.txt")
        sys.setrecursionlimit(frames + 100)
        try:
            result = scan([tmp_path], ScanConfig())
        finally:
            sys.setrecursionlimit(old_limit)
        assert [f.path.name for f in result.files] == ["bottom.txt"]
    finally:  # pytest's recursive rmtree of old temp folders would hit the recursion limit
        (current / "bottom.txt").unlink(missing_ok=True)
        while current != tmp_path:
            os.rmdir(current)
            current = current.parent


def test_progress_and_cancel(tmp_path: Path) -> None:
    for i in range(PROGRESS_EVERY * 3):
        (tmp_path / f"f{i:05d}.txt").write_bytes(b"x")
    reports: list[Progress] = []
    result = scan([tmp_path], ScanConfig(), progress=reports.append)
    assert len(result.files) == PROGRESS_EVERY * 3
    assert [r.done for r in reports[:3]] == [PROGRESS_EVERY, 2 * PROGRESS_EVERY, 3 * PROGRESS_EVERY]
    assert all(r.stage == "scanning" for r in reports)

    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        scan([tmp_path], ScanConfig(), cancel=token)

    token = CancelToken()
    seen: list[int] = []

    def cancel_on_first(p: Progress) -> None:
        seen.append(p.done)
        token.cancel()

    with pytest.raises(Cancelled):
        scan([tmp_path], ScanConfig(), progress=cancel_on_first, cancel=token)
    assert seen == [PROGRESS_EVERY]


def test_a_file_changed_just_before_the_scan_is_marked_to_check_again(tmp_path, monkeypatch):
    """ScannedFile.ctime_ns (decision 0150): the file's ctime, or CHECK_AGAIN while a change within RACY_NS of the
    scan could be followed by another in the same tick of the filesystem's clock."""
    import time

    from searchapp.ingest import scan as scan_module

    f = touch(tmp_path / "a.txt")
    now = scan([tmp_path], ScanConfig()).files[0]
    assert now.ctime_ns == scan_module.CHECK_AGAIN and now.mtime_ns == f.stat().st_mtime_ns
    later = time.time_ns() + scan_module.RACY_NS
    monkeypatch.setattr(scan_module, "now_ns", lambda: later)
    assert scan([tmp_path], ScanConfig()).files[0].ctime_ns == f.stat().st_ctime_ns != scan_module.CHECK_AGAIN
    os.utime(f, ns=(0, 10**9))  # an old mtime set now: the ctime is new, so still just changed
    monkeypatch.setattr(scan_module, "now_ns", lambda: f.stat().st_ctime_ns + scan_module.RACY_NS // 2)
    assert scan([tmp_path], ScanConfig()).files[0].ctime_ns == scan_module.CHECK_AGAIN
    ahead = time.time_ns() + 86_400 * 10**9  # an mtime a day ahead (an archive made east of here): judged by
    os.utime(f, ns=(ahead, ahead))           # its ctime, so not "just changed" until that day comes
    monkeypatch.setattr(scan_module, "now_ns", lambda: f.stat().st_ctime_ns + scan_module.RACY_NS)
    assert scan([tmp_path], ScanConfig()).files[0].ctime_ns == f.stat().st_ctime_ns
    soon = f.stat().st_ctime_ns + scan_module.RACY_NS + 10**9  # an mtime just ahead of the scan's clock
    os.utime(f, ns=(soon, soon))
    monkeypatch.setattr(scan_module, "now_ns", lambda: f.stat().st_ctime_ns + scan_module.RACY_NS)
    assert scan([tmp_path], ScanConfig()).files[0].ctime_ns == f.stat().st_ctime_ns
