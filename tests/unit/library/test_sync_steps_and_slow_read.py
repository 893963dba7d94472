"""What a sync's progress tells while it runs: which step of how many ("Step 2 of 3", library/sync/steps.py), and
the file it has been reading for long ("reading big-scan.pdf, 40 s…", library/sync/slow_read.py). A newcomer
watching "Reading files" could not tell how much was still ahead, and stopped a sync that sat on a 400-page scan
for minutes, thinking it hung. Pure: the reports are made here, the clock is the test's (no thread, no timing)."""

from __future__ import annotations

import pytest

from searchapp.base.progress import Progress, step_text
from searchapp.library.sync.slow_read import SlowRead
from searchapp.library.sync.steps import Steps


@pytest.mark.parametrize("embed, ocr_may, stages, steps", [
    # two folders, each scanned and read (named beside: "Pictures, 2 of 4"); scans found while reading: the count,
    # open until the reading ends ("of 3 or 4": it read "of 3", then "of 4", as a new job to a newcomer), is exact
    # from then on; the meaning of OCR's text is the OCR step's, never a step back
    (True, True, ["scanning", "extracting", "scanning", "extracting", "READ+OCR", "searchable", "loading",
                  "embedding", "ocr", "embedding", "saving"],
     ["1 of 3 or 4", "2 of 3 or 4", "1 of 3 or 4", "2 of 3 or 4", "3 of 4", "3 of 4", "3 of 4", "4 of 4", "4 of 4",
      "4 of 4"]),
    (True, True, ["scanning", "extracting", "READ", "embedding", "saving"],  # no scans: no OCR step
     ["1 of 3 or 4", "2 of 3 or 4", "3 of 3", "3 of 3"]),
    (True, False, ["scanning", "extracting", "READ", "embedding"], ["1 of 3", "2 of 3", "3 of 3"]),  # OCR off
    (False, True, ["scanning", "extracting", "READ", "saving"], ["1 of 2 or 3", "2 of 2 or 3", "2 of 2"]),  # words only
])
def test_each_report_says_its_step_of_how_many(embed, ocr_may, stages, steps):
    numbered = Steps(embed, ocr=False, ocr_may=ocr_may)
    told = []
    for stage in stages:
        if stage.startswith("READ"):
            numbered.read(ocr=stage.endswith("OCR"))
            continue
        told.append(step_text(numbered.number(Progress(stage, 1, 10))).removeprefix("Step "))
    assert told == steps
    # an 80-column terminal's bar says the open count in short too
    reading = Steps(True, ocr=False, ocr_may=True).number(Progress("extracting", 1, 10))
    assert step_text(reading, short=True) == "[2/3-4]"


def test_a_file_read_for_long_is_named_with_its_seconds_until_the_next_report():
    now = [0.0]
    told: list[Progress] = []
    slow = SlowRead(told.append, clock=lambda: now[0], after_s=5.0, ticking=False)
    slow(Progress("extracting", 7, 3000, "big-scan.pdf", step=2, steps=3))
    now[0] = 4.0
    slow.tick()
    assert len(told) == 1  # a few seconds are no news: most files take that long to open
    now[0] = 40.0
    slow.tick()
    assert told[-1] == Progress("extracting", 7, 3000, "big-scan.pdf", step=2, steps=3,
                                slow="reading big-scan.pdf, 40 s…")  # the same report, the file named
    slow(Progress("extracting", 8, 3000, "next.txt"))
    now[0] = 41.0
    slow.tick()
    assert told[-1].slow == ""  # the next file began: nothing more of the slow one
    slow(Progress("embedding", 0, 500))  # not a file being read: however long it stands, not named
    now[0] = 400.0
    slow.tick()
    assert len(told) == 4
    slow(Progress("ocr", 0, 3, "scan.png"))
    now[0] = 525.0
    slow.tick()
    assert told[-1].slow == "reading scan.png by OCR, 2 min 05 s…"
