"""The search filters as options (--in, --type, --after, --before), shared by `search` and `similar`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ..library.query.filters import SearchFilters

__all__ = ["add_filter_options", "filters_from"]


def add_filter_options(s: argparse.ArgumentParser) -> None:
    g = s.add_argument_group("filters (applied before the top k are cut)")
    g.add_argument("--in", dest="within", action="append", default=[], metavar="PATH",
                   help="only files at or below this folder (repeatable)")
    g.add_argument("--type", dest="types", action="append", default=[], metavar="EXT[,EXT]",
                   help="only these file types, by extension (a message: eml, msg; mail: all mail), e.g. pdf,docx")
    g.add_argument("--after", metavar="YYYY-MM-DD",
                   help="only files dated on or after this day (a mail: sent; else modified; local time)")
    g.add_argument("--before", metavar="YYYY-MM-DD",
                   help="only files dated before this day (a mail: sent; else modified; local time)")


def filters_from(args: argparse.Namespace) -> Optional[SearchFilters]:
    """SearchFilters from the flags, or None when none was given (ConfigError, exit 2, on a bad value)."""
    from ..library.query.filters import SearchFilters  # the library loads only when a command runs

    f = SearchFilters.build(getattr(args, "within", []) or [], getattr(args, "types", []) or [],
                            getattr(args, "after", None), getattr(args, "before", None))
    return f if f.active else None
