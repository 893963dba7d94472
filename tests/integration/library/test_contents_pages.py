"""A contents page is never a file's shown passage while the file has another (library/search/contents_pages.py):
"how do I control which rows a user can see in DB2" showed redp5110_sampled.pdf's page 2, its table of contents,
where its pages 7 and 10 answer. Its snippet showed dot leaders; a snippet shows each run of them as one " … "."""

from __future__ import annotations

import pytest

from searchapp.library import Library
from searchapp.library.search.contents_pages import collapse_leaders, is_contents
from searchapp.library.search.snippet import best_snippet

# The contents page of redp5110_sampled.pdf (docling's test PDF) as pypdf reads it, a chunk cut inside its dots
TOC = """Contents
Notices  . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . vii
Chapter 1.  Securing and protecting IBM DB2 data  . . . . . . . . . . . . . . . . . . . . 1
1.3  DB2 for i security controls . . . . . . . . . . . . . . . . . . . . . . . . . . . 3
1.3.1  Existing row and column control . . . . . . . . . . . . . . . . . . . . . . 4
1.3.2  New controls: Row and Column Access Control. . . . . . . . . . . . . . . . . 5
3.1.1  Row permission and column mask definitions  . . . . . . . . . . . . . . . . 14
3.6.4  Defining and creating row permissions . . . . . . . . . . . . . . . . . . . . 25
3.6.5  Defining and creating column masks  . . . . . . . . . . . . . . . . . . . . 26
3.6.6  Activating RCAC . . . . . . . . . . ."""
# Lists that use leader dots for their own content: a schedule of controlled substances (21 CFR 1308 in tika's
# testPDF_bad_page_303226.pdf: a code for each, going up here) and a book's index (IRS Publication 15's).
SCHEDULE = """(39) Norlevorphanol ....................................................... 9634
(40) Normethadone ........................................................ 9635
(41) Norpipanone ...........................................................
9636
(44) Phenadoxone ......................................................... 9637
(45) Phenampromide ..................................................... 9638"""
INDEX = """Calendar .................................... 8
Certain foreign persons treated as American employers .................. 24
Change of address ............................ 6
Delivery services, private ................. 6
Depositing taxes: Penalties ................................ 28"""
BODY = ("Many businesses are trying to limit data access to a need-to-know basis. Row permissions decide which rows "
        "of a table a user can see: a permission is a search condition over the row, checked for every query. "
        "Column masks decide what a user sees of a column's value in the rows that user may see. Together they are "
        "Row and Column Access Control, enabled on a table by its security administrator. ")


def test_a_contents_page_is_told_from_lists_whose_dots_are_their_content():
    assert is_contents(TOC)
    # every form of leaders the rule reads: ellipses spaced, dots spaced by no-break spaces (a reviewer)
    spaced = "\n".join(f"Chapter {i} on harbours … … … … … {3 * i}" for i in range(1, 6))
    no_break = "\n".join(f"Chapter {i} on harbours .\u00a0.\u00a0.\u00a0.\u00a0. {3 * i}" for i in range(1, 6))
    assert is_contents(spaced) and is_contents(no_break)
    assert not is_contents(SCHEDULE)  # its numbers are codes of four digits, not pages
    assert not is_contents(INDEX)  # its pages go up and down
    assert not is_contents("Wait.... what? The end.... Row permissions.... 3\nmore .... 4\nand .... 5\n" + BODY)
    # flattened onto one line (its line breaks lost), or written as a Markdown table (docling's export of the same
    # page: "| Notices . . . . | . vii |"): the same page, the same rule; the lists above flattened are still lists
    assert is_contents(" ".join(TOC.splitlines()))
    table = "## Contents\n\n| Notices . . . . . . . . | . vii |\n| - | - |\n" + "\n".join(
        f"| {ln.rsplit(' ', 1)[0]} | {ln.rsplit(' ', 1)[1]} |" for ln in TOC.splitlines()[2:-1])
    assert is_contents(table), table
    assert not any(is_contents(" ".join(t.splitlines())) for t in (SCHEDULE, INDEX))
    assert collapse_leaders("Access Control. . . . . . . 5 Chapter 2 ...... 7 … . . . . 9") == \
        "Access Control … 5 Chapter 2 … 7 … 9"
    snip = best_snippet(TOC, "row permissions column masks").text
    assert "Defining and creating row permissions … 25" in snip and ". . ." not in snip, snip


@pytest.mark.engines("sqlite")  # the pipeline's rule, the same on both engines
def test_a_file_is_shown_by_its_own_passage_not_its_contents_page(make_config, tiny_encoder, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rcac-manual.txt").write_text(TOC + "\n\n" + BODY * 6, encoding="utf-8")
    (docs / "contents-only.txt").write_text(TOC.replace("IBM DB2", "a ledger"), encoding="utf-8")
    (docs / "recipe.txt").write_text("Knead the dough, let it rise and bake it for twenty minutes.", encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        assert any(is_contents(lib.reader().chunks([c]).popitem()[1].text)
                   for c in range(1, lib.passage_count() + 1))  # the manual's contents page is a passage of its own
        hits = lib.search("defining and creating row permissions column masks", mode="lexical", k=5).hits
    by_name = {h.path.rsplit("/", 1)[1]: h for h in hits}
    manual = by_name["rcac-manual.txt"]
    assert not is_contents(manual.text) and "Row permissions decide" in manual.text, manual.text
    assert not any(is_contents(m.text) for m in manual.more)  # it left the file's signals, not only its row
    assert is_contents(by_name["contents-only.txt"].text)  # all a file has to show: it keeps it


def test_a_long_run_of_dots_is_read_once_not_from_each_of_its_dots():
    """A flattened contents line's entries were cut by a leader run tried from every dot of a run and backtracked:
    a passage of 1,000 dots took 0.2 s at every search it was a candidate of, 30,000 two minutes (a form's fill-in
    lines read onto one). A hang guard, not a speed test: the child has 120 s for what takes well under one."""
    import subprocess
    import sys

    code = ("from searchapp.library.search.contents_pages import is_contents as c\n"
            "n = 100_000\n"
            "assert not any(c(t) for t in ('. ' * n, '.' * n, '… ' * n, 'Name ' + '.' * n + ' Date ' + '.' * n))\n"
            "assert c(' '.join(f'Part {i} ' + '. ' * n + str(i) for i in range(1, 6)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
