"""`searchapp index`'s report on the command line: its counts in words a person can check."""

from __future__ import annotations

from searchapp.cli.commands.index import print_report
from searchapp.library.sync.contract import SyncReport


def test_the_summary_line_says_one_file_and_one_passage_in_the_singular(capsys):
    """A newcomer's first index said "1 passages written (1 embedded)": each count of the line takes its noun's
    number, one file and one passage as well as two of each."""
    print_report(SyncReport(scanned=1, added=1, chunks_added=1, chunks_embedded=1), as_json=False)
    one = capsys.readouterr().out
    assert one.startswith("1 file scanned: 1 added, ") and "; 1 passage written (1 embedded)" in one, one
    print_report(SyncReport(scanned=2, added=2, chunks_added=2, chunks_embedded=2), as_json=False)
    two = capsys.readouterr().out
    assert two.startswith("2 files scanned: 2 added, ") and "; 2 passages written (2 embedded)" in two, two
    print_report(SyncReport(), as_json=False)
    none = capsys.readouterr().out
    assert none.startswith("0 files scanned: 0 added, ") and "; 0 passages written (0 embedded)" in none, none
    print_report(SyncReport(scanned=1, skipped=1, problems=[("/home/a/photo.heic", "unsupported format")]),
                 as_json=False)
    assert capsys.readouterr().err.startswith("1 file newly not indexed ")
