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
