"""Excel's dates: which cell styles show a number as a date or a time, and that number as text.

Excel stores a date as a serial number of days (42731 is 2016-12-27) and shows it through the number format
of the cell's style: a built-in one (ids 14-22 and 45-47) or a custom format code whose date and time
tokens (d, m, y, h, s) stand outside quoted text, escapes and [brackets]. Such a cell reads as
`2016-12-27`, `2016-12-27 13:45`, `13:45:30` or, for an elapsed format like [h]:mm, `37:30:00`: the same
text whatever the locale's display, so a search for a date finds it. Workbooks saved with the 1904 date
system (workbookPr date1904) count from 1904-01-01.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from functools import lru_cache
from typing import NamedTuple, Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from .xmlstream import XmlStream
from .ziputil import SafeZip

__all__ = ["DateFormat", "date_format", "serial_text", "iso_text", "cell_date_formats", "MAX_STYLES_BYTES"]

MAX_STYLES_BYTES = 16 * 2**20  # styles.xml: cell formats come first; what follows them is never read

BUILTIN = {14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM", 19: "h:mm:ss AM/PM",
           20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm", 45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0"}
# Quoted text, backslash escapes, _x (a space as wide as x), *x (fill with x) and [brackets] other than the
# elapsed [h] [m] [s]: none of their letters is a date token. AM/PM and A/P hold an "m" of their own.
_NOT_TOKENS = re.compile(r'"[^"]*"?|\\.|_.|\*.|\[(?![hms]+\])[^\]]*\]?|am/pm|a/p|general', re.IGNORECASE)
_EPOCH_1900 = dt.date(1899, 12, 30)  # serial 61 is 1900-03-01: Excel counts a 29 February 1900 (serial 60)
_EPOCH_1904 = dt.date(1904, 1, 1)
_LAST_SERIAL = 2_958_465  # 9999-12-31
_ISO_MIDNIGHT = re.compile(r"(\d{4}-\d\d-\d\d)T00:00(?::00(?:\.0+)?)?Z?")


class DateFormat(NamedTuple):
    date: bool  # shows a day (d, y, or m with no hour or second beside it)
    time: bool  # shows hours or seconds
    seconds: bool
    elapsed: bool  # [h], [m], [s]: a duration, hours past 24 included


@lru_cache(maxsize=1024)
def date_format(code: str) -> Optional[DateFormat]:
    """How a number format code shows a number: as a date and/or time, or None (a number, text)."""
    section = _NOT_TOKENS.sub("", _first_section(code)).lower()
    has_hour, has_seconds = "h" in section, "s" in section
    has_date = "d" in section or "y" in section or ("m" in section and not (has_hour or has_seconds))
    if not (has_date or has_hour or has_seconds):
        return None
    return DateFormat(has_date, has_hour or has_seconds, has_seconds, "[" in section)


def _first_section(code: str) -> str:
    """The format for positive numbers: up to the first ; outside quotes."""
    quoted = False
    for i, ch in enumerate(code):
        if ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            return code[:i]
    return code


def serial_text(value: str | float, fmt: DateFormat, date1904: bool = False) -> Optional[str]:
    """`value` (a serial number as stored, or as xlrd read it from an .xls) as the date or time `fmt` shows,
    to the second; None when it is not one (then the number is kept)."""
    try:
        serial = float(value)
    except ValueError:
        return None
    if not math.isfinite(serial) or serial < 0 or serial > _LAST_SERIAL:
        return None
    if fmt.elapsed:
        total = round(serial * 86400)
        hours, rest = divmod(total, 3600)
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if fmt.seconds else f"{hours}:{rest // 60:02d}"
    days = math.floor(serial)
    seconds = round((serial - days) * 86400)
    if seconds == 86400:
        days, seconds = days + 1, 0
    parts = []
    if fmt.date:
        day = _day(days, date1904)
        if day is not None:
            parts.append(day)
        elif not fmt.time:
            return None
        # else a time of day in a date-and-time format: Excel shows day 0 ("1900-01-00 16:00"); the time is meant
    if fmt.time:
        hh, rest = divmod(seconds, 3600)
        parts.append(f"{hh:02d}:{rest // 60:02d}:{rest % 60:02d}" if fmt.seconds else f"{hh:02d}:{rest // 60:02d}")
    return " ".join(parts)


def _day(days: int, date1904: bool) -> Optional[str]:
    if date1904:
        return (_EPOCH_1904 + dt.timedelta(days=days)).isoformat()
    if days < 1:
        return None  # Excel shows "1900-01-00": no day
    if days == 60:
        return "1900-02-29"  # the day Excel counts and the calendar has not
    return (_EPOCH_1900 + dt.timedelta(days=days + (days < 60))).isoformat()


def iso_text(value: str) -> str:
    """A date cell stored as ISO 8601 text (t="d"): the day alone when it is midnight."""
    m = _ISO_MIDNIGHT.fullmatch(value.strip())
    return m.group(1) if m else value.strip()


def cell_date_formats(z: SafeZip, part: str, cancel: Optional[CancelToken] = None) -> list[Optional[DateFormat]]:
    """For each cell style (index = a cell's s attribute), the date format it shows, or None. Reading
    stops after the cell styles (cellXfs); a styles part past MAX_STYLES_BYTES keeps what came before,
    and a broken one gives numbers as stored: the cells are readable without it."""
    codes: dict[int, str] = {}
    out: list[Optional[DateFormat]] = []
    try:
        for _, name, el, stack in XmlStream(z, part, cancel=cancel, max_bytes=MAX_STYLES_BYTES):
            if name == "numFmt":
                number = _int(el.get("numFmtId"))
                if number is not None:
                    codes[number] = el.get("formatCode", "")
            elif name == "xf" and stack and stack[-1].tag.endswith("cellXfs"):
                number = _int(el.get("numFmtId"))
                code = None if number is None else codes.get(number, BUILTIN.get(number))
                out.append(date_format(code) if code else None)
            elif name == "cellXfs":
                break
    except ExtractionError:
        pass
    return out


def _int(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
