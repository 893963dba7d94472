"""What a search's filters say: a folder subtree, file types and a modified-date range, read from user input
(the CLI's flags, the window's filter bar, a query's in:/type:/after:/before: fields). Applying them is search/'s
job (search/filter_scope.py); the query language reads them here, below search/.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from ...base.errors import ConfigError
from ...base.stored_names import stored_name
from ...store.scope import files_where
from .field_values import full_date

__all__ = ["SearchFilters", "TYPE_GROUPS", "parse_date", "parse_types", "types_meant"]

_TYPE = re.compile(r"^[a-z0-9]{1,16}$")
# A type that names several (`type:mail`): it stands for each of them, and for files its own extension names. A
# message is of its reader's type wherever it is (store/scope.py), so "eml" holds an mbox's messages too.
TYPE_GROUPS: dict[str, tuple[str, ...]] = {"mail": ("eml", "msg", "mbox")}


# Modification times are stored in int64 nanoseconds (1677-09-21 .. 2262-04-11): a day outside this range
# cannot be compared in SQL (9999-12-31 overflowed the query), so it is refused as a bad value.
FIRST_DAY, LAST_DAY = _dt.date(1678, 1, 1), _dt.date(2261, 12, 31)


def parse_date(text: str, what: str) -> float:
    """A date as the query's fields read it (YYYY-MM-DD, YYYY-MM, YYYY, or back from today: 7d, 2w, 3m, 1y,
    yesterday; field_values.full_date) -> the start of that day in local time, as seconds since the epoch
    (ConfigError if bad). The one parser of the CLI's --after/--before, the window's filter bar and the fields."""
    try:
        day = _dt.date.fromisoformat(full_date(text.strip()) or "")
    except (ValueError, AttributeError):
        raise ConfigError(f"{what} must be a date like 2026-01-31, 2026-01, 2026 or 7d (days back; w, m, y), "
                          f"got {text!r}") from None
    out_of_range = ConfigError(f"{what} {day.isoformat()} is out of range: dates from {FIRST_DAY.isoformat()} "
                               f"to {LAST_DAY.isoformat()} can be compared with file times")
    if not FIRST_DAY <= day <= LAST_DAY:
        raise out_of_range
    try:
        return time.mktime((day.year, day.month, day.day, 0, 0, 0, 0, 0, -1))
    except (OverflowError, ValueError):  # a platform whose time_t is narrower
        raise out_of_range from None


def parse_types(values: Iterable[str]) -> tuple[str, ...]:
    """"pdf,docx" / ".PDF" -> ("pdf", "docx"): file-name extensions, lower case, no dot."""
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            t = part.strip().lower().lstrip(".")
            if not t:
                continue
            if not _TYPE.match(t):
                raise ConfigError(f"--type wants file extensions like pdf,docx; got {part.strip()!r}")
            out.append(t)
    return tuple(dict.fromkeys(out))


def types_meant(types: Iterable[str]) -> tuple[str, ...]:
    """`types` with each group (TYPE_GROUPS) followed by the types it names: what `type:` compares."""
    return tuple(dict.fromkeys(m for t in types for m in (t, *TYPE_GROUPS.get(t, ()))))


@dataclass(frozen=True)
class SearchFilters:
    """Which files a search may return. Empty fields do not restrict; all given fields must hold."""

    folders: tuple[str, ...] = ()  # absolute paths; a file at or below any of them
    types: tuple[str, ...] = ()  # extensions without the dot, lower case, or groups of them (TYPE_GROUPS)
    after: Optional[float] = None  # modified at or after (seconds since the epoch)
    before: Optional[float] = None  # modified strictly before

    @classmethod
    def build(cls, folders: Sequence[str] = (), types: Iterable[str] = (), after: Optional[str] = None,
              before: Optional[str] = None) -> "SearchFilters":
        """From user input (CLI flags, the GUI's filter bar); dates are YYYY-MM-DD in local time."""
        # stored as the library stores names: a folder typed whose name is not UTF-8 (decision 0179)
        folders = tuple(stored_name(os.path.abspath(os.path.expanduser(f))) for f in folders if f)
        a = parse_date(after, "--after") if after else None
        b = parse_date(before, "--before") if before else None
        if a is not None and b is not None and a >= b:
            raise ConfigError(f"--after {after} is not before --before {before}: no file can match")
        return cls(folders, parse_types(types), a, b)

    @property
    def active(self) -> bool:
        return bool(self.folders or self.types or self.after is not None or self.before is not None)

    def where(self) -> tuple[str, list[Any]]:
        """A WHERE fragment over `files f` and its parameters (store/scope.py writes it)."""
        return files_where(self.folders, types_meant(self.types), None if self.after is None else int(self.after * 1e9),
                           None if self.before is None else int(self.before * 1e9))

    def to_json(self) -> dict[str, Any]:
        day: Callable[[Optional[float]], Optional[str]] = lambda t: None if t is None else time.strftime("%Y-%m-%d", time.localtime(t))  # noqa: E731
        return {"in": list(self.folders), "type": list(self.types), "after": day(self.after), "before": day(self.before)}
