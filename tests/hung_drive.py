"""A network drive that stopped answering, as the tests make one: every stat under a folder waits (a hard NFS
mount's does, for ever) until the test lets it go. The one part that cannot be had here without a mount; the
library, its files and searches stay real (library/search/availability.py asks its stats through `_os_stat`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from searchapp.library.search import availability


def hang_stats_under(monkeypatch, folder: Path) -> tuple[list[str], threading.Event]:
    """Stats under `folder` wait until the returned event is set; (the paths asked so far, that event). The wait
    for stats made 0.5 s and what availability remembers as not answering emptied, for this test."""
    under = str(folder) + os.sep
    release, asked = threading.Event(), []

    def stat(path: Path) -> object:
        if str(path).startswith(under):
            asked.append(str(path))
            release.wait()
        return os.stat(path)

    monkeypatch.setattr(availability, "_os_stat", stat)
    monkeypatch.setattr(availability, "STAT_WAIT_S", 0.5)
    monkeypatch.setattr(availability, "_stuck", {})
    return asked, release
