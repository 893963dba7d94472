"""RapidOCR's own logger printed a raw, ANSI-coloured "[WARNING] ... The text detection result is empty" line to
stderr for every blank page; its records now go through searchapp's logging, at debug level."""

from __future__ import annotations

import subprocess
import sys

from scan_files import needs_rapidocr

SCRIPT = """
import logging, sys
from PIL import Image
from searchapp.ingest.ocr.engine import RapidOcr3Engine
if sys.argv[1] == "debug":  # what a person asking for debug output sees: the record, through the app's logger
    logging.basicConfig(level=logging.DEBUG, format="%(name)s %(levelname)s %(message)s")
    for name in ("PIL",):
        logging.getLogger(name).setLevel(logging.WARNING)
engine = RapidOcr3Engine()
for _ in range(3):
    assert engine.recognize(Image.new("RGB", (400, 300), "white")) == ""
"""


def _stderr(mode: str) -> str:
    p = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return p.stderr


@needs_rapidocr
def test_blank_pages_print_nothing_and_rapidocrs_records_reach_the_apps_log():
    quiet = _stderr("default")
    assert "detection result is empty" not in quiet and "\x1b[" not in quiet, quiet
    debug = [line for line in _stderr("debug").splitlines() if "detection result is empty" in line]
    assert len(debug) == 3 and all(line.startswith("searchapp.ingest.ocr.engine DEBUG RapidOCR: ") for line in debug)
