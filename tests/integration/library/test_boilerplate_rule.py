"""The rule that tells repeated text from a file's own words (library/search/boilerplate.py): a passage that
matches the query through repeated text alone is folded with the other files that carry it; a note whose own
sentence matches the query (the most of its words) keeps its own row, though it carries the footer that matches
as well."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.library.search.boilerplate import MIN_FILES

FOOTER = "Copyright\n\nThis document has been placed in the public domain."
NOTES = [
    "Generators pause at each yield and resume where they stopped, so a sequence is produced lazily.",
    "A context manager releases its resource in __exit__ even when the block raises an exception.",
    "Type hints document what a function accepts; the interpreter does not check them at run time.",
    "The garbage collector finds reference cycles that reference counting alone never frees.",
    "Keyword-only arguments follow a bare star in the parameter list and must be passed by name.",
    "A frozen dataclass refuses assignment to its fields after construction and can be hashed.",
]


@pytest.fixture
def lib(tmp_path, tiny_library):
    assert len(NOTES) > MIN_FILES  # the footer is repeated text: in more files than the rule asks for
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, note in enumerate(NOTES):
        (docs / f"pep-{i:04d}.txt").write_text(f"PEP {i}\n\n{note}\n\n{FOOTER}\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    return tiny_library


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_passage_matching_by_its_own_words_and_the_footer_keeps_its_row(lib, mode):
    # "generators yield lazily" are the first note's own words; "domain" is in the footer every note carries. The
    # first note matches by both, mostly by its own: it is an ordinary row (common_to 0), and the notes that match
    # only through the footer take one row between them, marked with how many files hold the footer.
    hits = lib.search("generators yield lazily domain", mode=mode, k=10).hits
    rows = [(Path(h.path).name, h.common_to) for h in hits]
    assert ("pep-0000.txt", 0) in rows, rows
    footer_rows = [(name, n) for name, n in rows if n]
    assert len(footer_rows) == 1 and footer_rows[0][1] == len(NOTES), rows
    assert footer_rows[0][0] != "pep-0000.txt"
    # Only through the footer: every note is one folded row.
    hits = lib.search("public domain", mode=mode, k=10).hits
    assert [h.common_to for h in hits] == [len(NOTES)], [(Path(h.path).name, h.common_to) for h in hits]
