"""A network drive that stopped answering: every stat under it hangs (a hard NFS mount for ever). A search asks
each shown row whether its file can be opened; on such a drive it hung, and so did a sync waiting for that search
(the writer yields while a search runs). Now the search answers within the stats' wait, the rows on that drive
marked "not answering", the others as they are; and it does not wait on that drive again for a minute.

The hanging drive is the one part made here: a stat that waits (it cannot be had without a mount); the library,
its folders, files and searches are real."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from searchapp.library import Library
from hung_drive import hang_stats_under
from searchapp.library.search.availability import NOT_ANSWERING

HANG_GUARD_S = 60.0  # a bound for a failing test: the search hangs without the wait


@pytest.fixture
def hung(monkeypatch, tmp_path):
    """Stats under tmp_path/net wait until the test ends; the count of those asked."""
    asked, release = hang_stats_under(monkeypatch, tmp_path / "net")
    yield asked
    release.set()


def test_a_search_answers_while_a_drive_does_not(hung, make_config, tiny_encoder, tmp_path):
    home, net = tmp_path / "home", tmp_path / "net"
    for folder in (home, net, net / "deeper"):
        folder.mkdir()
    (home / "heron.txt").write_text("The heron waded through the reeds.", encoding="utf-8")
    (net / "heron-net.txt").write_text("A heron on the network drive.", encoding="utf-8")
    (net / "deeper" / "heron-deep.txt").write_text("Another heron, deeper down.", encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(home, embed=False)
        lib.add_folder(net, embed=False)
        got = []
        searching = threading.Thread(target=lambda: got.append(lib.search("heron", mode="lexical")), daemon=True)
        searching.start()
        searching.join(HANG_GUARD_S)
        assert not searching.is_alive(), "the search hung on the drive that does not answer"
        marks = {Path(h.path).name: h.unavailable for h in got[0].hits}
        assert marks == {"heron.txt": "", "heron-net.txt": NOT_ANSWERING, "heron-deep.txt": NOT_ANSWERING}, marks
        assert len(hung) == 1  # one stat left hanging: the rest of that folder of the library was not asked
        again = lib.search("heron", mode="lexical")  # within the minute: not asked again
        assert len(hung) == 1 and {h.unavailable for h in again.hits} == {"", NOT_ANSWERING}


def test_an_in_on_a_drive_that_does_not_answer_does_not_hang_the_search(hung, monkeypatch, make_config,
                                                                         tiny_encoder, tmp_path):
    """`in:` a folder of the library on that drive: whether the place is a typo was asked of the disk first (a
    plain lexists, no wait), so the search hung there though the library holds files at that place. It is asked
    of the library first, and of the disk only within the stats' wait."""
    net = tmp_path / "net"
    (net / "deeper").mkdir(parents=True)
    (net / "deeper" / "heron-deep.txt").write_text("Another heron, deeper down.", encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(net, embed=False)
        under, real_lexists = str(net) + "/", os.path.lexists
        # the drive stops answering: every stat under it waits, lexists's too (not only availability's)
        monkeypatch.setattr(os.path, "lexists", lambda p: _wait_for_ever() if str(p).startswith(under)
                            else real_lexists(p))
        got = []
        for query in (f"heron in:{net / 'deeper'}", f"heron in:{net / 'deeeper'}"):
            searching = threading.Thread(target=lambda q=query: got.append(lib.search(q, mode="lexical")),
                                         daemon=True)
            searching.start()
            searching.join(HANG_GUARD_S)
            assert not searching.is_alive(), f"the search {query!r} hung on the drive that does not answer"
        assert [Path(h.path).name for h in got[0].hits] == ["heron-deep.txt"]


def _wait_for_ever() -> bool:
    threading.Event().wait()
    return True
