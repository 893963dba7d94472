"""`searchapp watch`'s line for a live update: a file there named first, and why files were left out."""

from __future__ import annotations

from searchapp.cli.commands.watch import SHOWN_PROBLEMS, print_change
from searchapp.library.sync.contract import SyncReport


def test_a_live_update_names_a_file_and_says_why_files_were_left_out(tmp_path, capsys):
    """A tester's lines named a checkout's folder ("30 added: /…/projects and 31 more"), or an editor's temporary
    file already gone, and "6 skipped" said no reason."""
    kept = tmp_path / "notes.txt"
    kept.write_text("kept", encoding="utf-8")
    folder, gone = str(tmp_path), str(tmp_path / ".notes.txt.swp")
    rep = SyncReport(updated=1, skipped=SHOWN_PROBLEMS + 2,
                     problems=[(str(tmp_path / f"link{i}"), "symlink (following symlinks is off)")
                               for i in range(SHOWN_PROBLEMS + 2)])
    print_change(rep, [folder, gone, str(kept)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(f"1 updated, {SHOWN_PROBLEMS + 2} skipped: {kept} and 2 more"), lines[0]
    assert lines[1] == f"  {tmp_path / 'link0'}: symlink (following symlinks is off)"
    assert len(lines) == 1 + SHOWN_PROBLEMS + 1 and lines[-1].startswith("  ... and 2 more")
    print_change(SyncReport(), [str(kept)])  # nothing happened: nothing said
    assert capsys.readouterr().out == ""
