"""A soft hyphen (U+00AD, "optional hyphen") marks where a word may break: it is no character of the word. Word and
RTF readers drop their own marks for it; PowerPoint keeps U+00AD in its text, so "optionalhyphen" found the .doc,
.docx and .rtf versions of Tika's testOptionalHyphen and not the .ppt or .pptx ones. Every reader's text is cleaned
by encoding.clean_text, which drops it once for all formats."""

from __future__ import annotations

from pathlib import Path

from legacy_office_files import make_ppt
from office_files import make_pptx

from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.encoding import clean_text

WORD = "optional\u00adhyphen"


def test_clean_text_drops_soft_hyphens_with_nuls_and_carriage_returns() -> None:
    assert clean_text(f"an {WORD}\r\nnext\x00line") == "an optionalhyphen\nnextline"


def test_slides_text_files_and_html_agree_with_word(tmp_path: Path) -> None:
    ppt = tmp_path / "deck.ppt"
    ppt.write_bytes(make_ppt([f"An {WORD} here", f"Another {WORD}"]))  # UTF-16 text, then cp1252 (0xAD) text
    pptx = make_pptx(tmp_path / "deck.pptx", [([f"An {WORD} here"], [f"Say {WORD}"])])
    txt = tmp_path / "note.txt"
    txt.write_text(f"An {WORD} here\n", encoding="utf-8")
    html = tmp_path / "page.html"
    html.write_text("<p>An optional&shy;hyphen here</p>", encoding="utf-8")
    for path in (ppt, pptx, txt, html):
        text = extract(path).text
        assert "optionalhyphen" in text and "\u00ad" not in text, (path.name, text)
