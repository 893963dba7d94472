"""Near copies share a row in results by file (library/search/near_copies.py, decision 0198): a document saved
again with a sentence edited is one row, the place it frees filled by the next file; two different documents that
share a licence paragraph, and a version that changed a lot, keep their own rows."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from searchapp.cli.search_output import print_hits

pytestmark = pytest.mark.engines("sqlite")

REPORT = [
    "The heat pump was installed in the cellar in March and replaced the old oil boiler.",
    "Its coefficient of performance stayed above three during the cold weeks of January.",
    "The radiators in the upper rooms were exchanged for larger ones to run at lower water temperatures.",
    "A buffer tank of 200 litres keeps the compressor from starting too often.",
    "The electricity bill rose by a third while the oil deliveries stopped altogether.",
    "Noise from the outdoor unit is lower than the neighbours feared and stays under 40 decibels.",
    "The installer recommends a service every second year and a check of the refrigerant pressure.",
    "Hot water is heated once a day to sixty degrees to keep legionella away.",
]
# one sentence reworded around the same number: still one document
EDITED = REPORT[:5] + ["Noise from the outdoor unit is lower than the neighbours feared: under 40 decibels."] + REPORT[6:]
REWRITTEN = REPORT[:2] + [
    "In the second winter the heat pump ran on a new tariff that is cheaper at night.",
    "The buffer tank was removed because the controller now modulates the compressor.",
    "Solar panels on the garage roof cover a quarter of the yearly electricity use.",
    "The outdoor unit was moved behind the shed after the hedge grew into it.",
    "A smart thermostat lowers the flow temperature whenever the rooms are warm enough.",
    "Hot water now comes from a separate heat pump boiler in the laundry room.",
]
LICENCE = ("Permission is hereby granted free of charge to any person obtaining a copy of this software to deal in "
           "the software without restriction.")
PARSER = ["The parser reads each page's text layer and keeps the reading order of its columns.",
          "A page without any text is sent to optical character recognition before indexing.",
          "Tables are read row by row and each cell is separated from the next by a vertical bar.",
          "Footnotes are moved to the end of the page so they do not split a sentence in two."]
RELEASE = ["Before a release the whole test suite runs on every supported operating system.",
           "The changelog gets one line for each change a user can notice in the program.",
           "The commit is tagged with the version number and the wheel is uploaded afterwards.",
           "A short announcement goes to the mailing list with the most important changes."]
OTHERS = {"boiler.md": "# Old boiler\n\nThe oil boiler in the cellar needed a new burner nozzle every winter.\n",
          "garden.md": "# Garden\n\nThe heat of the summer dried the lawn; the pump of the well ran every evening.\n"}


def _doc(title: str, sentences: list[str], first: str = "") -> str:
    return f"# {title}\n\n" + (first + "\n\n" if first else "") + "\n\n".join(sentences) + "\n"


@pytest.fixture
def lib(tmp_path, make_config, tiny_encoder):
    """Passages of a sentence or two (48 word pieces), so the licence is a passage of its own in both files."""
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    files = {"heat-pump.md": _doc("Heat pump report", REPORT), "heat-pump (edited).md": _doc("Heat pump report", EDITED),
             "heat-pump-2025.md": _doc("Heat pump, second winter", REWRITTEN),
             "parser-notes.md": _doc("Parser notes", PARSER, LICENCE),
             "release-checklist.md": _doc("Release checklist", RELEASE, LICENCE), **OTHERS}
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    with Library(make_config(models={"reranker": ""}, chunking={"max_tokens": 48, "overlap": 0}),
                 encoder=tiny_encoder) as library:
        library.add_folder(docs)
        yield library


def _names(hits):
    return [h.path.rsplit("/", 1)[-1] for h in hits]


def _search(lib, query, k, fold=True):
    saved = lib.config
    lib.config = dataclasses.replace(saved, search=dataclasses.replace(saved.search, fold_near_copies=fold))
    try:
        return lib.search(query, mode="lexical", k=k, rerank=False)
    finally:
        lib.config = saved


QUERY = "heat pump outdoor unit noise decibels compressor cellar"


def test_a_near_copy_shares_the_row_and_the_next_file_takes_its_place(lib):
    every = _names(_search(lib, QUERY, 10, fold=False).hits)
    assert {"heat-pump.md", "heat-pump (edited).md"} <= set(every)
    res = _search(lib, QUERY, 3)
    rows = _names(res.hits)
    assert len(rows) == 3 and len(set(rows) & {"heat-pump.md", "heat-pump (edited).md"}) == 1, rows
    kept = next(h for h in res.hits if h.near_copies)
    assert _names(kept.near_copies) == list({"heat-pump.md", "heat-pump (edited).md"} - {_names([kept])[0]})
    assert 0.8 <= kept.near_copies[0].similarity < 1.0
    # the freed place went to the next file of the unfolded list, and the version that changed a lot is no copy
    assert rows == [n for n in every if n not in _names(kept.near_copies)][:3]
    assert "heat-pump-2025.md" in _names(_search(lib, QUERY, 10).hits)
    out = io.StringIO()
    print_hits(res, color=False, out=out)
    assert "+1 near copy: " in out.getvalue() and "% same text)" in out.getvalue()
    near = kept.to_json()["near_copies"]
    assert [n["key"] for n in near] == [kept.near_copies[0].path] and "near copy" in json.dumps(near)


def test_the_row_goes_to_a_near_copy_that_can_be_opened(lib, tmp_path, monkeypatch):
    """The best-ranked file of a document is gone from the disk (an unplugged drive, a folder renamed away) and its
    near copy is here: the row shows the one that opens, the other listed under it. A row past k, never shown, is
    not asked of the disk (a stat a file, on a drive that may hang)."""
    from searchapp.library.search import availability

    first = _names(_search(lib, QUERY, 3).hits)
    gone = next(n for n in first if n in {"heat-pump.md", "heat-pump (edited).md"})
    (tmp_path / "docs" / gone).unlink()  # still indexed: no sync since
    hits = _search(lib, QUERY, 3).hits
    row = next(h for h in hits if _names([h])[0] in {"heat-pump.md", "heat-pump (edited).md"})
    assert _names([row]) != [gone] and _names(row.near_copies) == [gone], [(h.path, h.near_copies) for h in hits]
    assert 0.8 <= row.near_copies[0].similarity < 1.0 and hits.index(row) == first.index(gone)  # its place kept
    asked: list[str] = []
    stat = availability._os_stat
    monkeypatch.setattr(availability, "_os_stat", lambda p: (asked.append(p.name), stat(p))[1])
    shown = _names(_search(lib, "oil boiler burner nozzle", 1).hits)
    assert "heat-pump" not in shown[0] and asked == shown, (shown, asked)  # the document's row is past k


def test_a_near_copys_exact_copy_is_listed_with_it(lib, tmp_path):
    """The exact copy leaves the candidates for its twin's row (folding.py) before that row folds as a near copy:
    listed nowhere, it was a file the search found and no row showed."""
    for name, sentences in (("heat-pump copy.md", REPORT), ("heat-pump (edited) copy.md", EDITED)):  # whichever folds
        (tmp_path / "docs" / name).write_text(_doc("Heat pump report", sentences), encoding="utf-8")
    lib.sync()
    hits = _search(lib, QUERY, 3).hits
    shown = [n for h in hits for n in _names([h]) + _names(h.near_copies) + [p.rsplit("/", 1)[-1] for p in h.copies]]
    assert {"heat-pump.md", "heat-pump copy.md", "heat-pump (edited).md", "heat-pump (edited) copy.md"} <= set(shown)
    assert len(shown) == len(set(shown)), shown  # each once


def test_whole_texts_are_compared_within_a_budget(lib, monkeypatch):
    """A gate open for every pair compared each row with all above it (quadratic in the rows): past COMPARED_MAX
    comparisons the rows stay their own, as with the fold off."""
    from searchapp.library.search import near_copies

    monkeypatch.setattr(near_copies, "COMPARED_MAX", 0)
    assert _names(_search(lib, QUERY, 3).hits) == _names(_search(lib, QUERY, 3, fold=False).hits)
    monkeypatch.setattr(near_copies, "COMPARED_MAX", 1)
    assert any(h.near_copies for h in _search(lib, QUERY, 3).hits)  # the one pair there is: compared, folded


def test_a_near_copy_past_the_pool_is_listed_under_its_shown_row(lib, monkeypatch):
    """Past the first POOL_PER_K k rows a row is compared with the first k rows kept: a near copy of a shown row,
    ranked below the pool, is listed under it (it was nowhere)."""
    from searchapp.library.search import near_copies

    first, second = _names(_search(lib, QUERY, 2, fold=False).hits)
    assert {first, second} == {"heat-pump.md", "heat-pump (edited).md"}
    monkeypatch.setattr(near_copies, "POOL_MIN", 1)
    monkeypatch.setattr(near_copies, "POOL_PER_K", 1)  # k = 1: the pool is the first row, the copy is past it
    hits = _search(lib, QUERY, 1).hits
    assert _names(hits) == [first] and _names(hits[0].near_copies) == [second], [(h.path, h.near_copies) for h in hits]


def test_a_longer_edition_read_only_in_part_is_no_copy(lib, tmp_path, monkeypatch):
    """A file is compared by its first TEXT_PASSAGES passages: an edition that adds as much again after them read
    as the same text (a book's 400 passages and 200 more chapters); their passage counts tell them apart."""
    from searchapp.library.search import near_copies

    longer = _doc("Heat pump report", REPORT + REWRITTEN + PARSER + RELEASE)
    (tmp_path / "docs" / "heat-pump (longer).md").write_text(longer, encoding="utf-8")
    lib.sync()
    monkeypatch.setattr(near_copies, "TEXT_PASSAGES", 3)  # the first three passages: one text in both
    hits = _search(lib, QUERY, 10).hits
    longer_row = [h for h in hits if _names([h]) == ["heat-pump (longer).md"]]
    folded = [n for h in hits for n in _names(h.near_copies)]
    assert longer_row and "heat-pump (longer).md" not in folded, [(h.path, h.near_copies) for h in hits]
    assert "heat-pump (edited).md" in folded or "heat-pump.md" in folded  # the real near copy still folds


def test_a_shared_licence_does_not_make_two_documents_one(lib, monkeypatch):
    """Both files are found by the licence passage, identical in both: the gate opens, the whole texts differ (and
    their numbers, asked of near copies alone, are not read)."""
    from searchapp.library.search import near_copies

    placed = []
    monkeypatch.setattr(near_copies, "numbers", lambda text: placed.append(text) or set())
    hits = _search(lib, "permission granted free of charge to deal in the software without restriction", 5).hits
    assert {"parser-notes.md", "release-checklist.md"} <= set(_names(hits))
    assert not any(h.near_copies for h in hits), [(h.path, h.near_copies) for h in hits]
    assert not placed, placed


QUOTE = ["Quote for the renovation of the bathroom on the first floor of the house in the garden street.",
         "The work covers removing the old tiles, new pipes for the shower and the basin, and a heated floor.",
         "The total price is 14,200 EUR including the materials, the labour and the removal of the rubble.",
         "The work starts two weeks after the order is signed and takes about three weeks in all.",
         "This offer is valid for 60 days from the date of this letter and is sent to you by post."]


def test_a_changed_number_is_another_document(lib, tmp_path):
    """Two quotes, 14,200 EUR and 14,300 EUR, over 80% the same text: a person needs both rows. The quote's PDF (its
    page number printed, which the DOCX has not) and the DOCX of it hold the same numbers: one document."""
    from corpus import write_docx, write_pdf
    from searchapp.library.search.near_copies import NEAR_COPY, number_changed, numbers, resemblance, shingles

    docs = tmp_path / "docs"
    write_pdf(docs / "quote.pdf", [" ".join(QUOTE) + "\n1"])
    write_docx(docs / "quote.docx", QUOTE)
    revised = [s.replace("14,200", "14,300") for s in QUOTE]
    (docs / "quote (revised).md").write_text("\n\n".join(revised) + "\n", encoding="utf-8")
    lib.sync()
    assert resemblance(shingles(" ".join(QUOTE)), shingles(" ".join(revised))) >= NEAR_COPY  # by the text alone: one
    assert numbers("page 1: 14,200 m² floor") == {("page", "1", "14"), ("1", "14", "200"), ("14", "200", "m2"),
                                                  ("200", "m2", "floor"), *(("page", w, "floor") for w in
                                                                            ("1", "14", "200", "m2"))}
    # by place: a changed amount whose new value the text holds elsewhere is still a change, a page number is none
    longer = "Table 300 lists the rooms. The total price is 14,{} EUR including the materials."
    assert number_changed(numbers(longer.format(200)), numbers(longer.format(300)))
    # a number written in parts whose every part changed: no part kept its neighbours (an amount, a date)
    price = "The total price is {} EUR including the materials."
    assert number_changed(numbers(price.format("1,250.00")), numbers(price.format("1,380.50")))
    assert number_changed(numbers("signed on 3.12.2026 in Bonn"), numbers("signed on 4.11.2026 in Bonn"))
    # a page number printed after an amount that ends a page adds a part on one side only: no change
    assert not number_changed(numbers("the total is 14,200\n3\nThe work"), numbers("the total is 14,200 The work"))
    assert not number_changed(numbers("the rubble.\n2\nThe work starts"), numbers("the rubble. The work starts"))
    hits = _search(lib, "bathroom renovation quote price tiles heated floor", 5).hits
    rows = {_names([h])[0]: _names(h.near_copies) for h in hits}
    assert "quote (revised).md" in rows, rows  # its own row, not folded under the quote it revises
    assert not rows["quote (revised).md"] and {"quote.pdf", "quote.docx"} in (
        {n, *rows[n]} for n in rows), rows  # the PDF and its DOCX: one row, the other listed under it


def test_a_listing_by_date_folds_a_near_copy(lib):
    """A query of only fields lists files newest first: the edited copy shares the row of its document's newer
    file, as in a ranked search (the library's 7 files, 6 documents); with the fold off both are rows."""
    pair = {"heat-pump.md", "heat-pump (edited).md"}
    assert pair <= set(_names(_search(lib, "type:md", 7, fold=False).hits))
    rows = _search(lib, "type:md", 7).hits
    assert len(rows) == 6 and len(pair & set(_names(rows))) == 1, _names(rows)
    kept = next(h for h in rows if _names([h])[0] in pair)
    assert _names(kept.near_copies) == list(pair - set(_names([kept])))
    assert [h.ranks.final for h in rows] == [1, 2, 3, 4, 5, 6]


def test_similar_files_says_a_near_copy_once_not_as_a_row(lib, tmp_path):
    """Similar files of the heat-pump report: its edited copy is the same document, said apart ("near copies of this
    file"), not the first similar file, and two similar files that are near copies of each other share a row; with
    the fold off each is a row again."""
    import argparse

    from searchapp.cli.commands.discover import print_similar

    second = REWRITTEN[:3] + ["The buffer tank was taken out because the controller now modulates the compressor."]
    (tmp_path / "docs" / "heat-pump-2025 (copy).md").write_text(
        _doc("Heat pump, second winter", second + REWRITTEN[4:]), encoding="utf-8")
    lib.sync()
    source = str(tmp_path / "docs" / "heat-pump.md")
    res = lib.similar(source, k=5)
    rows = _names(res.hits)
    assert "heat-pump (edited).md" not in rows and rows, rows
    pair = {"heat-pump-2025.md", "heat-pump-2025 (copy).md"}
    shared = [h for h, n in zip(res.hits, rows, strict=True) if {n, *_names(h.near_copies)} == pair]
    assert len(shared) == 1, [(h.path, h.near_copies) for h in res.hits]
    assert [h.ranks.final for h in res.hits] == list(range(1, len(rows) + 1))
    assert _names(res.near_copies) == ["heat-pump (edited).md"] and 0.8 <= res.near_copies[0].similarity < 1.0
    out = io.StringIO()
    print_similar(argparse.Namespace(json=False), res, out)
    assert "near copies of this file: " in out.getvalue() and "(edited).md (" in out.getvalue()
    assert res.to_json()["near_copies"][0]["key"] == res.near_copies[0].path
    saved = lib.config
    lib.config = dataclasses.replace(saved, search=dataclasses.replace(saved.search, fold_near_copies=False))
    try:
        assert {"heat-pump (edited).md", *pair} <= set(_names(lib.similar(source, k=5).hits))
    finally:
        lib.config = saved


def test_the_windows_more_column_lists_near_copies_as_text():
    """The results list's More column and its tooltip (the window reads them from the hit; plain text escaped)."""
    pytest.importorskip("PySide6")
    from searchapp.base.types import Hit, NearCopy
    from searchapp.gui.results_model import more_text, more_tooltip

    hit = Hit(chunk_id=1, path="/docs/report.pdf", page=None, start=0, end=0, text="",
              near_copies=[NearCopy("/docs/<b>report</b>.docx", 0.95)])
    assert more_text(hit) == "+1 near copy"
    tip = more_tooltip(hit)
    assert "Near copies" in tip and "/docs/&lt;b&gt;report&lt;/b&gt;.docx (95% same text)" in tip
