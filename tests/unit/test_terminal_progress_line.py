"""The terminal's progress line shows one percentage: the embedding bar's, not also the library's."""

from __future__ import annotations

import io
import re

from searchapp.base.progress import Progress
from searchapp.cli.progress import TerminalProgress
from searchapp.library.sync.meaning_pass import meaning_message


def test_the_embedding_line_shows_one_percentage(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    bar = TerminalProgress(enabled=True)
    # 370 of the 1,000 passages this run embeds; the library (with passages embedded before) is at 87%
    bar(Progress("embedding", 370, 1000, meaning_message(8_700, 10_000)))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert set(re.findall(r"(\d+)%", line)) == {"37"}, line
    assert "searchable by words" in line
    bar.close()
