"""The library's warnings (a file's text cut at the cap, a reader's complaint) on a line of their own in the
terminal. Without a handler Python's last resort wrote them where the cursor stood: on the progress bar's line,
"…40%|████ | 4/10 [00:03]big.log: text truncated at 10,000,000 characters" (a newcomer). Written through
tqdm.write when a bar may be drawn, which lifts the bar off its line and draws it again below."""

from __future__ import annotations

import logging
import sys

from ..base.terminal import printable

__all__ = ["install", "uninstall"]


class _Lines(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            said = record.getMessage() if record.name.startswith("searchapp") else f"{record.name}: {record.getMessage()}"
            trace = logging.Formatter().formatException(record.exc_info).splitlines() if record.exc_info else []
            line = "\n".join([f"searchapp: warning: {printable(said)}", *map(printable, trace)])
            if "tqdm" in sys.modules:  # a bar may be on the line (cli/progress.py imports tqdm for its first one)
                from tqdm import tqdm

                tqdm.write(line, file=sys.stderr)
            else:
                print(line, file=sys.stderr)
        except Exception:
            self.handleError(record)


def install() -> None:
    """While a progress bar is drawn (cli/progress.py, from its first bar to its close): warnings and above, as
    the last resort shows them, each on a line of its own. Not before (a search a warm process answers imports no
    logging), nor after (the last resort writes a line of its own where no bar is)."""
    root = logging.getLogger()
    if not any(isinstance(h, _Lines) for h in root.handlers):
        root.addHandler(_Lines(logging.WARNING))


def uninstall() -> None:
    root = logging.getLogger()
    for h in [h for h in root.handlers if isinstance(h, _Lines)]:
        root.removeHandler(h)
