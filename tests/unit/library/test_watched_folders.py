"""WatchedFolders on a real watchdog observer (not started: its watches are bookkeeping until then): one watch per
folder shared by its roots, ended by the folder's own deletion seen by the handler or by a new identity, whatever
the filesystem does with inodes (tmpfs and others give a folder made again a new one; ext4 often the old)."""

from __future__ import annotations

from watchdog.observers import Observer

from searchapp.library.sync.watched_folders import WatchedFolders


class _Quiet:
    def dispatch(self, event) -> None:  # the observer is never started: no event comes
        pass


def test_roots_in_one_folder_share_its_watch_and_it_goes_with_the_last(tmp_path):
    observer = Observer()
    folders = WatchedFolders(observer, _Quiet())
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a", encoding="utf-8")
    b.write_text("b", encoding="utf-8")
    assert folders.watch(str(a)) and folders.watch(str(b)) and folders.watch(str(tmp_path))
    assert len(observer.emitters) == 1  # one folder, one watch
    folders.forget(str(a))
    folders.forget(str(tmp_path))
    assert folders.has(str(b)) and len(observer.emitters) == 1
    folders.forget(str(b))
    assert not folders.has(str(b)) and len(observer.emitters) == 0
    assert not folders.watch(str(tmp_path / "missing"))  # not here: nothing watched, its parent no stand-in
    assert len(observer.emitters) == 0


def test_a_folder_seen_deleted_ends_its_watch_for_every_root_in_it_even_with_the_same_inode(tmp_path):
    """The handler's own event says the watch has ended: `check` ends it although the folder's identity is the
    same (ext4 gives a folder made again at once the old inode); a new root there waits for `check`."""
    observer = Observer()
    folders = WatchedFolders(observer, _Quiet())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "x.txt").write_text("x", encoding="utf-8")
    assert folders.watch(str(docs)) and folders.watch(str(docs / "x.txt"))
    folders.lose(str(docs / "sub"))  # a folder below it: no watch of its own, nothing ends
    assert folders.check() == []
    folders.lose(str(docs))
    assert not folders.watch(str(docs / "y.txt"))  # its watch has ended: not shared any more
    assert folders.check() == sorted([str(docs), str(docs / "x.txt")])
    assert len(observer.emitters) == 0 and not folders.has(str(docs))
    assert folders.watch(str(docs)) and folders.check() == []  # watched anew, and current


def test_a_folder_that_is_another_folder_now_ends_its_watch(tmp_path):
    observer = Observer()
    folders = WatchedFolders(observer, _Quiet())
    docs = tmp_path / "docs"
    docs.mkdir()
    assert folders.watch(str(docs))
    docs.rename(tmp_path / "elsewhere")
    docs.mkdir()  # a new folder at the path: another identity (the old one still exists, renamed)
    assert folders.check() == [str(docs)]


def test_a_folder_watched_for_single_files_is_watched_alone_until_a_folder_root_needs_what_is_below(tmp_path):
    """`~/notes.txt` as a root watched the whole home folder, every folder below it (one inotify watch each)."""
    observer = Observer()
    folders = WatchedFolders(observer, _Quiet())
    (tmp_path / "deep" / "er").mkdir(parents=True)
    notes = tmp_path / "notes.txt"
    notes.write_text("n", encoding="utf-8")

    def watches() -> list[bool]:
        return [e.watch.is_recursive for e in observer.emitters]

    assert folders.watch(str(notes)) and watches() == [False]
    assert folders.watch(str(tmp_path)) and watches() == [True]  # the folder itself is a root now
    folders.forget(str(tmp_path))
    assert folders.has(str(notes)) and watches() == [False]
    folders.forget(str(notes))
    assert watches() == [] and len(observer.emitters) == 0
