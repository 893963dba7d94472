"""Terminal progress: one bar over files, with the current stage and embedding progress as its postfix."""

from __future__ import annotations

import sys
from typing import Optional

from ..base.progress import Progress

__all__ = ["TerminalProgress"]


class TerminalProgress:
    """A ProgressFn for the CLI; silent unless stderr is a terminal (scripts get clean output)."""

    def __init__(self, enabled: Optional[bool] = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar = None
        self._stage = ""

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if p.stage in ("scanning", "extracting", "rebuilding index"):
            key = p.stage if p.stage != "extracting" else "files"
            if self._stage != key:
                self.close()
                self._stage = key
                self._bar = tqdm(total=p.total, desc=p.stage if key != "files" else "indexing", unit=" files" if key != "rebuilding index" else " vectors",
                                 file=sys.stderr, dynamic_ncols=True, leave=False)
            if self._bar is not None:
                if p.total is not None and self._bar.total != p.total:
                    self._bar.total = p.total
                self._bar.n = p.done
                self._bar.refresh()
        elif self._bar is not None:
            total = f"/{p.total}" if p.total else ""
            self._bar.set_postfix_str(f"{p.stage} {p.done}{total}", refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._stage = ""
