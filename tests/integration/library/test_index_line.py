"""`searchapp index`'s summary line says what the sync did: how the passages it wrote got their vectors."""

from __future__ import annotations

from notes_folder import cli, make_notes


def test_index_says_the_passages_it_embedded_were_left_waiting_by_earlier_syncs(tiny_cli, tmp_path, capsys):
    """A newcomer's `index home/Notes` printed "0 passages written (2314 embedded)" for 37 s: the meaning pass
    embeds every passage waiting, and the line said nothing of why."""
    data = str(tmp_path / "lib")
    assert cli(capsys, "--data-dir", data, "index", "--words-only", str(make_notes(tmp_path / "notes")))[0] == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "kayak.txt").write_text("The kayak club meets at the boathouse.", encoding="utf-8")
    code, out, _ = cli(capsys, "--data-dir", data, "index", str(other))
    assert code == 0 and "1 passage written (4 embedded, at least 3 of them left waiting by earlier syncs)" in out, out
