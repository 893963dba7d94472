"""A network drive that stopped answering, under a shared library's folder: as on the desktop
(tests/integration/library/test_hung_drive.py), a search waits on that folder of the library once, not once for
each of its subfolders holding a row (8 s each: a minute and more for a page of rows spread over a share).

The hanging drive is the one part made here: a stat that waits; the library (a real PostgreSQL), its folders,
files and searches are real."""

from __future__ import annotations

import json
import os
import threading

import pytest

from searchapp.cli.main import main
from hung_drive import hang_stats_under
from searchapp.library.search import availability

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

HANG_GUARD_S = 60.0  # a bound for a failing test


@pytest.fixture
def hung(monkeypatch, tmp_path):
    """Stats under tmp_path/net wait until the test ends; the paths of those asked."""
    asked, release = hang_stats_under(monkeypatch, tmp_path / "net")
    yield asked
    release.set()


def test_a_shared_librarys_search_waits_on_a_drive_once(hung, tmp_path, tiny_bi_encoder_dir, pg_address, capsys,
                                                         monkeypatch):
    monkeypatch.delenv("SEARCHAPP_LIBRARY", raising=False)
    monkeypatch.setenv("SEARCHAPP_MACHINE", "desk-a")
    net = tmp_path / "net"
    for name in ("a", "b", "c"):
        (net / name).mkdir(parents=True)
        (net / name / f"heron-{name}.txt").write_text(f"A heron in folder {name}.", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n\n'
                                      f'[library]\naddress = "{pg_address}"\n', encoding="utf-8")
    hung_before = availability._os_stat
    monkeypatch.setattr(availability, "_os_stat", os.stat)  # the drive answers while it is indexed
    assert main(["--data-dir", str(data), "index", str(net)]) == 0, capsys.readouterr().err
    monkeypatch.setattr(availability, "_os_stat", hung_before)
    capsys.readouterr()

    got = []
    searching = threading.Thread(daemon=True, target=lambda: got.append(
        main(["--data-dir", str(data), "search", "heron", "--mode", "lexical", "--json"])))
    searching.start()
    searching.join(HANG_GUARD_S)
    assert not searching.is_alive(), "the search hung on the drive that does not answer"
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert got == [0] and {h["available"] for h in hits} == {False} and len(hits) == 3, hits
    assert len(hung) == 1, hung  # the folder of the library taken as not answering at once, not each subfolder
