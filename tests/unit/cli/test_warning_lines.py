"""A library warning during a sync is a line of its own, never glued onto the progress bar's line
(cli/warning_lines.py)."""

from __future__ import annotations

import io
import logging

from searchapp.base.progress import Progress
from searchapp.cli import warning_lines
from searchapp.cli.progress import TerminalProgress


def test_a_warning_while_a_bar_is_drawn_is_a_line_of_its_own(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("COLUMNS", "100")
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [h for h in root.handlers if not isinstance(h, warning_lines._Lines)])
    warning_lines.install()
    warning_lines.install()  # once per process, however many commands it runs
    assert sum(isinstance(h, warning_lines._Lines) for h in root.handlers) == 1
    warning_lines.uninstall()
    assert not any(isinstance(h, warning_lines._Lines) for h in root.handlers)
    bar = TerminalProgress(enabled=True, clock=lambda: 0.0)
    bar(Progress("extracting", 4, 10, "big.log"))  # the first bar installs it
    logging.getLogger("searchapp.ingest.text_caps").warning("%s: %s", "big.log", "text truncated at 10 characters")
    bar(Progress("extracting", 10, 10, "last.txt"))
    bar.close()
    assert not any(isinstance(h, warning_lines._Lines) for h in root.handlers)  # the bar's end removes it
    lines = err.getvalue().replace("\r", "\n").splitlines()
    assert "searchapp: warning: big.log: text truncated at 10 characters" in lines, lines
    assert not [x for x in lines if "truncated" in x and "indexing" in x], lines  # not on the bar's line
