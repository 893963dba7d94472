"""Spreadsheets (xlsx, ods), slides (pptx, odp) and mail (eml, mbox): real files written here, read through
`extract()` and through a real sync + lexical search, with each sheet, slide and message its own page."""

from __future__ import annotations

import email
import socket
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from searchapp.base.member_paths import split_member

from searchapp.base.errors import Cancelled, ExtractionError, UnsupportedFileError
from searchapp.base.progress import CancelToken
from searchapp.ingest.extractors import extract, extractor_name, supported_suffixes
from searchapp.ingest.extractors import mail, sheets
from searchapp.ingest.extractors.sniff import KNOWN_BINARY_SUFFIXES

from office_files import SML, make_mail, make_odp, make_ods, make_pptx, make_xlsx, write_zip
from work_done import inflated_bytes

NEW = (".xlsx", ".xlsm", ".ods", ".pptx", ".odp", ".eml", ".mbox")

# --------------------------------------------------------------------------- xlsx (writers: tests/office_files.py)

BUDGET_ROWS = (
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1"><v></v></c></row>'
    '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="C2"><v>3.5</v></c><c r="D2" t="b"><v>1</v></c></row>'
    '<row r="3"></row>'
    '<row r="4"><c r="A4" t="inlineStr"><is><t>Total</t></is></c><c r="B4"><f>SUM(C1:C3)</f><v>42</v></c></row>'
)
SHARED = ['<si><t>Item</t></si>', '<si><r><t>Co</t></r><r><t>st</t></r></si>',
          '<si><t>Kumquat</t><rPh><t>PHONETIC</t></rPh></si>']


def test_xlsx_sheets_are_pages_with_rows(tmp_path: Path) -> None:
    path = make_xlsx(tmp_path / "b.xlsx", [("Budget", BUDGET_ROWS), ("Staff", '<row><c t="inlineStr"><is><t>Walrus'
                                                                                  '</t></is></c></row>')],
                     SHARED, title="Household budget")
    doc = extract(path)
    assert doc.kind == "xlsx" and doc.title == "Household budget"
    assert doc.text.split("\n\n")[0] == "Budget\nItem | Cost\nKumquat |  | 3.5 | TRUE\nTotal | 42"
    assert "SUM" not in doc.text and "PHONETIC" not in doc.text  # formula text, phonetic runs
    assert [p.page for p in doc.pages] == [1, 2]
    assert doc.page_at(doc.text.index("Walrus")) == 2 and doc.text[doc.pages[1].start:].startswith("Staff\n")
    assert doc.page_at(doc.text.index("Kumquat")) == 1


def test_xlsx_cell_cap_is_noted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 50)
    rows = "".join(f'<row><c t="inlineStr"><is><t>r{i}a</t></is></c><c><v>{i}</v></c></row>' for i in range(100))
    doc = extract(make_xlsx(tmp_path / "big.xlsx", [("Big", rows), ("Later", rows)], []))
    assert "r24a | 24" in doc.text and "r25a" not in doc.text and "Later" not in doc.text
    assert "only the first 50 cells read" in doc.notes


def test_xlsx_hostile(tmp_path: Path) -> None:
    # Shared strings that inflate to 300 MB (a few hundred KB on disk): refused as a zip bomb, quickly.
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{SML}"><sheets/></workbook>')
        with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as fh:
            fh.write(f'<sst xmlns="{SML}">'.encode())
            for _ in range(300):
                fh.write(b"<si><t>aaaaaaaaaaaaaaaa</t></si>" * (2**20 // 28))
    assert bomb.stat().st_size < 3 * 2**20
    with inflated_bytes() as got, pytest.raises(ExtractionError, match="zip bomb"):
        extract(bomb)
    assert got[0] < 2**20  # refused from the directory's sizes, before inflating 300 MB
    # Many shared strings within the zip caps: only as many as the text can hold are kept, and that is said.
    many = [f"<si><t>word{i}</t></si>" for i in range(5000)]
    doc = extract(make_xlsx(tmp_path / "many.xlsx", [("S", '<row><c t="s"><v>0</v></c><c t="s"><v>4999</v></c>'
                                                          '<c t="s"><v>-3</v></c><c t="s"><v>x</v></c></row>')],
                            many), max_chars=1000)
    assert doc.text == "S\nword0" and any("shared strings after the first" in n for n in doc.notes)
    # Broken XML and a missing workbook fail with a reason, not a traceback.
    with pytest.raises(ExtractionError, match="corrupt XML"):
        extract(make_xlsx(tmp_path / "broken.xlsx", [("S", "<row><c><v>1</v></row")], []))
    with pytest.raises(ExtractionError, match="not an Excel workbook"):
        extract(write_zip(tmp_path / "empty.xlsx", {"a.txt": "x"}))
    with pytest.raises(ExtractionError, match="corrupt zip"):
        extract(tmp_path.joinpath("nozip.xlsx").write_bytes(b"not a zip") and tmp_path / "nozip.xlsx")
    # One cut in the middle (a download that stopped) says so, not zipfile's "File is not a zip file"
    whole = make_xlsx(tmp_path / "whole.xlsx", [("S", BUDGET_ROWS)], SHARED).read_bytes()
    for name, what in (("cut.xlsx", "document"), ("cut.zip", "archive")):
        tmp_path.joinpath(name).write_bytes(whole[:len(whole) // 2])
        with pytest.raises(ExtractionError, match=f"^the {what} is cut short \\(truncated\\)"):
            extract(tmp_path / name)


def test_xlsx_cancel(tmp_path: Path) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        extract(make_xlsx(tmp_path / "c.xlsx", [("S", BUDGET_ROWS)], SHARED), cancel=token)


# --------------------------------------------------------------------------- ODS

def test_ods_sheets_are_pages(tmp_path: Path) -> None:
    path = make_ods(tmp_path / "s.ods", {"Fruit": [["Name", "Count"], ["Quince", "", "7", ""], ["", ""]],
                                         "Birds": [["Puffin"]]}, title="Orchard stock")
    doc = extract(path)
    assert doc.kind == "ods" and doc.title == "Orchard stock"
    assert doc.text == "Fruit\nName | Count\nQuince |  | 7\n\nBirds\nPuffin"
    assert doc.page_at(doc.text.index("Puffin")) == 2 and doc.page_at(doc.text.index("Quince")) == 1


ODS_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')


def raw_ods(path: Path, tables: str) -> Path:
    content = (f'<office:document-content {ODS_NS}><office:body><office:spreadsheet>{tables}'
               '</office:spreadsheet></office:body></office:document-content>')
    return write_zip(path, {"mimetype": "application/vnd.oasis.opendocument.spreadsheet", "content.xml": content})


def test_ods_hostile_repeats_are_capped(tmp_path: Path) -> None:
    cell = '<table:table-cell table:number-columns-repeated="1000000"><text:p>Yak</text:p></table:table-cell>'
    empty = '<table:table-cell table:number-columns-repeated="1000000"/>'
    tables = (f'<table:table table:name="T"><table:table-row table:number-rows-repeated="1000000">{cell}{empty}'
              f'</table:table-row><table:table-row table:number-rows-repeated="1048576">{empty}</table:table-row>'
              '<table:table-row><table:table-cell><text:p>A</text:p></table:table-cell>'
              f'{empty}<table:table-cell><text:p>Z</text:p></table:table-cell></table:table-row></table:table>')
    doc = extract(raw_ods(tmp_path / "r.ods", tables))  # a million repeats of a million cells, capped as below
    lines = doc.text.split("\n")
    assert lines[0] == "T" and lines[1] == " | ".join(["Yak"] * sheets.MAX_REPEAT)
    # 1,000 cells per row: the cell cap stops the repeated row at 200 rows, and says so.
    assert lines.count(lines[1]) == sheets.MAX_CELLS // sheets.MAX_REPEAT
    assert f"only the first {sheets.MAX_CELLS:,} cells read" in doc.notes
    small = raw_ods(tmp_path / "s.ods", '<table:table table:name="T"><table:table-row><table:table-cell><text:p>A'
                    f'</text:p></table:table-cell>{empty}<table:table-cell><text:p>Z</text:p></table:table-cell>'
                    f'</table:table-row><table:table-row table:number-rows-repeated="1048576">{empty}'
                    '</table:table-row></table:table>')
    assert extract(small).text == "T\nA" + " | " * (sheets.MAX_EMPTY_RUN + 1) + "Z"
    with pytest.raises(ExtractionError, match="corrupt XML"):
        extract(raw_ods(tmp_path / "bad.ods", "<table:table><table:table-row>"))


# --------------------------------------------------------------------------- PPTX

def test_pptx_slides_and_notes(tmp_path: Path) -> None:
    path = make_pptx(tmp_path / "talk.pptx", [(["Quarterly review", "Sales up|, costs down"], []),
                                              (["Roadmap"], ["Mention the narwhal launch"])], title="Q3 talk")
    doc = extract(path)
    assert doc.kind == "pptx" and doc.title == "Q3 talk"
    assert doc.text == "Quarterly review\nSales up, costs down\n\nRoadmap\n\nNotes: Mention the narwhal launch"
    assert doc.page_at(doc.text.index("narwhal")) == 2 and doc.page_at(doc.text.index("Sales")) == 1
    with pytest.raises(ExtractionError, match="not a PowerPoint presentation"):
        extract(write_zip(tmp_path / "e.pptx", {"x": "y"}))
    with pytest.raises(ExtractionError, match="corrupt XML"):
        extract(write_zip(tmp_path / "b.pptx", {"ppt/presentation.xml": "<p:presentation"}))


@pytest.mark.parametrize("modern", [False, True])
def test_pptx_comments_follow_the_notes(tmp_path: Path, modern: bool) -> None:
    # A reviewer's comments are words a person typed on the slide, read as a .docx's are (no author).
    path = make_pptx(tmp_path / "c.pptx", [(["Intro"], []), (["Budget"], ["Say the total"])],
                     comments={1: ["Check the pangolin figure", "Ask finance"]}, modern=modern)
    doc = extract(path)
    assert doc.text == "Intro\n\nBudget\n\nNotes: Say the total\n\nCheck the pangolin figure\nAsk finance"
    assert doc.page_at(doc.text.index("pangolin")) == 2
    # A broken comments part (unread before 0.27.0) is a note: the slides' text and notes are still read.
    part = f"ppt/comments/{'modernComment_1' if modern else 'comment1'}.xml"
    with zipfile.ZipFile(path) as z:
        parts: dict[str, str | bytes] = {n: z.read(n) for n in z.namelist()}
    parts[part] = "<p:cmLst><p:cm><p:text>Check the</p:te"
    doc = extract(write_zip(tmp_path / "broken.pptx", parts))
    assert doc.text == "Intro\n\nBudget\n\nNotes: Say the total"
    assert any(n.startswith(f"{part} skipped: corrupt XML") for n in doc.notes)


# --------------------------------------------------------------------------- ODP

def test_odp_slides_and_notes(tmp_path: Path) -> None:
    doc = extract(make_odp(tmp_path / "d.odp", [("Welcome", ""), ("Budget slide", "Say the ocelot number")],
                           title="Board deck"))
    assert doc.kind == "odp" and doc.title == "Board deck"
    assert doc.text == "Welcome\n\nBudget slide\n\nNotes: Say the ocelot number"
    assert doc.page_at(doc.text.index("ocelot")) == 2


# --------------------------------------------------------------------------- mail

def test_eml_headers_body_attachments(tmp_path: Path) -> None:
    path = tmp_path / "m.eml"
    path.write_bytes(make_mail(attachments={"a.pdf": b"%PDF-1.4", "b.xlsx": b"PK"}).as_bytes())
    doc = extract(path)
    assert doc.kind == "eml" and doc.title == "Lunch on Friday"
    assert doc.text == ("Subject: Lunch on Friday\nFrom: Ana <ana@example.org>\n"
                        "To: Bo <bo@example.org>, Cy <cy@example.org>\nDate: Fri, 07 Mar 2025 10:00:00 +0100\n\n"
                        "Bring the pistachio cake.\n\nAttachments: a.pdf, b.xlsx")
    # Encoded headers and a Latin-1 body are decoded.
    msg = EmailMessage()
    msg["Subject"] = "=?utf-8?q?Caf=C3=A9_cr=C3=A8me?="
    msg.set_content("Crème brûlée".encode("latin-1"), maintype="text", subtype="plain",
                    params={"charset": "iso-8859-1"}, cte="quoted-printable")
    path.write_bytes(msg.as_bytes())
    doc = extract(path)
    assert doc.title == "Café crème" and doc.text.endswith("Crème brûlée")


def test_eml_html_body_is_text_only_and_fetches_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    connects: list = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, *a: connects.append(a))
    html = ('<html><head><title>Page title</title><script>steal("cookies")</script></head><body>'
            '<p>Quarterly <img src="http://tracker.example/pixel.gif"> figures inside.</p>'
            '<style>p{color:red}</style></body></html>')
    path = tmp_path / "h.eml"
    path.write_bytes(make_mail(plain=None, html=html).as_bytes())
    doc = extract(path)
    body = doc.text.split("\n\n", 1)[1]
    assert body == "Quarterly figures inside."
    assert not connects and "http" not in doc.text and "steal" not in doc.text


def test_eml_size_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.eml"
    head = make_mail(plain="Short body.", html=None).as_bytes()
    with big.open("wb") as fh:  # a 100 MB base64 part: refused by size before any parsing
        fh.write(head + b"\n--x\nContent-Transfer-Encoding: base64\n\n")
        line = b"QUFB" * 19 + b"\n"
        for _ in range(100 * 2**20 // len(line)):
            fh.write(line)
    parsed: list[int] = []
    real_parse = email.message_from_bytes
    monkeypatch.setattr(email, "message_from_bytes", lambda *a, **kw: parsed.append(1) or real_parse(*a, **kw))
    with pytest.raises(ExtractionError, match="too large"):
        extract(big)
    assert parsed == []  # refused by its size, before any parsing
    monkeypatch.undo()
    # Within the cap, an attachment is only named, never decoded into the text.
    path = tmp_path / "att.eml"
    path.write_bytes(make_mail(html=None, attachments={"scan.bin": b"\x00\x01" * 2**20}).as_bytes())
    doc = extract(path)
    assert doc.text.endswith("Bring the pistachio cake.\n\nAttachments: scan.bin") and len(doc.text) < 500
    with pytest.raises(ExtractionError, match="too large"):
        extract(path, max_bytes=2**20)


def test_message_document_is_reusable() -> None:
    doc = mail.message_document(make_mail(subject="Re: the otter survey"))
    assert doc.title == "Re: the otter survey" and "Bring the pistachio cake." in doc.text and not doc.pages


@pytest.mark.parametrize("value, ns, note", [
    ("Wed, 15 Jun 2022 09:00:00 +0000", 1655283600 * 10**9, ""),
    ("Wed, 15 Jun 2022 09:00:00 -0000", 1655283600 * 10**9, ""),  # no zone: taken as UTC, not the local zone
    ("Mon, 01 Jan 1000 00:00:00 +0000", None, "out of range"),
    ("Fri, 31 Dec 9999 23:59:59 -1200", None, "out of range"),  # past 9999 once the zone is applied
    ("Mon, 01 Jan 99999999999 00:00:00 +0000", None, "not understood"),
    ("the day after tomorrow", None, "not understood"),
])
def test_message_date_is_total(value: str, ns, note: str) -> None:
    raw = make_mail(html=None).as_bytes().replace(b"Fri, 07 Mar 2025 10:00:00 +0100", value.encode())
    msg = mail.parse_message(raw)
    got, why = mail.message_date(msg)
    assert got == ns and note in why and bool(why) == bool(note)
    doc = mail.message_document(msg)
    assert "Bring the pistachio cake." in doc.text and (any(note in n for n in doc.notes) if note else not doc.notes)


def mbox_bytes(bodies: list[str]) -> bytes:
    out = b""
    for i, body in enumerate(bodies, start=1):
        msg = make_mail(subject=f"Message {i}", plain=body, html=None)
        out += b"From ana@example.org Fri Mar  7 10:00:00 2025\n" + msg.as_bytes() + b"\n"
    return out


def test_mbox_is_one_page_per_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "inbox.mbox"
    path.write_bytes(mbox_bytes(["First about herons.", "Second about the tapir.\n>From the zoo", "Third."]))
    doc = extract(path)
    assert doc.kind == "mbox" and "one page per message" in doc.notes
    assert [p.page for p in doc.pages] == [1, 2, 3]
    assert doc.page_at(doc.text.index("tapir")) == 2 and doc.page_at(doc.text.index("Subject: Message 3")) == 3
    assert ">From the zoo" in doc.text
    monkeypatch.setattr(mail, "MAX_MESSAGES", 2)
    doc = extract(path)
    assert "Third." not in doc.text and "only the first 2 messages read" in doc.notes
    monkeypatch.undo()
    # A message nested thousands of parts deep breaks the stdlib parser: that message is noted, the others kept.
    deep = b"Subject: deep\n" + b"".join(b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i)
                                          for i in range(5000))
    path.write_bytes(mbox_bytes(["Before the deep one."]) + b"From x\n" + deep + b"\n" + mbox_bytes(["After it."]))
    doc = extract(path)
    assert "Before the deep one." in doc.text and doc.page_at(doc.text.index("After it.")) == 3
    assert "1 message(s) could not be read (first: message 2)" in doc.notes
    not_mbox = tmp_path / "x.mbox"
    not_mbox.write_text("Subject: hi\n\nno separator line\n")
    with pytest.raises(ExtractionError, match="not an mbox"):
        extract(not_mbox)


# --------------------------------------------------------------------------- registry, sync, search

def test_registry_knows_the_new_suffixes(tmp_path: Path) -> None:
    assert set(NEW) <= supported_suffixes()
    assert not set(NEW) & KNOWN_BINARY_SUFFIXES
    assert extractor_name("A.XLSX") == "xlsx" and extractor_name("m.eml") == "eml"
    # Outlook .msg is read (tests/unit/ingest/test_legacy_office.py); one that is not a compound file says so.
    assert ".msg" not in KNOWN_BINARY_SUFFIXES and extractor_name("o.MSG") == "msg"
    with pytest.raises(UnsupportedFileError, match=r"^not an Outlook message \(no OLE header\)$"):
        extract(tmp_path.joinpath("o.msg").write_bytes(b"\xd0\xcf\x11\xe0") and tmp_path / "o.msg")


def test_sync_and_lexical_search_find_cells_notes_and_mail(tiny_library, tmp_path: Path) -> None:
    d = tmp_path / "docs"
    d.mkdir()
    make_xlsx(d / "budget.xlsx", [("Budget", BUDGET_ROWS), ("Staff", '<row><c t="inlineStr"><is><t>Wombat keeper'
                                                                     '</t></is></c></row>')], SHARED)
    make_ods(d / "stock.ods", {"A": [["x"]], "B": [["y"]], "C": [["Capybara", "3"]]})
    make_pptx(d / "talk.pptx", [(["Intro"], []), (["Plans"], ["Remember the axolotl"])])
    make_odp(d / "deck.odp", [("One", ""), ("Two", ""), ("Three", "Mention the pangolin")])
    (d / "lunch.eml").write_bytes(make_mail(plain="The gazpacho recipe is attached.").as_bytes())
    (d / "inbox.mbox").write_bytes(mbox_bytes(["hello", "nothing", "The flamingo count is in."]))
    (d / "old.msg").write_bytes(b"\xd0\xcf\x11\xe0" + b"\x00" * 100)
    rep = tiny_library.add_folder(d)
    # 6 files and the mbox's 3 messages, each an entry of its own (tests/integration/library/test_members.py)
    assert rep.added == 9 and rep.problems == [(str(d / "old.msg"), mail.MSG_REASON)]  # listed, with the reason
    for word, name, page in (("wombat", "budget.xlsx", 2), ("kumquat", "budget.xlsx", 1),
                             ("capybara", "stock.ods", 3), ("axolotl", "talk.pptx", 2),
                             ("pangolin", "deck.odp", 3), ("gazpacho", "lunch.eml", None),
                             ("flamingo", "inbox.mbox", None)):
        hits = tiny_library.search(word, mode="lexical").hits
        container, member = split_member(hits[0].path) if hits else ("", None)
        assert hits and Path(container).name == name, word
        assert (member or "").startswith("3: ") == (word == "flamingo"), word
        assert hits[0].page == page, word
