"""Issue 14.5: cancel means now, and keeps what is done.

A cancel token fired from the progress callback while one big file is being read: the sync stops
inside that file's extraction/chunking (counted in tokenizer calls, not seconds), and the small
files read before it are committed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken
from searchapp.library import Library

PROSE = ("Plants turn light into sugar. Their leaves hold chlorophyll, which absorbs red and blue light "
         "and reflects green. ")


class CountingEncoder:
    """The real tiny encoder, counting tokenizer calls made after the cancel."""

    def __init__(self, inner, token: CancelToken) -> None:
        self.inner, self.token = inner, token
        self.calls_after_cancel = 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def token_offsets(self, text):
        self.reading(text)
        return self.inner.token_offsets(text)

    def token_bounds(self, text):  # the words pass's way to the same word pieces
        self.reading(text)
        return self.inner.token_bounds(text)

    def reading(self, text: str) -> None:
        if self.token.cancelled:
            self.calls_after_cancel += 1


def small_and_big(folder: Path) -> Path:
    folder.mkdir()
    for i in range(4):
        (folder / f"a{i}.txt").write_text(f"Small note number {i}. " + PROSE)
    big = folder / "z_big.txt"
    big.write_text((PROSE * 5 + "\n\n") * 6000)  # ~3.6 MB of prose: thousands of passages
    return big


def indexed(lib: Library) -> set[str]:
    return {Path(p).name for p, _ in lib.store.files_of_root(lib.store.roots()[0].id).items()
            if _.status == "indexed"}


def test_cancel_during_a_big_file_stops_in_it_and_keeps_the_files_before(make_config, tiny_encoder, tmp_path):
    big = small_and_big(tmp_path / "docs")
    token = CancelToken()
    enc = CountingEncoder(tiny_encoder, token)

    def progress(p):
        if p.stage == "extracting" and p.message == big.name:
            token.cancel()  # the user presses Cancel as the big file starts

    lib = Library(make_config(), encoder=enc)
    try:
        with pytest.raises(Cancelled):
            lib.add_folder(tmp_path / "docs", progress, token)
        # Stopped inside the big file: chunking it uncancelled takes hundreds of tokenizer calls.
        assert enc.calls_after_cancel <= 2
        assert indexed(lib) == {"a0.txt", "a1.txt", "a2.txt", "a3.txt"}
        hits = lib.search("small note number 2 chlorophyll", k=10, mode="lexical")
        assert any(h.path.endswith("a2.txt") for h in hits.hits)
        assert lib.status().consistent
    finally:
        lib.close()


def test_cancel_while_chunking_a_file(make_config, tiny_encoder, tmp_path):
    """Fired from the tokenizer itself (mid-chunking): the run ends before the next segment."""
    big = small_and_big(tmp_path / "docs")
    token = CancelToken()

    class CancelMidChunk(CountingEncoder):
        seen = 0

        def reading(self, text):
            if len(text) > 50_000:  # a segment of the big file
                self.seen += 1
                if self.seen == 2:
                    token.cancel()
            super().reading(text)

    enc = CancelMidChunk(tiny_encoder, token)
    lib = Library(make_config(), encoder=enc)
    try:
        with pytest.raises(Cancelled):
            lib.add_folder(tmp_path / "docs", None, token)
        assert enc.calls_after_cancel <= 1
        assert indexed(lib) == {"a0.txt", "a1.txt", "a2.txt", "a3.txt"}
        assert big.name not in indexed(lib)
    finally:
        lib.close()
