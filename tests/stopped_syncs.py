"""A sync stopped after its first failure, as the tests of a stopped sync's mark need it (desktop and shared)."""

from __future__ import annotations

from pathlib import Path

import pytest


def stop_after_a_failure(lib, docs: Path) -> None:
    """`docs`: a-broken.pdf (fails) and three notes; `lib`'s sync of it stopped once a-broken has failed and n0 is
    being read: the mark says 1 of 4 files done and a-broken.pdf not read."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken

    docs.mkdir()
    (docs / "a-broken.pdf").write_bytes(b"not a pdf")
    for i in range(3):
        (docs / f"n{i}.txt").write_text(f"Note {i} on the harbour wall repairs.\n")
    token = CancelToken()

    def cancel_at_n0(p):  # a-broken, n0: stopped as n0 is reported, after a-broken failed
        if p.stage == "extracting" and p.done == 2:
            token.cancel()

    with pytest.raises(Cancelled):
        lib.add_folder(docs, cancel_at_n0, cancel=token, embed=False)
