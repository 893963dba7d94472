"""An archive renamed whose items include one left out (no text) is one "renamed or moved" (a reviewer's case: its
left-out item was counted as a move of its own)."""
import contextlib
import hashlib

from searchapp.library.sync.contract import SyncReport
from searchapp.library.sync.vanished import Vanished
from searchapp.store.rows import FileRow


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


class FakeStore:
    def atomic(self):
        return contextlib.nullcontext()

    def delete_file(self, i):
        return []

    def bump_generation(self):
        pass

    def get_meta(self, key):  # where the moves found are kept for `explain` (meta_keys.record_moves)
        return getattr(self, "meta", {}).get(key)

    def set_meta(self, key, value):
        self.meta = {**getattr(self, "meta", {}), key: value}


class FakeIndex:
    def remove(self, ids):
        pass


def entry(i, path, digest, status="indexed", error=None):
    return FileRow(id=i, root_id=1, path=path, size=1, mtime_ns=0, sha256=digest, status=status, error=error,
                   kind="text", n_chunks=0 if status != "indexed" else 1)


def test_archive_renamed_with_a_textless_member_is_one_move():
    v = Vanished(FakeStore(), FakeIndex())
    rep = SyncReport()
    # the sync read /d/new.zip and its three members again: two indexed, one with no text
    for text in ("zip", "a", "b"):
        v.moves.add(sha(text))
        rep.added += 1
    v.moves.add_not_indexed(sha("blank"), "skipped", "no text found", "/d/new.zip//blank.md")
    rep.skipped += 1
    rep.problems.append(("/d/new.zip//blank.md", "no text found"))
    v.found([entry(1, "/d/old.zip", sha("zip")), entry(2, "/d/old.zip//a.txt", sha("a")),
             entry(3, "/d/old.zip//b.txt", sha("b")),
             entry(4, "/d/old.zip//blank.md", sha("blank"), "skipped", "no text found")])
    v.purge(rep)
    assert rep.said("added", "removed") == "0 added, 1 renamed or moved, 0 removed"
