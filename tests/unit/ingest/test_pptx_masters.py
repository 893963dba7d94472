"""What a .pptx slide shows beyond its own shapes, as the newcomer's Apache Tika decks (testPPT_masterText.pptx,
testPPT_masterFooter.pptx) showed it: the footer typed on a slide, and the text a person added to a slide layout or
slide master, read once; the masters' placeholder prompts left out, as for .ppt. The files are made here
(tests/office_files.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from office_files import REL, make_pptx, rels, shape, slide_xml, write_zip
from searchapp.ingest.extractors import extract

PROMPTS = (shape(["Click to edit Master title style"], "title"), shape(["Click to edit Master text styles"], "body"),
           shape(["‹#›"], "sldNum"), shape(["Allotment society"], "ftr"))


def _deck(tmp_path: Path) -> Path:
    """Two slides on one layout; the layout and its master each hold their prompts and one text box of their own;
    the first slide has a footer typed on it and a slide number."""
    path = make_pptx(tmp_path / "deck.pptx", [(["Spring planting"], []), (["Autumn harvest"], [])])
    with zipfile.ZipFile(path) as z:
        parts: dict[str, str | bytes] = {i.filename: z.read(i) for i in z.infolist()}
    for n in (1, 2):  # slide2.xml is the first slide (make_pptx stores them in reverse)
        parts[f"ppt/slides/_rels/slide{n}.xml.rels"] = rels(
            ("rId1", f"{REL}/slideLayout", "../slideLayouts/slideLayout1.xml"))
    parts["ppt/slides/slide2.xml"] = slide_xml(shape(["Spring planting"]), shape(["Allotment society"], "ftr"),
                                               shape(["1"], "sldNum"))
    parts["ppt/slideLayouts/slideLayout1.xml"] = slide_xml(*PROMPTS, shape(["Draft for the committee"]))
    parts["ppt/slideLayouts/_rels/slideLayout1.xml.rels"] = rels(
        ("rId1", f"{REL}/slideMaster", "../slideMasters/slideMaster1.xml"))
    parts["ppt/slideMasters/slideMaster1.xml"] = slide_xml(*PROMPTS, shape(["Est. 1921"]))
    return write_zip(path, parts)


def test_slide_footers_and_the_masters_own_text_are_read_and_their_prompts_left_out(tmp_path):
    doc = extract(_deck(tmp_path))
    assert [doc.text[p.start:p.end] for p in doc.pages] == [
        "Spring planting\nAllotment society\nDraft for the committee\nEst. 1921",  # the layout's once, on page 1
        "Autumn harvest",
    ]
