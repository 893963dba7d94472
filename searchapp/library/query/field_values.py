"""What a query field's value means: a page number, a date as typed (YYYY, YYYY-MM, YYYY-MM-DD), and how a
value is written back into a query."""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["MAX_PAGE", "page_number", "full_date", "date_key", "field_value"]

MAX_PAGE = 2**31 - 1  # far past any real document; a page number must fit SQLite's integers
_YEAR, _MONTH = re.compile(r"\d{4}"), re.compile(r"\d{4}-\d{2}")


def page_number(value: str) -> Optional[int]:
    """1..MAX_PAGE from decimal digits (any script's); None for anything else ("²" is a digit int() refuses)."""
    if not value.isdigit() or len(value) > 12:
        return None
    try:
        page = int(value)
    except ValueError:
        return None
    return page if 1 <= page <= MAX_PAGE else None


def full_date(value: str) -> Optional[str]:
    """YYYY -> YYYY-01-01, YYYY-MM -> YYYY-MM-01, YYYY-MM-DD as is (None when none of these)."""
    if _YEAR.fullmatch(value):
        return value + "-01-01"
    if _MONTH.fullmatch(value):
        return value + "-01"
    return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else None


def date_key(value: str) -> str:
    """What orders dates as typed: the full date, else the value itself."""
    return full_date(value) or value


def field_value(value: str) -> str:
    """A field's value as a query writes it: quoted when empty, holding a space or starting with a quote."""
    return f'"{value}"' if (not value or any(ch.isspace() for ch in value) or value.startswith('"')) else value
