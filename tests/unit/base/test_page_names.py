"""A deck's numbered parts are slides, a workbook's sheets, a mailbox's messages, wherever a hit says where it is."""

from __future__ import annotations

from searchapp.base.page_names import PAGE_WORDS, page_label, pages_label
from searchapp.base.types import Hit
from searchapp.cli.search_output import hit_place
from searchapp.ingest.extractors import registry


def test_the_words_follow_the_readers_suffixes():
    """The table and the readers hold the same suffixes: a reader given a new one gets its word here too."""
    readers = {"slide": ("pptx", "odp"), "sheet": ("xlsx", "ods", "xls"), "message": ("mbox",)}
    for word, names in readers.items():
        suffixes = {s for s, name in registry._BY_SUFFIX.items() if name in names}
        assert suffixes and suffixes == {s for s, w in PAGE_WORDS.items() if w == word}, word


def test_a_hit_says_slide_sheet_or_page():
    assert page_label("/d/Kickoff.PPTX", 34) == "slide 34"
    assert page_label("/d/old.zip//q2/budget.xlsx", 2) == "sheet 2"  # a member's own suffix
    assert page_label("/d/report.pdf", 3) == "page 3"
    assert pages_label("/d/deck.odp", [3, 5]) == "slides 3, 5" and pages_label("/d/a.pdf", [2]) == "page 2"
    assert hit_place(Hit(chunk_id=1, path="/d/deck.pptx", page=21, start=0, end=1, text="t")) == "/d/deck.pptx  (slide 21)"
