"""RTF as a word processor shows it: the text, not the markup (a newcomer's RTF files were indexed as `{\\rtf1…`
code, or skipped as "not prose"). Each sample is written here the way Word, WordPad, TextEdit or LibreOffice
write that construct."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.base.errors import ExtractionError
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.rtf import MAX_DEPTH, rtf_text

HEADER = rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman\fcharset0 Times New Roman;}"


def text_of(body: bytes, fonts: bytes = b"") -> str:
    return rtf_text(HEADER + fonts + b"}" + body + b"}")[0]


def test_paragraphs_escapes_and_the_tables_left_out():
    rtf = (rb"{\colortbl;\red0\green0\blue0;}{\stylesheet{\s1 Heading 1;}}"
           rb"\pard\plain The caf\'e9 opens at 9\par "  # a control word ends at a space, which it takes
           rb"Tabs\tab and \ldblquote quotes\rdblquote , a non\~breaking space and \{braces\}.\par")
    assert text_of(rtf) == ("The café opens at 9\nTabs\tand \u201cquotes\u201d, a non\u00a0breaking space and "
                            "{braces}.\n")


def test_unicode_escapes_skip_their_fallback_and_join_surrogates():
    assert text_of(rb"\uc1\u8364?uro \u-10240?\u-8376?.") == "\u20acuro \U00010348."  # 𐍈: a surrogate pair
    assert text_of(rb"{\uc2\u8364\'80\'80} done") == "\u20ac done"  # \uc2: two fallback bytes


def test_the_current_fonts_charset_decodes_its_bytes():
    fonts = rb"{\f1\fnil\fcharset204 Arial Cyr;}{\f2\fnil\fcharset128 MS Gothic;}"
    body = rb"{\f1 \'cf\'f0\'e8\'e2\'e5\'f2}, {\f2 \'93\'fa\'96\'7b}, {\f0 caf\'e9}"
    assert text_of(body, fonts) == "Привет, 日本, café"


def test_ignorable_destinations_fields_pictures_and_binary_data():
    body = (rb"{\*\generator Riched20 10.0;}{\*\unknownthing hidden words}"
            rb"See {\field{\*\fldinst HYPERLINK \"http://example.com/secret\"}{\fldrslt the site}}. "
            rb"{\pict\pngblip 89504e470d0a1a0a0000000d49484452}"
            rb"{\object\objemb{\*\objdata 0105000002000000}}"
            rb"Raw {\bin6 \}{}ab} bytes.")
    assert text_of(body) == "See the site. Raw  bytes."


def test_a_star_inside_a_group_is_no_destination():
    # LibreOffice writes `\*\cs7` in the middle of a run's group: its text is the document's (Tika's test file)
    body = rb"{\loch\f2\fs24\i0\b0\*\cs7\cf0\loch The quick brown fox}\par"
    assert text_of(body) == "The quick brown fox\n"


def test_the_title_prefers_the_unicode_version_and_junk_after_the_end_is_ignored():
    data = (HEADER + rb"}{\info{\upr{\title ???}{\*\ud{\title \u12478?\u12523?\u12466?}}}{\author Ann}}"
            rb"Body text\par}" + b"\xef\xbf\xbd8\x11$DM junk after the last brace")
    text, title = rtf_text(data)
    assert (text, title) == ("Body text\n", "ゾルゲ")


def test_table_cells_and_rows():
    body = rb"\trowd\cellx1000\cellx2000 a\cell b\cell\row c\cell d\cell\row"
    assert text_of(body) == "a\tb\t\nc\td\t\n"


def test_not_rtf_and_nesting_past_the_cap_are_errors_not_hangs():
    with pytest.raises(ExtractionError, match="not an RTF file"):
        rtf_text(b"plain words")
    deep = HEADER + b"}" + b"{" * (MAX_DEPTH + 5) + b"x" + b"}" * (MAX_DEPTH + 6)
    with pytest.raises(ExtractionError, match="nested deeper"):
        rtf_text(deep)


def test_rtf_files_and_an_rtf_named_doc_are_read_by_the_registry(tmp_path: Path):
    data = HEADER + rb"}{\info{\title Minutes}}\pard Quarterly budget approved\par}"
    for name in ("minutes.rtf", "minutes.doc"):  # Word's "Save as RTF" keeps .doc more often than not
        (tmp_path / name).write_bytes(data)
        doc = extract(tmp_path / name)
        assert (doc.text, doc.title, doc.kind) == ("Quarterly budget approved", "Minutes", "rtf"), name


def test_a_two_byte_character_split_between_an_escape_and_a_plain_byte():
    """Old Japanese RTF writes ア (cp932 83 41) as \\'83 then a plain "A"."""
    fonts = rb"{\f1\fnil\fcharset128 MS Mincho;}"
    assert text_of(rb"{\f1 \'83A\'83C}", fonts) == "アイ"


def test_only_the_document_properties_give_the_title_and_a_body_upr_keeps_one_copy():
    data = (HEADER + rb"}{\info{\title Minutes}}"
            rb"{\field{\*\fldinst {\title Not a title}}{\fldrslt shown}} "
            rb"{\upr{caf? au lait}{\*\ud{caf\u233? au lait}}}\par}")
    text, title = rtf_text(data)
    assert (text, title) == ("shown café au lait\n", "Minutes")


def test_a_unicode_copy_in_the_document_properties_stays_out_of_the_text():
    """Word writes `{\\upr{\\author …}{\\*\\ud{\\author …}}}` in \\info when a name has non-ASCII letters: the
    Unicode copy is as hidden as the ANSI one (the author was glued to the first word: "Hans MüllerQuarterly")."""
    data = (HEADER + rb"}{\info{\upr{\author Hans M\'fcller}{\*\ud{\author Hans M\u252?ller}}}"
            rb"{\upr{\title Bericht ?}{\*\ud{\title Bericht \u252?}}}{\company Acme}}"
            rb"Quarterly report\par}")
    assert rtf_text(data) == ("Quarterly report\n", "Bericht \u00fc")


def test_reading_stops_past_the_text_cap():
    body = rb"\pard " + b"word " * 200_000 + rb"\par"
    text, _ = rtf_text(HEADER + b"}" + body + b"}", max_chars=1000)
    assert len(text) == 1001  # one past the cap: the registry cuts it and says it was cut
    assert len(rtf_text(HEADER + b"}" + body + b"}")[0]) > 900_000


def test_headers_and_footers_follow_the_text_each_line_once_without_page_numbers():
    # tika's testRTFBoldPlain.rtf: a letterhead, all in {\header}, was "no text found"
    header = rb"{\header\pard\qc\b Animal Hospital\b0\par (555) 555-1212\par}"
    body = (header + rb"{\footer\pard Page {\field{\*\fldinst PAGE}{\fldrslt 3}}\par}"
            rb"{\footerf\pard {\field{\*\fldinst PAGE}{\fldrslt 1}}\par}"
            rb"\pard Hank is due for his shots.\par\sect " + header
            + rb"{\*\unknown{\header Hidden words}}\pard Canine / Retriever\par")
    assert text_of(body) == ("Hank is due for his shots.\n\n\nCanine / Retriever\n\n"
                             "Animal Hospital\n(555) 555-1212\nPage 3")
