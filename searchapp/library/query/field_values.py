"""What a query field's value means: a page number, a date as typed (YYYY, YYYY-MM, YYYY-MM-DD, or back from
today: `today`, `yesterday`, `7d`, `2w`, `3m`, `1y`, `last-week`), and how a value is written back into a query."""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from typing import Optional

__all__ = ["MAX_PAGE", "page_number", "full_date", "date_key", "field_value"]

MAX_PAGE = 2**31 - 1  # far past any real document; a page number must fit SQLite's integers
_YEAR, _MONTH = re.compile(r"\d{4}"), re.compile(r"\d{4}-\d{2}")
# Back from today (a newcomer's `after:last-week` for "notes from last week" was "not a date"): N days, weeks,
# months or years ago, as Gmail's newer_than: counts them; "last-week" is the week up to today, not the calendar's.
_AGO = re.compile(r"(\d{1,4})([dwmy])")
_NAMED_AGO = {"today": "0d", "yesterday": "1d", "last-week": "1w", "last-month": "1m", "last-year": "1y"}


def page_number(value: str) -> Optional[int]:
    """1..MAX_PAGE from decimal digits (any script's); None for anything else ("²" is a digit int() refuses)."""
    if not value.isdigit() or len(value) > 12:
        return None
    try:
        page = int(value)
    except ValueError:
        return None
    return page if 1 <= page <= MAX_PAGE else None


def full_date(value: str, today: Optional[_dt.date] = None) -> Optional[str]:
    """YYYY -> YYYY-01-01, YYYY-MM -> YYYY-MM-01, YYYY-MM-DD as is, a span back from `today` (the local date) as
    that day: `7d`, `2w`, `3m`, `1y`, `today`, `yesterday`, `last-week`, `last-month`, `last-year` (None when
    none of these)."""
    if _YEAR.fullmatch(value):
        return value + "-01-01"
    if _MONTH.fullmatch(value):
        return value + "-01"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return value
    ago = _AGO.fullmatch(_NAMED_AGO.get(value.lower(), value.lower()))
    return _back(today or _dt.date.today(), int(ago.group(1)), ago.group(2)) if ago else None


def _back(today: _dt.date, n: int, unit: str) -> Optional[str]:
    """The day `n` days, weeks, months or years before `today`, ISO; a month back from the 31st is the month's last
    day. None before the year 1."""
    months = n if unit == "m" else 12 * n if unit == "y" else 0
    if not months:
        try:
            return (today - _dt.timedelta(days=n * (7 if unit == "w" else 1))).isoformat()
        except OverflowError:
            return None
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    if year < 1:
        return None
    return _dt.date(year, month + 1, min(today.day, calendar.monthrange(year, month + 1)[1])).isoformat()


def date_key(value: str) -> str:
    """What orders dates as typed: the full date, else the value itself."""
    return full_date(value) or value


def field_value(value: str) -> str:
    """A field's value as a query writes it: quoted when empty, holding a space or starting with a quote."""
    return f'"{value}"' if (not value or any(ch.isspace() for ch in value) or value.startswith('"')) else value
