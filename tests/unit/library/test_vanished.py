"""What a sync counts as moved (library/sync/vanished.py): a deleted entry whose bytes the same sync added under
another name, each addition standing for one deletion at most."""

from __future__ import annotations

import hashlib

from searchapp.library.sync.vanished import Moves
from searchapp.store.rows import FileRow


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def row(i: int, digest: str | None, status: str = "indexed") -> FileRow:
    return FileRow(id=i, root_id=1, path=f"/d/{i}.txt", size=1, mtime_ns=0, sha256=digest, status=status,
                   error=None, kind="text", n_chunks=1)


def test_each_addition_stands_for_one_deleted_twin():
    moves = Moves()
    for text in ("tea", "tea", "bread"):
        moves.add(sha(text))
    # two copies of "tea" gone, one of "bread", one of something not added: three moves, not four
    gone = [row(1, sha("tea")), row(2, sha("tea")), row(3, sha("bread")), row(4, sha("volcano"))]
    assert len(moves.twins(gone)) == 3
    assert len(moves.twins([row(5, sha("tea"))])) == 0  # used up: another root's deleted twin is not a move again
    fresh = Moves()
    fresh.add(sha("tea"))
    fresh.add(sha("tea"))
    assert len(fresh.twins([row(5, sha("tea")), row(6, sha("tea")), row(7, sha("tea"))])) == 2  # only two added


def test_nothing_added_or_nothing_comparable_is_no_move():
    assert len(Moves().twins([row(1, sha("tea"))])) == 0
    moves = Moves()
    moves.add(sha("tea"))
    moves.add("not-a-hex-digest")  # never a twin, never an error
    moves.add(None)
    assert len(moves.twins([row(1, None), row(2, sha("tea"), status="skipped"), row(3, "not-a-hex-digest")])) == 0
    assert len(moves.twins([])) == 0


def test_an_addition_that_failed_is_no_twin():
    moves = Moves()
    moves.add(sha("tea"))
    moves.add(sha("tea"))
    moves.drop(sha("tea"))  # its batch could not store it
    assert len(moves.twins([row(1, sha("tea")), row(2, sha("tea"))])) == 1


def left_out(i: int, digest: str | None, status: str, reason: str) -> FileRow:
    return FileRow(id=i, root_id=1, path=f"/d/old/{i}.pdf", size=1, mtime_ns=0, sha256=digest, status=status,
                   error=reason, kind="pdf", n_chunks=0)


def test_an_entry_left_out_is_moved_where_a_new_one_has_its_bytes_and_its_reason():
    """A renamed folder's password-protected and textless files: each the twin of the new entry left out the same
    way with the same bytes, given back with its path (a new entry stands for one at most)."""
    moves = Moves()
    moves.add_not_indexed(sha("locked"), "skipped", "encrypted", "/d/new/a.pdf")
    moves.add_not_indexed(sha("blank"), "skipped", "no text found", "/d/new/b.pdf")
    moves.add_not_indexed(sha("odd"), "skipped", "no text found", "/d/new/c.pdf")
    moves.add_not_indexed(None, "failed", "cannot read", "/d/new/d.pdf")  # bytes never read: never a twin
    gone = [left_out(1, sha("locked"), "skipped", "encrypted"), left_out(2, sha("blank"), "skipped", "no text found"),
            left_out(3, sha("blank"), "skipped", "no text found"),  # a second copy: one new entry for one
            left_out(4, sha("odd"), "skipped", "encrypted"),  # the same bytes left out for another reason: news
            left_out(5, sha("odd"), "failed", "no text found"),  # or another state
            left_out(6, None, "failed", "cannot read"), row(7, sha("locked"))]  # an indexed entry: not one of these
    found = moves.not_indexed_twins(gone)
    assert [(r.id, path) for r, path in found] == [(1, "/d/new/a.pdf"), (2, "/d/new/b.pdf")]
    assert moves.not_indexed_twins(gone) == []  # used up
