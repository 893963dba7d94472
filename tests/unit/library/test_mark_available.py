"""A hit whose file cannot be read now is shown, marked, and says why: a folder made unreadable (chmod 000, a
share whose permissions changed) was labelled "file or folder missing" although it is there."""

from __future__ import annotations

import os

from searchapp.base.types import Hit
from searchapp.library.search import availability, pipeline
from searchapp.library.search.result import SearchResult


def test_missing_unreadable_and_readable_hits(tmp_path, monkeypatch):
    here = tmp_path / "here.txt"
    here.write_text("x")
    locked = tmp_path / "locked" / "x.txt"
    real_stat = os.stat

    def stat(path, *a, **k):  # as a folder without read permission answers a user who is not root
        if str(path).startswith(str(tmp_path / "locked")):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *a, **k)

    monkeypatch.setattr(availability.os, "stat", stat)
    hits = [Hit(1, str(p), None, 0, 1, "t", more=[Hit(2, str(p), None, 2, 3, "u")])
            for p in (here, locked, tmp_path / "gone.txt")]
    pipeline.mark_available(SearchResult("q", "lexical", hits, False))
    assert [(h.available, h.unavailable) for h in hits] == [
        (True, ""), (False, "permission denied"), (False, "file or folder missing")]
    assert [(h.more[0].available, h.more[0].unavailable) for h in hits] == [(h.available, h.unavailable) for h in hits]
