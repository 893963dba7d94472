"""Real office files and mail written by the tests (and by tests/benchmarks/bench_format_coverage.py): xlsx and
pptx as OOXML parts in a zip, ods and odp through odfpy, mail through the standard library's EmailMessage."""

from __future__ import annotations

import zipfile
from email.message import EmailMessage
from pathlib import Path

REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
SML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
PML = "http://schemas.openxmlformats.org/presentationml/2006/main"
DML = "http://schemas.openxmlformats.org/drawingml/2006/main"
P188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"  # PowerPoint 365's modern comments
MODERN_COMMENTS = "http://schemas.microsoft.com/office/2018/10/relationships"


def rels(*items: tuple[str, str, str]) -> str:
    body = "".join(f'<Relationship Id="{i}" Type="{t}" Target="{target}"/>' for i, t, target in items)
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="{PKG_REL}">{body}'
            "</Relationships>")


def core(title: str) -> str:
    return ('<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></cp:coreProperties>')


def write_zip(path: Path, parts: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path


def sheet_xml(rows: str, tail: str = "") -> str:
    """A worksheet of `rows`; `tail`: the elements after its cells (headerFooter, drawing)."""
    return f'<worksheet xmlns="{SML}"><sheetData>{rows}</sheetData>{tail}</worksheet>'


def header_footer(header: str, footer: str) -> str:
    """A worksheet's headerFooter element, as Excel writes it (the codes &L, &C, &P, ... escaped for XML)."""
    return (f'<headerFooter><oddHeader xml:space="preserve">{header.replace("&", "&amp;")}</oddHeader>'
            f'<oddFooter>{footer.replace("&", "&amp;")}</oddFooter></headerFooter>')


def with_drawing(path: Path, sheet: int, boxes: list[list[str]]) -> Path:
    """The workbook at `path`, its worksheet part `sheet` given a drawing of text boxes, each a list of
    paragraphs whose words are split into runs as Excel splits them."""
    with zipfile.ZipFile(path) as z:
        parts: dict[str, str | bytes] = {i.filename: z.read(i).decode() for i in z.infolist()}
    xdr = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"
    shapes = "".join(
        '<xdr:twoCellAnchor><xdr:sp><xdr:nvSpPr><xdr:cNvPr id="2" name="TextBox 1"/></xdr:nvSpPr><xdr:txBody>'
        + "".join("<a:p>" + "".join(f"<a:r><a:t>{w} </a:t></a:r>" for w in para.split()) + "</a:p>" for para in box)
        + "</xdr:txBody></xdr:sp></xdr:twoCellAnchor>" for box in boxes)
    parts["xl/drawings/drawing1.xml"] = f'<xdr:wsDr xmlns:xdr="{xdr}" xmlns:a="{DML}">{shapes}</xdr:wsDr>'
    parts[f"xl/worksheets/_rels/sheet{sheet}.xml.rels"] = rels(("rId1", f"{REL}/drawing", "../drawings/drawing1.xml"))
    return write_zip(path, parts)


def make_xlsx(path: Path, sheets_: list[tuple[str, str]], shared: list[str], title: str = "",
              tails: tuple[str, ...] = ()) -> Path:
    """A workbook whose sheets (name, sheetData rows) are stored in reverse part order, so the order must come
    from workbook.xml and its relationships, not from file names; `tails`: each sheet's elements after its cells."""
    n = len(sheets_)
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                               '<Default Extension="xml" ContentType="application/xml"/></Types>',
        "_rels/.rels": rels(("rId1", f"{REL}/officeDocument", "xl/workbook.xml"),
                            ("rId2", f"{PKG_REL}/metadata/core-properties", "docProps/core.xml")),
        "docProps/core.xml": core(title),
        "xl/workbook.xml": f'<workbook xmlns="{SML}" xmlns:r="{REL}"><sheets>'
                           + "".join(f'<sheet name="{name}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
                                     for i, (name, _) in enumerate(sheets_)) + "</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": rels(*[(f"rId{i + 1}", f"{REL}/worksheet", f"worksheets/sheet{n - i}.xml")
                                             for i in range(n)],
                                           ("rIdS", f"{REL}/sharedStrings", "/xl/sharedStrings.xml")),
        "xl/sharedStrings.xml": f'<sst xmlns="{SML}">' + "".join(shared) + "</sst>",
    }
    for i, (_, rows) in enumerate(sheets_):
        parts[f"xl/worksheets/sheet{n - i}.xml"] = sheet_xml(rows, tails[i] if i < len(tails) else "")
    return write_zip(path, parts)


def make_ods(path: Path, tables: dict[str, list[list[str]]], title: str = "") -> Path:
    from odf.dc import Title
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    if title:
        doc.meta.addElement(Title(text=title))
    for name, rows in tables.items():
        table = Table(name=name)
        for row in rows:
            tr = TableRow()
            for value in row:
                tc = TableCell()
                if value:
                    tc.addElement(P(text=value))
                tr.addElement(tc)
            table.addElement(tr)
        doc.spreadsheet.addElement(table)
    doc.save(str(path))
    return path


def slide_xml(*shapes: str) -> str:
    return f'<p:sld xmlns:p="{PML}" xmlns:a="{DML}"><p:cSld><p:spTree>{"".join(shapes)}</p:spTree></p:cSld></p:sld>'


def shape(paragraphs: list[str], placeholder: str = "") -> str:
    ph = f'<p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr><p:ph type="{placeholder}"/></p:nvPr></p:nvSpPr>' \
        if placeholder else ""
    paras = "".join(f"<a:p>{''.join(f'<a:r><a:t>{run}</a:t></a:r>' for run in p.split('|'))}</a:p>"
                    for p in paragraphs)
    return f"<p:sp>{ph}<p:txBody><a:bodyPr/>{paras}</p:txBody></p:sp>"


def comments_xml(texts: list[str], modern: bool = False) -> str:
    """A slide's comments part: legacy (p:cm/p:text) or modern (p188:cm/p188:txBody, PowerPoint 365)."""
    if not modern:
        return (f'<p:cmLst xmlns:p="{PML}">' + "".join(
            f'<p:cm authorId="0" idx="{i + 1}"><p:pos x="10" y="10"/><p:text>{t}</p:text></p:cm>'
            for i, t in enumerate(texts)) + "</p:cmLst>")
    return (f'<p188:cmLst xmlns:p188="{P188}" xmlns:a="{DML}">' + "".join(
        f'<p188:cm id="{{{i}}}" authorId="{{0}}"><p188:txBody><a:bodyPr/><a:p><a:r><a:t>{t}</a:t></a:r></a:p>'
        "</p188:txBody></p188:cm>" for i, t in enumerate(texts)) + "</p188:cmLst>")


def make_pptx(path: Path, slides: list[tuple[list[str], list[str]]], title: str = "",
              comments: dict[int, list[str]] | None = None, modern: bool = False) -> Path:
    """Slides (paragraphs, notes); stored as slideN.xml in reverse order so order comes from presentation.xml.
    `comments`: slide index (from 0) -> the texts of its comments, in a legacy or (`modern`) a modern part."""
    n = len(slides)
    parts: dict[str, str | bytes] = {
        "_rels/.rels": rels(("rId1", f"{REL}/officeDocument", "ppt/presentation.xml"),
                            ("rId2", f"{PKG_REL}/metadata/core-properties", "docProps/core.xml")),
        "docProps/core.xml": core(title),
        "ppt/presentation.xml": f'<p:presentation xmlns:p="{PML}" xmlns:r="{REL}"><p:sldIdLst>'
                                + "".join(f'<p:sldId id="{256 + i}" r:id="rId{i + 1}"/>' for i in range(n))
                                + "</p:sldIdLst></p:presentation>",
        "ppt/_rels/presentation.xml.rels": rels(*[(f"rId{i + 1}", f"{REL}/slide", f"slides/slide{n - i}.xml")
                                                  for i in range(n)]),
    }
    for i, (paras, notes) in enumerate(slides):
        part = n - i
        parts[f"ppt/slides/slide{part}.xml"] = slide_xml(shape(paras), shape([str(i + 1)], "sldNum"))
        links: list[tuple[str, str, str]] = []
        if notes:
            links.append(("rId1", f"{REL}/notesSlide", f"../notesSlides/notesSlide{part}.xml"))
            parts[f"ppt/notesSlides/notesSlide{part}.xml"] = slide_xml(shape([], "sldImg"), shape(notes, "body"),
                                                                       shape([str(i + 1)], "sldNum"))
        if comments and i in comments:
            name = f"modernComment_{part}.xml" if modern else f"comment{part}.xml"
            links.append(("rId2", f"{MODERN_COMMENTS if modern else REL}/comments", f"../comments/{name}"))
            parts[f"ppt/comments/{name}"] = comments_xml(comments[i], modern)
        if links:
            parts[f"ppt/slides/_rels/slide{part}.xml.rels"] = rels(*links)
    return write_zip(path, parts)


def make_odp(path: Path, slides: list[tuple[str, str]], title: str = "") -> Path:
    from odf.dc import Title
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    doc = OpenDocumentPresentation()
    if title:
        doc.meta.addElement(Title(text=title))
    layout = PageLayout(name="PL")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)

    def box(parent, text: str) -> None:
        frame = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        parent.addElement(frame)
        tb = TextBox()
        frame.addElement(tb)
        tb.addElement(P(text=text))

    for text, notes in slides:
        page = Page(masterpagename=master)
        doc.presentation.addElement(page)
        box(page, text)
        if notes:
            n = Notes()
            page.addElement(n)
            box(n, notes)
    doc.save(str(path))
    return path


def make_mail(subject: str = "Lunch on Friday", plain: str | None = "Bring the pistachio cake.",
              html: str | None = "<p>HTML <b>version</b></p>",
              attachments: dict[str, bytes] | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = "Ana <ana@example.org>"
    msg["To"] = "Bo <bo@example.org>, Cy <cy@example.org>"
    msg["Date"] = "Fri, 07 Mar 2025 10:00:00 +0100"
    if plain is not None:
        msg.set_content(plain)
    if html is not None:
        if plain is None:
            msg.set_content(html, subtype="html")
        else:
            msg.add_alternative(html, subtype="html")
    for name, data in (attachments or {}).items():
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg


def many_parts(n: int, subject: str = "Many parts") -> bytes:
    """A mail of `n` tiny named attachments after its text body, written by hand (EmailMessage takes minutes)."""
    head = (f"Subject: {subject}\nFrom: a@example.org\nTo: b@example.org\nDate: Fri, 07 Mar 2025 10:00:00 +0100\n"
            'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="bnd"\n\n'
            "--bnd\nContent-Type: text/plain; charset=utf-8\n\nThe body about the many-parts heron.\n").encode()
    parts = b"".join(b'--bnd\nContent-Type: text/plain\nContent-Disposition: attachment; filename="a%05d.txt"\n\n'
                     b"part %d\n" % (i, i) for i in range(n))
    return head + parts + b"--bnd--\n"


def forwarded(outer_subject: str = "Fwd: the bridge survey") -> EmailMessage:
    inner = make_mail(subject="The bridge survey", plain="The suspension cables need repainting.", html=None,
                      attachments={"cables.txt": b"Cable report: corrosion on the north tower.\n"})
    inner.replace_header("Date", "Tue, 02 Jan 2018 10:00:00 +0000")
    outer = make_mail(subject=outer_subject, plain="See the message below.", html=None)
    outer.add_attachment(inner)  # message/rfc822
    return outer
