"""RapidOCR's own logger printed a raw, ANSI-coloured "[WARNING] ... The text detection result is empty" line to
stderr for every blank page; its records now go through searchapp's logging, at debug level."""

from __future__ import annotations

import subprocess
import sys

from scan_files import needs_rapidocr

MARK = "@@debug logging on"
# One fresh process (no pytest logging in it) for both halves: a blank page with logging as the app leaves it,
# then, after MARK on stderr, what a person asking for debug output sees: the records, through the app's logger.
SCRIPT = f"""
import logging, sys
from PIL import Image
from searchapp.ingest.ocr.engine import RapidOcr3Engine
engine = RapidOcr3Engine()
blank = Image.new("RGB", (200, 200), "white")
assert engine.recognize(blank) == ""
print({MARK!r}, file=sys.stderr, flush=True)
logging.basicConfig(level=logging.DEBUG, format="%(name)s %(levelname)s %(message)s")
logging.getLogger("PIL").setLevel(logging.WARNING)
for _ in range(2):  # a record for each page, not for the first alone (each read is ~0.5 CPU s)
    assert engine.recognize(blank) == ""
"""


@needs_rapidocr
def test_blank_pages_print_nothing_and_rapidocrs_records_reach_the_apps_log():
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    quiet, debug_out = p.stderr.split(MARK + "\n", 1)
    assert "detection result is empty" not in quiet and "\x1b[" not in quiet, quiet
    debug = [line for line in debug_out.splitlines() if "detection result is empty" in line]
    assert len(debug) == 2 and all(line.startswith("searchapp.ingest.ocr.engine DEBUG RapidOCR: ") for line in debug)
