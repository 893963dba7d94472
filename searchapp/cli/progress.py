"""Terminal progress: a bar over files while reading them, then over passages once embedding starts
(embedding is where the time goes, so its rate gives an honest time left); the other stage is the postfix. The
bar's title begins with the sync's step as the window's strip says it ("Step 2 of 3 · reading files").
One percentage per line: the bar's. The library-wide meaning percentage the sync reports beside it counted
other passages (ones embedded before) and read as a second, different figure for the same bar."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Optional

from ..base.progress import LOADING_NOTE, Progress, step_text
from ..base.rate import PAUSED_STAGES, RateEstimator, format_left, format_rate, left_words
from ..base.terminal import printable

__all__ = ["TerminalProgress", "slow_wordings"]

_UNITS = {"scanning": " files", "files": " files", "rebuilding index": " vectors", "passages": " passages",
          "ocr": " files", "rereading": " files"}
# tqdm's own rate and time left left out: the measured ones (base/rate.py) are the postfix.
_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
_TITLES = {"files": "reading files", "passages": "embedding", "ocr": "OCR (scans, images)",
           "rereading": "reading scanned PDFs again (newer reader)"}
# While a file is read for long its name comes first: these stages' titles said short, the bar kept SLOW_BAR wide.
# `[4/4] OCR (scans, images)` at 80 columns left the name no room, 13 s of "0/9" and no file named (a newcomer).
_SHORT_TITLES = {"ocr": "OCR", "rereading": "reading again"}
SLOW_BAR = 4
# Seconds between two redraws of one bar: a words pass reports every file (10,000 small files in a few
# seconds), and drawing each one cost ~0.1 ms of CPU a file plus the terminal's own work, for changes no eye
# follows. A new bar, a changed total and the last report are drawn at once.
REDRAW_S = 0.1
MIN_BAR = 12  # columns the bar itself keeps: at 120 columns a long postfix had left it one wide, and cut
_FOLDER_CHARS = 16  # of a folder's name in a bar's title, at most
_FIXED = 26  # the rest of _FORMAT's line: ": 100%|", "| ", "/", " [", the elapsed time, ", " and "]"
_MIN_NAME = 8  # characters of a slow file's path kept at least, its name's end: fewer name nothing
_KEEP = len("about 59 min left")  # the postfix room the sync's step leaves the time left, where it can


UNSIZED = (80, 24)  # the bar's terminal size where the terminal reports none


def _columns() -> int:
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


def _unsized() -> Optional[tuple[int, int]]:
    """Where stderr, on which the bar is drawn, is a terminal that reports no width or height (0: `script` with no
    real terminal behind it, a pty never sized), the size to draw to instead, else None. tqdm drew no bar at all
    there (it hides a bar below the screen's last row, and read -1 rows): a 5-minute embedding showed nothing."""
    import os

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (AttributeError, ValueError, OSError):  # not a terminal, or no descriptor: tqdm's own defaults hold
        return None
    if size.columns > 0 and size.lines > 0:
        return None
    return (size.columns if size.columns > 0 else UNSIZED[0]), (size.lines if size.lines > 0 else UNSIZED[1])


def _fit(parts: list[list[str]], room: int) -> str:
    """Each part's longest wording that fits in `room` columns, joined by "; ", in order: a part none of whose
    wordings fits gives way whole, with every part after it (what matters most comes first). Words are never cut
    short: an 80-column terminal showed "searchable by words mean…" and "slowed for other program…"."""
    out = ""
    for wordings in parts:
        fitting = [w for w in wordings if len(f"{out}; {w}" if out else w) <= room]
        if not fitting:
            return out
        out = f"{out}; {fitting[0]}" if out else fitting[0]
    return out


def _wordings(note: str) -> list[str]:
    """A note the sync puts beside its embedding report, then shorter wordings of it for a narrow terminal."""
    if note.startswith("slowed for other programs"):  # "…: 1 of 2 threads"
        return [note, "slowed for other programs", "slowed"]
    if note == LOADING_NOTE:
        return [note, "loading the model"]
    return [note]


def slow_wordings(p: Progress, room: int) -> list[str]:
    """A file read for long, as the window names it ("reading …/pdfcopy/testPDF_angles.pdf, 14 s…"), its path cut
    from the front to `room` columns: "reading one file for long…" alone, for 14 s, left the person nothing to
    leave out (a newcomer). Escaped: a file named with a terminal's escape sequences must not drive it."""
    slow, name = printable(p.slow), printable(p.message)
    if len(slow) <= room or not name or name not in slow:
        return [slow, "reading one file for long…"]
    # the name's end in the room left, "reading " given up before the name is cut below _MIN_NAME (80 columns)
    for said in (slow, slow.removeprefix("reading ")):
        over = len(said) - room
        if over <= 0:
            return [said]
        if len(name) - over - 1 >= _MIN_NAME:
            return [said.replace(name, "…" + name[over + 1:], 1)]
    return ["reading one file for long…"]


def _bar_title(key: str, folder: str, chars: int = _FOLDER_CHARS, short: bool = False) -> str:
    """The bar's title: the stage (`short`: in its short words, where it has them), and the folder it is about where
    one sync reads several (its name kept to `chars`: the words after it need the room)."""
    title = (short and _SHORT_TITLES.get(key)) or _TITLES.get(key, key)
    if not folder:
        return title
    name, nth = folder.rsplit(", ", 1) if ", " in folder else (folder, "")
    if len(name) > chars:
        name = name[: chars - 1] + "…"
    return f"{title} {name} ({nth})" if nth else f"{title} {name}"


def _with_step(key: str, p: Progress, room: int, short: bool = False) -> str:
    """The bar's title (_bar_title's) after the sync's step, in the window's words ("Step 2 of 3 · reading files"), where
    that leaves the time left its room (`room`: the columns for the title and the postfix); else the step in short
    ("[2/3] reading files": an 80-column terminal), the folder's name cut shorter where it must; the title alone where
    not even that fits. `short`: the step and the title in short only (a file read for long is named after them)."""
    title = _bar_title(key, p.folder, short=short)
    if not p.step:
        return title
    wordings = [f"{step_text(p)} · {title}"] * (not short) + [f"{step_text(p, short=True)} {title}"]
    fitting = [w for w in wordings if len(w) + _KEEP <= room] + [w for w in wordings[-1:] if len(w) <= room]
    for chars in range(_FOLDER_CHARS - 1, 3, -1) if p.folder else ():  # the step before the name's last letters
        fitting.append(f"{step_text(p, short=True)} {_bar_title(key, p.folder, chars, short)}")
    return next((w for w in fitting if len(w) <= room), title)


class TerminalProgress:
    """A ProgressFn for the CLI; silent unless stderr is a terminal (scripts get clean output)."""

    def __init__(self, enabled: Optional[bool] = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar: Any = None  # a tqdm bar (tqdm has no type information)
        self._stage = ""
        self._title = ""  # the bar's title without the step (_bar_title's)
        # The rate and time left are base/rate.py's, as in the window and `status` (not tqdm's own smoothing).
        self._rate = RateEstimator()
        self._clock = clock
        self._drawn = float("-inf")  # when the bar was last drawn (self._clock)

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        if p.stage == "searchable":  # phase 1 is done: say so before the (long) embedding bar starts
            self.close()
            print(f"searchapp: {p.message}; embedding their meaning now (Ctrl-C keeps what is done)",
                  file=sys.stderr)
            return
        if p.stage == "embedding" and p.total:
            key = "passages"  # sync reports passages embedded so far of an estimated total
        elif p.stage in ("ocr", "rereading") and p.total:  # after the words and meaning of every other file:
            key = p.stage  # a bar of its own
        elif p.stage in ("scanning", "extracting", "rebuilding index"):
            key = p.stage if p.stage != "extracting" else "files"
            if key == "files" and self._stage == "passages" and self._bar is not None:
                if self._due(p.done == p.total):
                    self._bar.set_postfix_str((f"file {p.done}/{p.total}" if p.total else f"file {p.done}")
                                              + (f"; {printable(p.slow)}" if p.slow else ""), refresh=True)
                return
        else:
            if p.stage in PAUSED_STAGES:  # a handover's wait: the pace after it is measured afresh
                self._rate.reset()
            if self._bar is not None:
                total = f"/{p.total}" if p.total else ""
                self._bar.set_postfix_str(f"{p.stage} {p.done}{total}", refresh=True)
            return
        self._show(key, p)

    def _show(self, key: str, p: Progress) -> None:
        from tqdm import tqdm

        title = _bar_title(key, p.folder)
        if self._stage != key or self._title != title:  # another stage, or the next folder's scanning
            from . import warning_lines

            self.close()
            warning_lines.install()  # while the bar is drawn, a warning is a line of its own, not glued onto it
            self._stage, self._title = key, title
            fixed = _unsized()
            cols, rows = fixed or (None, None)
            desc = _with_step(key, p, (cols or _columns()) - 2 * len(str(p.total or p.done)) - _FIXED - MIN_BAR)
            self._bar = tqdm(total=p.total, desc=desc, unit=_UNITS.get(key, ""),
                             file=sys.stderr, dynamic_ncols=fixed is None, ncols=cols, nrows=rows, leave=False,
                             bar_format=_FORMAT)
        redraw = False
        if p.total is not None and self._bar.total != p.total:
            self._bar.total = p.total  # the passage total is an estimate that sharpens as files are read
            redraw = True
        self._bar.n = p.done  # always current: what the next drawing (or close) shows
        if not self._due(redraw or p.done == p.total):
            return
        now = self._drawn
        self._rate.update(p.done, now)
        est = self._rate.estimate(p.total, now)  # the window's rule (base/rate.py): a first estimate early on
        # what matters most first, each part's wordings longest first: _fit drops from the end. An 80-column
        # terminal showed "13.5 passages/s, abou…": where the rate and the time left do not both fit, the time left
        rate = self._rate.rate() if est is None else est.rate  # no total (scanning): the rate alone
        pace = "" if rate is None else f"{format_rate(rate)[:-2]}{_UNITS.get(key, '')}/s".strip()
        postfix = [[pace] if est is None else [f"{pace}, {left_words(est)}", left_words(est),
                                               f"about {format_left(est.left)} left"]] if pace else []
        if key == "passages" and p.message:
            postfix += [_wordings(part) for part in p.message.split(" · ")  # meaning_rate.aside_note's
                        if part.startswith("slowed for") or part == LOADING_NOTE]
            postfix.append(["searchable by words meanwhile", "searchable by words"])
        width = self._bar.ncols if not self._bar.dynamic_ncols else _columns()  # fixed where the terminal says none
        room = width - 2 * len(str(p.total or p.done)) - _FIXED - MIN_BAR  # for the title and the postfix
        short = bool(p.slow) and self._stage in _SHORT_TITLES  # the file's name before a long title and the bar
        room += MIN_BAR - SLOW_BAR if short else 0
        desc = _with_step(self._stage, p, room, short)  # the step as the window says it, shorter where narrow
        if desc != self._bar.desc:
            self._bar.set_description_str(desc, refresh=False)
        if p.slow:  # "reading big-scan.pdf, 40 s…" (library/sync/slow_read.py): one file, not a hang; first
            postfix.insert(0, slow_wordings(p, room - len(desc)))
        self._bar.set_postfix_str(_fit(postfix, room - len(desc)), refresh=False)
        self._bar.refresh()

    def _due(self, now_anyway: bool) -> bool:
        """Whether to draw this report: REDRAW_S after the last drawing, or at once (`now_anyway`)."""
        now = self._clock()
        if not now_anyway and now - self._drawn < REDRAW_S:
            return False
        self._drawn = now
        return True

    def close(self) -> None:
        self._drawn = float("-inf")  # the next bar's first report is drawn
        if self._bar is not None:
            from . import warning_lines

            self._bar.close()
            self._bar = None
            warning_lines.uninstall()  # no bar: the last resort's line is a line of its own
        self._stage = self._title = ""
        self._rate.reset()
