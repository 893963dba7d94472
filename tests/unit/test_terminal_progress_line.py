"""The terminal's progress line shows one percentage: the embedding bar's, not also the library's."""

from __future__ import annotations

import io
import re

import pytest

from searchapp.base.progress import Progress
from searchapp.cli.progress import TerminalProgress
from searchapp.library.sync.meaning_pass import meaning_message


def test_the_embedding_line_shows_one_percentage(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "160")  # the width a test worker's terminal reports is no test's business
    bar = TerminalProgress(enabled=True)
    # 370 of the 1,000 passages this run embeds; the library (with passages embedded before) is at 87%
    bar(Progress("embedding", 370, 1000, meaning_message(8_700, 10_000)))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert set(re.findall(r"(\d+)%", line)) == {"37"}, line
    assert "searchable by words" in line
    bar.close()


def test_the_embedding_line_shows_the_measured_rate_and_time_left(monkeypatch):
    """The rate and time left are base/rate.py's, on the bar's clock (here the test's): 32 passages every 4 s."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "160")  # room for all of it
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    for i in range(6):
        now[0] = 4.0 * i
        bar(Progress("embedding", 32 * i, 1000, meaning_message(32 * i, 1000)))
        line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
        if i < 3:  # too early for a rate worth showing
            assert "/s" not in line, line
    assert "8.0 passages/s, about 2 min left" in line, line  # (1000 - 160) / 8 = 105 s, to the minute
    assert "searchable by words" in line
    bar.close()
    # the window's rule for a first estimate (base/rate.py): 50 files every 0.5 s after a slow first, said as one
    for i in range(9):
        now[0] = 100.0 + (0.0 if i == 0 else 1.5 + 0.5 * i)
        bar(Progress("extracting", 50 * i, 3000))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert "100 files/s, about 26 s left (first estimate)" in line, line
    bar.close()


def test_a_bar_over_many_quick_files_is_drawn_a_few_times_a_second_and_ends_at_the_last(monkeypatch):
    """A words pass reports every file: 1,000 files in one second are drawn about ten times, not 1,000 (each
    drawing costs CPU and the terminal's work), and the last report is drawn whatever the time since."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    for i in range(1, 1001):
        now[0] = i / 1000
        bar(Progress("extracting", i, 1000, f"f{i}.txt"))
        assert bar._bar.n == i  # always current, drawn or not
    drawn = [line for line in err.getvalue().replace("\r", "\n").splitlines() if line.startswith("reading files")]
    assert 5 <= len(drawn) <= 15, len(drawn)
    assert "1000/1000" in drawn[-1], drawn[-1]
    bar.close()


def test_a_writer_handover_s_wait_is_not_counted_in_the_rate(monkeypatch):
    """64 passages/s, then 300 s waiting for another writer: the line says 64/s again or no rate, never ~6/s."""
    from searchapp.library.sync.handover import WAITING

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "160")  # room for the rate and the time left (80 columns keep the time left)
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    for i in range(21):
        now[0] = float(i)
        bar(Progress("embedding", 64 * i, 100_000))
    assert "64.0 passages/s" in err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    bar(Progress(WAITING, 0, 0, "another searchapp process is adding files"))
    for k in range(1, 16):
        now[0] = 320.0 + k
        bar(Progress("embedding", 64 * (20 + k), 100_000))
        line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
        assert "/s" not in line or "64.0 passages/s" in line, line
    assert "64.0 passages/s" in line, line
    bar.close()


def test_at_120_columns_the_bar_keeps_its_width_and_the_rate_stays_whole(monkeypatch):
    """A newcomer's 120-column terminal showed `10%| |` and "slowed for othe": the postfix now gives way."""
    from searchapp.cli.progress import MIN_BAR

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "120")
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    slowed = "slowed for other programs (1 of 2 cores): about half speed"
    for i in range(6):
        now[0] = 4.0 * i
        bar(Progress("embedding", 3200 * i, 46_529, meaning_message(3200 * i, 46_529) + " · " + slowed))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert len(line) <= 120, (len(line), line)
    assert "passages/s, about" in line and " left" in line, line  # the rate and time left, whole
    assert "searchable by words" not in line  # what matters least gave way
    room_for_bar = 120 - (len(line) - len(re.search(r"%\|(.*?)\| ", line).group(1)))
    assert room_for_bar >= MIN_BAR, (room_for_bar, line)  # tqdm fills a real terminal's row: this is the bar's
    bar.close()


def test_at_80_columns_the_time_left_is_whole(monkeypatch):
    """A newcomer's 80-column terminal showed "13.5 passages/s, abou…": where the rate and the time left do not
    both fit, the time left stays whole."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "80")
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    for i in range(6):
        now[0] = 4.0 * i
        bar(Progress("embedding", 54 * i, 24_094, meaning_message(54 * i, 24_094)))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert len(line) <= 80 and "about 29 min left" in line and "…" not in line, line
    bar.close()


def test_scanned_pdfs_read_again_after_an_upgrade_have_a_bar_with_a_time_left(monkeypatch):
    """The OCR step's re-reading of scanned PDFs for a newer reader (library/ocr/step.py) had no line at all: a
    thousand of them are minutes. Its own bar, its files counted, a rate and time left: one file every 2 s."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "160")
    now = [0.0]
    bar = TerminalProgress(enabled=True, clock=lambda: now[0])
    for i in range(8):
        now[0] = 2.0 * i
        bar(Progress("rereading", i, 300, f"scan{i}.pdf"))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert line.startswith("reading scanned PDFs again (newer reader):") and "7/300" in line, line
    assert "0.5 files/s, about 10 min left" in line, line
    bar.close()


def test_the_bar_says_the_model_loads_while_it_sits_at_zero(monkeypatch):
    """A pass whose first batch loads the model sat at "0/48" for seconds with no word of why: the note the sync
    puts beside its first report (meaning_rate.aside_note) is on the bar."""
    from searchapp.base.progress import LOADING_NOTE

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "120")
    bar = TerminalProgress(enabled=True, clock=lambda: 0.0)
    bar(Progress("embedding", 0, 48, meaning_message(0, 48) + " · " + LOADING_NOTE))
    assert LOADING_NOTE in err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    bar.close()


def _last_line(err: io.StringIO) -> str:
    return err.getvalue().replace("\r", "\n").strip().splitlines()[-1]


def _terminal(monkeypatch, columns: int) -> tuple[TerminalProgress, io.StringIO, list[float]]:
    """(a bar drawn on a `columns`-wide terminal, what it wrote, its clock: now[0] seconds)."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", str(columns))
    now = [0.0]
    return TerminalProgress(enabled=True, clock=lambda: now[0]), err, now


def test_at_80_columns_the_status_words_give_way_whole_never_cut(monkeypatch):
    """An 80-column terminal showed "[00:00, searchable by words mean…]" and "slowed for other program…": each
    part says itself in shorter words, or gives way whole, what matters least first."""
    bar, err, now = _terminal(monkeypatch, 80)
    bar(Progress("embedding", 0, 317, meaning_message(0, 317)))
    line = _last_line(err)
    assert len(line) <= 80 and "…" not in line and "searchable by words]" in line, line
    slowed = "slowed for other programs: 1 of 2 threads"
    now[0] = 1.0
    bar(Progress("embedding", 16, 317, meaning_message(16, 317) + " · " + slowed))
    line = _last_line(err)
    assert len(line) <= 80 and "…" not in line and "[00:00, slowed for other programs]" in line, line
    bar.close()


def test_the_time_left_comes_first_then_the_slowed_note_in_short(monkeypatch):
    """With a rate at 80 columns: the time left whole, then as much of the rest as fits, in its short words."""
    bar, err, now = _terminal(monkeypatch, 80)
    slowed = "slowed for other programs: 1 of 2 threads"
    for i in range(6):
        now[0] = 4.0 * i
        bar(Progress("embedding", 32 * i, 1000, meaning_message(32 * i, 1000) + " · " + slowed))
    line = _last_line(err)
    assert len(line) <= 80 and "…" not in line and "about 2 min left; slowed]" in line, line
    bar.close()


def test_several_folders_scanned_in_one_sync_each_have_a_bar_naming_it(monkeypatch):
    """`index A B C D` drew four `scanning: … 323/?` bars and four `indexing` ones, none naming its folder: the
    sync names it on each report (words_pass.naming_folder) and the bar's title says it."""
    bar, err, now = _terminal(monkeypatch, 80)
    for folder in ("Pictures, 1 of 2", "A folder with a very long name, 2 of 2"):
        for p in (Progress("scanning", 323, folder=folder), Progress("extracting", 1, 317, "a.txt", folder=folder)):
            now[0] += 1.0
            bar(p)
    lines = err.getvalue().replace("\r", "\n").splitlines()
    assert any(x.startswith("scanning Pictures (1 of 2):") for x in lines), lines
    assert any(x.startswith("reading files Pictures (1 of 2):") for x in lines), lines
    assert any(x.startswith("scanning A folder with a… (2 of 2):") for x in lines), lines
    assert all(len(x) <= 80 for x in lines), lines
    bar.close()


def test_the_bar_says_the_syncs_step_as_the_window_does_in_one_line(monkeypatch):
    """The window's strip said "Step 2 of 3 · Reading …" and the command line's bar no step at all: the bar's title
    begins with it, in the same words (base/progress.py step_text), "[3/3]" where 80 columns need the room for the
    time left, and the line stays one line."""
    bar, err, now = _terminal(monkeypatch, 160)
    bar(Progress("extracting", 120, 3000, "a.txt", step=2, steps=3))
    bar.close()
    assert _last_line(err).startswith("Step 2 of 3 · reading files: "), _last_line(err)
    bar, err, now = _terminal(monkeypatch, 80)
    for i in range(6):
        now[0] = 4.0 * i
        bar(Progress("embedding", 54 * i, 24_094, meaning_message(54 * i, 24_094), step=3, steps=3))
    line = _last_line(err)
    bar.close()
    assert line.startswith("[3/3] embedding: ") and "about 29 min left" in line and len(line) <= 80, line
    bar, err, now = _terminal(monkeypatch, 80)
    bar(Progress("extracting", 1, 317, "a.txt", folder="A folder with a very long name, 2 of 2", step=2, steps=3))
    line = _last_line(err)
    bar.close()
    assert line.startswith("[2/3] reading files A fold… (2 of 2): ") and len(line) <= 80, line  # the step first


def test_the_sync_names_each_folder_on_its_reports_only_where_it_reads_several():
    from searchapp.library.sync.words_pass import naming_folder

    seen: list[Progress] = []
    told = naming_folder(seen.append, "/home/me/Pictures/", 2, 4)
    told(Progress("scanning", 5))
    told(Progress("extracting", 1, 3, "a.jpg"))
    told(Progress("embedding", 1, 3))
    assert [p.folder for p in seen] == ["Pictures, 2 of 4", "Pictures, 2 of 4", ""]
    assert naming_folder(seen.append, "/home/me/Pictures", 1, 1) == seen.append  # one folder: no name needed


def test_the_time_left_is_taken_again_at_every_report_a_steady_pace_counts_it_down(monkeypatch):
    """A newcomer's "about 2 min left" stayed from 6 % to 57 %: the time left is measured again at every report
    drawn (base/rate.py), so at a steady pace it goes down with the work; what held it there was the pace
    itself slowing ("slowed for other programs"), which the whole stage's average follows a minute late."""
    bar, err, now = _terminal(monkeypatch, 160)
    said = []
    for i in range(60):  # 16 passages every 2 s of 960: 120 s in all
        now[0] = 2.0 * i
        bar(Progress("embedding", 16 * i, 960, meaning_message(16 * i, 960)))
        said.append(re.search(r"about (.*?) left", _last_line(err)))
    lefts = [m.group(1) for m in said if m is not None]
    assert lefts[0] == "2 min" and lefts[-1] == "2 s" and "1 min" in lefts and "30 s" in lefts, lefts
    bar.close()


@pytest.mark.parametrize("name, said", [
    ("big-scan.pdf", "[00:00, big-scan.pdf, 40 s…]"),
    # A newcomer's 80-column line said "reading one file for long…" for 14 s, where the window named the file: the
    # path is cut from its front to the room left, the file's own name kept
    ("/work/newcomer-files/pdfcopy/testPDF_childAttachments.pdf", "[00:00, …tachments.pdf, 40 s…]")])
def test_a_file_read_for_long_is_named_on_the_line(monkeypatch, name, said):
    """A 400-page scan read for minutes left the bar on one count, and a newcomer stopped the sync as hung: the sync
    reports the file again with its seconds (library/sync/slow_read.py), and the line says them first."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "80")
    bar = TerminalProgress(enabled=True, clock=lambda: 0.0)
    bar(Progress("extracting", 7, 3000, name, slow=f"reading {name}, 40 s…"))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert "7/3000" in line and said in line and len(line) <= 80, line
    bar.close()


@pytest.mark.parametrize("stage, slow, said", [
    ("ocr", "reading scans/nemo-copy.pdf by OCR, 19 s…", "nemo-copy.pdf by OCR, 19 s…"),
    ("rereading", "reading scans/nemo-copy.pdf, 19 s…", "nemo-copy.pdf, 19 s…")])
def test_a_file_read_for_long_is_named_in_the_last_steps_at_80_columns(monkeypatch, stage, slow, said):
    """`[4/4] OCR (scans, images): 0%| | 0/9 [00:13]` for 13 s at 80 columns, no file named (160 columns named it): a
    newcomer. The file read for long matters more than the stage's long title and the bar's own length."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "80")
    bar = TerminalProgress(enabled=True, clock=lambda: 0.0)
    bar(Progress(stage, 0, 9, "scans/nemo-copy.pdf", step=4, steps=4, slow=slow))
    line = err.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert "0/9" in line and said in line and "[4/4]" in line and len(line) <= 80, line
    bar.close()


@pytest.mark.parametrize("stage", ["extracting", "embedding"])  # the files' bar, and the passages' bar beside it
def test_a_file_read_for_long_is_named_with_its_controls_escaped(monkeypatch, stage):
    """The name is a file's: one named with a terminal's escape sequences (a title set, the screen cleared) is
    shown escaped, as every other human output is (base/terminal.py: printable)."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "160")
    now = iter(range(0, 100, 10))  # each report due to be drawn
    bar = TerminalProgress(enabled=True, clock=lambda: float(next(now)))
    if stage == "embedding":
        bar(Progress("embedding", 10, 1000, ""))
    name = "x\x1b]0;owned\x07\x1b[2J.pdf"
    bar(Progress("extracting", 7, 3000, name, slow=f"reading {name}, 40 s…"))
    bar.close()
    assert "\x1b]0;owned" not in err.getvalue() and "\x07" not in err.getvalue()
    assert "reading x\\e]0;owned" in err.getvalue(), err.getvalue()
