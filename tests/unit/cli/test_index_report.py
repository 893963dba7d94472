"""`searchapp index`'s report on the command line: its counts in words a person can check."""

from __future__ import annotations

import re

import pytest

from searchapp.base.member_paths import MEMBER_SEP
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
    # the members of archives and mail apart from the files on disk, as `status` counts them (decision 0163)
    print_report(SyncReport(scanned=12, members=3, added=8, skipped=4), as_json=False)
    members = capsys.readouterr().out
    assert members.startswith("9 files and 3 items in archives and mail scanned: 8 added, "), members
    print_report(SyncReport(), as_json=False)
    none = capsys.readouterr().out
    assert none.startswith("0 files scanned: 0 added, ") and "; 0 passages written (0 embedded)" in none, none
    # a file renamed: one change, not an addition and a removal (the JSON keeps the three counts)
    print_report(SyncReport(scanned=3, added=1, unchanged=2, removed=1, moved=1), as_json=False)
    moved = capsys.readouterr().out
    assert moved.startswith("3 files scanned: 0 added, 1 renamed or moved, 0 updated, 2 unchanged, 0 removed, "), moved
    print_report(SyncReport(scanned=3, added=1, unchanged=2, removed=1, moved=1), as_json=True)
    assert '"added": 1, "updated": 0, "unchanged": 2, "removed": 1, "moved": 1' in capsys.readouterr().out
    # `index A B` whose meaning another process embeds: the folders' reports as one keep who embeds it
    total = SyncReport()
    total.merge(SyncReport(scanned=1, added=1, chunks_added=1, chunks_pending=1, embedded_by="process 7 (the window)"))
    total.merge(SyncReport(scanned=1, unchanged=1, chunks_pending=1))
    print_report(total, as_json=False)
    assert "`searchapp index` embeds" not in capsys.readouterr().out
    print_report(SyncReport(scanned=1, skipped=1, problems=[("/home/a/photo.heic", "unsupported format")]),
                 as_json=False)
    assert capsys.readouterr().err.startswith("1 file newly not indexed ")


def test_the_files_not_indexed_add_up_to_the_count_above_them(tmp_path, capsys):
    """A first index of a home said "163 files newly not indexed", ten lines, then "... and 20 more": the lines
    group an archive's members, so 10 + 20 was not 163. The lines' counts and the tail's add up to the header."""
    singles = [(str(tmp_path / f"photo{i}.heic"), "unsupported format") for i in range(12)]
    members = [(f"{tmp_path / 'old.zip'}{MEMBER_SEP}scan{i}.tif", "unsupported format") for i in range(20)]
    members += [(f"{tmp_path / 'mail.mbox'}{MEMBER_SEP}{i}{MEMBER_SEP}a.bin", "unsupported format") for i in range(5)]
    rep = SyncReport(scanned=40, skipped=37, problems=singles + members)
    print_report(rep, as_json=False)
    lines = capsys.readouterr().err.splitlines()
    # files and members apart, as the scan line and `status` count them (decision 0163)
    assert lines[0].startswith("12 files and 25 items in archives and mail newly not indexed "), lines[0]
    listed = lines[1:11]
    assert all(line.endswith(": unsupported format") for line in listed), listed
    shown = sum(int(m.group(1)) if (m := re.search(r": (\d+) of its members: ", line)) else 1 for line in listed)
    tail = re.fullmatch(r"  \.\.\. and (\d+) more in 4 more lines \(`searchapp status --files` lists each .*\)",
                        lines[11])
    assert tail is not None and shown + int(tail.group(1)) == 37, lines


def test_files_left_out_on_purpose_are_named_by_their_rule(capsys):
    """A sync names the files it newly left out (decisions 0177, 0178): secrets alone as such, other rules counted."""
    keys = [("/h/.ssh/id_rsa", "secret: its name matches 'id_rsa' ([scan] secret_files)")]
    print_report(SyncReport(scanned=1, left_out=keys), as_json=False)
    err = capsys.readouterr().err
    assert "1 file left out as secrets (`searchapp status --files excluded` lists them):\n  /h/.ssh/id_rsa: secret:" in err
    print_report(SyncReport(scanned=2, left_out=[*keys, ("/c/yarn.lock", "lockfile: a package manager's pins")]),
                 as_json=False)
    err = capsys.readouterr().err
    assert err.startswith("2 files left out on purpose (") and "lockfile: 1 file" in err and "secret: 1 file" in err, err
    print_report(SyncReport(scanned=1, left_out=keys), as_json=True)
    assert '"left_out": [{"path": "/h/.ssh/id_rsa", "reason": "secret: ' in capsys.readouterr().out


@pytest.mark.parametrize("report, meaning, paths, said", [
    # a newcomer's Ctrl+C before the first PDF was read to its end: "what was finished is kept (7,096 of 7096
    # passages embedded)", the passages other folders', the figures written two ways
    (SyncReport(), (7096, 7096), ["/f/pdfcopy"], "stopped: no file was read to its end before the stop: none added "
     "yet; 7,096 of the library's 7,096 passages embedded; `searchapp index` goes on from there"),
    (SyncReport(added=1), (0, 1), [], "stopped: 1 file added or updated before the stop is kept; 0 of the library's 1 "
     "passage embedded, the rest searchable by their words; `searchapp index` goes on from there"),
    (SyncReport(added=1200, updated=34, ocr_pending=12), (2000, 12_500), ["/a", "/b c"], "stopped: 1,234 files added "
     "or updated before the stop are kept, 12 files kept waiting for OCR; 2,000 of the library's 12,500 passages embedded, the rest searchable by their "
     "words; `searchapp index /a '/b c'` goes on from there"),
    # items in archives and mail apart, as the scan line and the window's pane count them (the window newcomer's
    # "1,019 files done" beside "937 + 376")
    (SyncReport(added=1019, members_written=82), (9, 9), [], "stopped: 937 files and 82 items in archives and mail "
     "added or updated before the stop are kept; 9 of the library's 9 passages embedded; `searchapp index` goes on "
     "from there"),
])
def test_a_stopped_index_says_the_files_it_kept_and_the_librarys_passages(report, meaning, paths, said):
    from searchapp.cli.commands.index import stopped_text

    assert stopped_text(report, meaning, paths) == said
