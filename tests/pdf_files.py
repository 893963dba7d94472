"""PDFs the tests write byte by byte, for what fpdf2 will not make: a text layer of glyph codes (a font with
no Unicode map, as subsetting tools write it) and a filled XFA form whose one page says "Please wait".

Page contents are given as lists of parts: ("text", s) is ordinary Helvetica text; ("glyphs", s) is text in a
font whose /Differences give every code a made-up glyph name (/g72 ...) while the codes stay ASCII, so pypdf
reads glyph names and pdfium reads the codes; ("opaque", s) numbers the glyphs from 1 in order of first use,
as a subset font does, so neither can map them; ("image", lines) is a picture of `lines` (a scan), drawn
under the text.
"""

from __future__ import annotations

import zlib
from pathlib import Path

PLEASE_WAIT = ("Please wait... If this message is not eventually replaced by the proper contents of the "
               "document, your PDF viewer may not be able to display this type of document. You can upgrade "
               "to the latest version of Adobe Reader.")


class RawPdf:
    def __init__(self) -> None:
        self.objects: list[bytes] = []

    def add(self, body: bytes) -> int:
        self.objects.append(body)
        return len(self.objects)

    def reserve(self) -> int:
        return self.add(b"null")

    def set(self, ref: int, body: bytes) -> None:
        self.objects[ref - 1] = body

    def stream(self, data: bytes, extra: bytes = b"", compress: bool = True) -> int:
        if compress:
            data, extra = zlib.compress(data), extra + b" /Filter /FlateDecode"
        return self.add(b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream")

    def write(self, path: Path, root: int, trailer: bytes = b"") -> Path:
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for number, body in enumerate(self.objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objects) + 1)
        out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
        out += b"trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(self.objects) + 1, root,
                                                                                     trailer, xref)
        path.write_bytes(bytes(out))
        return path


def _literal(text: str) -> bytes:
    return b"(" + text.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _lines(font: bytes, lines: list[bytes], mode: int = 0) -> bytes:
    body = b"".join(b"%s Tj T*\n" % s for s in lines)
    return b"BT %s 11 Tf 14 TL %d Tr 40 760 Td\n%sET\n" % (font, mode, body)


def _image(pdf: RawPdf, lines: list[str]) -> int:
    from scan_files import text_image

    im = text_image(lines, size=(1200, 90 + 70 * len(lines))).convert("L")
    return pdf.stream(im.tobytes(), b" /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"
                                    b" /BitsPerComponent 8" % im.size)


def glyph_code_pdf(path: Path, pages: list[list[tuple[str, object]]], media: bytes = b"0 0 612 792") -> Path:
    """A PDF of `pages`, each a list of parts (see the module doc), on Letter pages or on `media` (a MediaBox:
    the parts are drawn from the top left, so "0 600 400 792" keeps them and saves OCR the blank rest)."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    plain = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    named = " ".join(f"/g{c}" for c in range(32, 127)).encode()
    glyphs = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                     b"/Differences [32 %s] >> >>" % named)
    codes: dict[str, int] = {}
    opaque = pdf.reserve()
    kids = []
    for parts in pages:
        content, xobjects = b"", b""
        for kind, value in parts:
            if kind == "image":
                ref = _image(pdf, list(value))
                xobjects += b"/Im%d %d 0 R " % (ref, ref)
                content = b"q 540 0 0 %d 36 %d cm /Im%d Do Q\n" % (40 * len(value) + 50, 700 - 40 * len(value), ref) + content
            elif kind == "opaque":
                hexed = [b"<" + "".join(f"{codes.setdefault(c, len(codes) + 1):02x}" for c in line).encode() + b">"
                         for line in str(value).split("\n")]
                content += _lines(b"/F3", hexed, mode=3 if any(k == "image" for k, _ in parts) else 0)
            else:
                font = b"/F1" if kind == "text" else b"/F2"
                content += _lines(font, [_literal(line) for line in str(value).split("\n")])
        stream = pdf.stream(content)
        resources = b"<< /Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >> /XObject << %s>> >>" % (plain, glyphs, opaque,
                                                                                               xobjects)
        kids.append(pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [%s] /Resources %s /Contents %d 0 R >>"
                            % (tree, media, resources, stream)))
    names = " ".join(f"/g{n + 17}" for n in range(1, len(codes) + 1)).encode()  # /g18 /g19 ...
    pdf.set(opaque, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                    b"/Differences [1 %s] >> >>" % names)
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def xfa_form_pdf(path: Path, datasets: bytes, page_text: str = PLEASE_WAIT, needs_rendering: bool = True,
                 field: bytes = b"") -> Path:
    """A dynamic XFA form: one page of `page_text`, the form's data in a compressed datasets packet; `field`, an
    AcroForm field dictionary, is its one field (LiveCycle writes each XFA field as one, with the same value)."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    words, lines, line = page_text.split(), [], ""
    for w in words:
        if len(line) + len(w) > 80:
            lines.append(line)
            line = ""
        line = f"{line} {w}".strip()
    lines.append(line)
    stream = pdf.stream(_lines(b"/F1", [_literal(s) for s in lines]))
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                   b" /Contents %d 0 R >>" % (tree, font, stream))
    pre = pdf.stream(b'<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/">')
    data = pdf.stream(datasets)
    post = pdf.stream(b"</xdp:xdp>")
    fields = b"%d 0 R" % pdf.add(field) if field else b""
    form = pdf.add(b"<< /Fields [%s] /XFA [(preamble) %d 0 R (datasets) %d 0 R (postamble) %d 0 R] >>"
                   % (fields, pre, data, post))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R /AcroForm %d 0 R%s >>"
            % (tree, form, b" /NeedsRendering true" if needs_rendering else b""))
    return pdf.write(path, catalog)


def datasets_xml(fields: str, choices: str = "") -> bytes:
    """An XFA datasets packet: `choices` (lists of values, not answers) beside `fields` in xfa:data."""
    return (f'<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/">{choices}'
            f"<xfa:data><form1>{fields}</form1></xfa:data></xfa:datasets>").encode()



def lone_surrogate_pdf(path: Path, text: str) -> Path:
    """One page: the word "AB" in a font whose ToUnicode map sends code B to <D862>, half of a UTF-16 pair (as
    in docling's skipped_1page.pdf and Tika's testPDFVarious.pdf), then `text` in Helvetica."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lone def "
            b"1 begincodespacerange <00> <FF> endcodespacerange "
            b"2 beginbfchar <41> <0041> <42> <D862> endbfchar endcmap CMapName currentdict /CMap defineresource pop "
            b"end end")
    lone = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>"
                   % pdf.stream(cmap, compress=False))
    plain = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    content = b"BT /F1 11 Tf 40 760 Td (AB) Tj ET\n" + _lines(b"/F2", [_literal(text)])
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R "
                   b"/F2 %d 0 R >> >> /Contents %d 0 R >>" % (tree, lone, plain, pdf.stream(content)))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def shared_stream_pdf(path: Path, pages: int, empty_ops: int, other_text: str = "") -> Path:
    """`pages` pages that all draw one content stream: a line of text then `empty_ops` empty text operations
    (issue 40: a 7 KB file of 80,000 such operations on 10 pages took pypdf 95 s). With `other_text`, one more
    page draws the same stream with other resources (its font maps the codes elsewhere), and one more its own
    stream of `other_text`."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    shared = pdf.stream(_lines(b"/F1", [_literal("Shared words here")]) + b"BT () Tj ET\n" * empty_ops)
    resources = pdf.add(b"<< /Font << /F1 %d 0 R >> >>" % font)
    page = b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R >>"
    kids = [pdf.add(page % (tree, b"%d 0 R" % resources, shared)) for _ in range(pages)]
    if other_text:
        shifted = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                          b"/Differences [83 /T /i] >> >>")  # S -> T, h -> i
        kids.append(pdf.add(page % (tree, b"<< /Font << /F1 %d 0 R >> >>" % shifted, shared)))
        kids.append(pdf.add(page % (tree, b"%d 0 R" % resources, pdf.stream(_lines(b"/F1", [_literal(other_text)])))))
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def _japan1_cid(char: str) -> int:
    """The CID of `char` in Adobe-Japan1: ASCII, JIS X 0208 row 1 (punctuation), hiragana, katakana and the
    level-1 kanji, which that collection numbers in JIS order."""
    if " " <= char <= "~":
        return ord(char) - 31
    jis = char.encode("euc_jp")
    row, cell = jis[0] - 0xA0, jis[1] - 0xA0
    first = {1: 633, 4: 842, 5: 925}.get(row) or (1125 + (row - 16) * 94 if 16 <= row <= 47 else None)
    if first is None:
        raise ValueError(f"{char!r} is not in the part of Adobe-Japan1 this builder knows")
    return first + cell - 1


def japan1_pdf(path: Path, lines: list[str]) -> Path:
    """One page of `lines` in a Japanese font as Word and PowerPoint write it: CIDs of Adobe-Japan1 through
    Identity-H with no ToUnicode map. pdfium maps the CIDs through Adobe-Japan1; pypdf takes each CID for a code
    point, so "Computer" reads "$PNQVUFS" and Japanese reads as Greek, Cyrillic, Arabic, Bengali... letters."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    descendant = pdf.add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Ryumin-Light /CIDSystemInfo << /Registry "
                         b"(Adobe) /Ordering (Japan1) /Supplement 2 >> /FontDescriptor << /Type /FontDescriptor "
                         b"/FontName /Ryumin-Light /Flags 6 /FontBBox [0 -141 1000 859] /ItalicAngle 0 /Ascent 859 "
                         b"/Descent -141 /CapHeight 709 /StemV 69 >> /DW 1000 >>")
    font = pdf.add(b"<< /Type /Font /Subtype /Type0 /BaseFont /Ryumin-Light-Identity-H /Encoding /Identity-H "
                   b"/DescendantFonts [%d 0 R] >>" % descendant)
    body = b"".join(b"<%s> Tj T*\n" % "".join(f"{_japan1_cid(c):04x}" for c in line).encode() for line in lines)
    stream = pdf.stream(b"BT /F1 11 Tf 14 TL 40 760 Td\n" + body + b"ET\n")
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                   b" /Contents %d 0 R >>" % (tree, font, stream))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def aes256_pdf(path: Path, text: str, locked: bool = True, handler: bytes = b"/Standard", version: int = 5) -> Path:
    """One page of `text` under AES-256 encryption (revision 6), written without AES: checking any password
    needs AES (pypdf without the `cryptography` package raises DependencyError), and the password entries are
    made up, so `locked`, no password opens it (pdfium: "Incorrect password"). Not `locked`, streams and strings
    are under the Identity filter: stored as they are, readable by pdfium with no password at all. `handler` other
    than /Standard (/MicrosoftIRMServices), or a `version` (/V) neither reader knows: only its own software opens it."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    stream = pdf.stream(_lines(b"/F1", [_literal(text)]), compress=False)
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                   b" /Contents %d 0 R >>" % (tree, font, stream))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    made_up = [b"<%s>" % bytes(range(n)).hex().encode() for n in (48, 48, 32, 32, 16)]  # O, U, OE, UE, Perms
    filters = b"/StdCF" if locked else b"/Identity"
    encrypt = pdf.add(b"<< /Filter %s /V %d /R 6 /Length 256 /P -4 /CF << /StdCF << /CFM /AESV3 /AuthEvent "
                      b"/DocOpen /Length 32 >> >> /StmF %s /StrF %s /O %s /U %s /OE %s /UE %s /Perms %s >>"
                      % (handler, version, filters, filters, *made_up))
    file_id = b"<00112233445566778899aabbccddeeff>"
    return pdf.write(path, catalog, b" /Encrypt %d 0 R /ID [%s %s]" % (encrypt, file_id, file_id))



def acroform_pdf(path: Path, pages: list[str], fields: list[tuple[str, int]]) -> Path:
    """Pages of Helvetica text and an AcroForm of `fields`: (dictionary as written, 0-based page whose /Annots
    list it, -1 for none). "{i}" in a dictionary is field i's object number, for /Kids and /Parent; the fields
    without a /Parent are the form's /Fields."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    numbers = [len(pdf.objects) + 1 + i for i in range(len(fields))]
    for body, _ in fields:
        pdf.add(body.format(*numbers).encode("latin-1"))
    kids = []
    for index, text in enumerate(pages):
        annots = " ".join(f"{n} 0 R" for n, (_, page) in zip(numbers, fields, strict=True) if page == index).encode()
        stream = pdf.stream(_lines(b"/F1", [_literal(line) for line in text.split("\n")]))
        kids.append(pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R"
                            b" >> >> /Contents %d 0 R /Annots [%s] >>" % (tree, font, stream, annots)))
    top = " ".join(f"{n} 0 R" for n, (body, _) in zip(numbers, fields, strict=True) if "/Parent" not in body).encode()
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [%s] >> >>" % (tree, top))
    return pdf.write(path, catalog)


def word_a_line_pdf(path: Path, lines: list[str]) -> Path:
    """One page of `lines`, each word drawn in a text object of its own under a flipped matrix, as Chrome's
    "Save as PDF" writes it (pdf.js's issue19971.pdf): pypdf reads one word a line, pdfium reads the lines."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    body = b"1 0 0 -1 0 792 cm\n"
    for row, line in enumerate(lines):
        x = 40.0
        for word in line.split():
            body += b"BT /F1 11 Tf 1 0 0 -1 0 0 Tm %.2f %.2f Td %s Tj ET\n" % (x, -(60 + 14 * row), _literal(word))
            x += 6.2 * (len(word) + 1)
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                   b" /Contents %d 0 R >>" % (tree, font, pdf.stream(body)))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def winansi_pdf(path: Path, text: bytes) -> Path:
    """One page of Helvetica with WinAnsiEncoding drawing `text`'s bytes as they are (0xAD: the hyphen glyph)."""
    pdf = RawPdf()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    content = pdf.stream(b"BT /F1 11 Tf 14 TL 40 760 Td\n" + b"".join(b"(%s) Tj T*\n" % line for line in text.split(b"\n"))
                         + b"ET\n")
    pages = pdf.reserve()
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                   b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages, content, font))
    pdf.set(pages, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    return pdf.write(path, pdf.add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages))


def cropped_pdf(path: Path, parts: list[tuple[int, int, str]], crops: list[bytes | None],
                media: bytes = b"0 0 612 792", rotate: int = 0, tilde: str = "~") -> Path:
    """One page per entry of `crops` (its /CropBox, or None for none), all drawn by one content stream: `parts`,
    each a line of 12-point Helvetica at (x, y) on the sheet; as a tool that cuts a larger sheet into pages writes
    them. A "~" reads as `tilde` (a ToUnicode map: "𝑁", beyond U+FFFF, as a paper's mathematics has it)."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Tilde def "
            b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <7E> <%s> endbfchar endcmap "
            b"CMapName currentdict /CMap defineresource pop end end" % tilde.encode("utf-16-be").hex().encode())
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode %d 0 R"
                   b" >>" % pdf.stream(cmap, compress=False))
    content = pdf.stream(b"".join(b"BT /F1 12 Tf %d %d Td %s Tj ET\n" % (x, y, _literal(s)) for x, y, s in parts))
    kids = []
    for crop in crops:
        box = b" /CropBox [%s]" % crop if crop is not None else b""
        kids.append(pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [%s]%s /Rotate %d /Resources << /Font << /F1 %d"
                            b" 0 R >> >> /Contents %d 0 R >>" % (tree, media, box, rotate, font, content)))
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)


def annotated_pdf(path: Path, pages: list[tuple[str, list[str]]], info: str = "") -> Path:
    """Pages of Helvetica text (one line each, "" for a blank page) with annotations: (page text, the annotation
    dictionaries on it as written, "{p}" in one standing for the page's object number); `info`: the document
    information dictionary's entries ("/Title (A title)")."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for text, annots in pages:
        page = pdf.reserve()
        refs = [pdf.add(a.replace("{p}", str(page)).encode("latin-1")) for a in annots]
        body = _lines(b"/F1", [_literal(text)]) if text else b""
        pdf.set(page, b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                      b" /Contents %d 0 R /Annots [%s] >>" % (tree, font, pdf.stream(body),
                                                             b" ".join(b"%d 0 R" % r for r in refs)))
        kids.append(page)
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    trailer = b" /Info %d 0 R" % pdf.add(b"<< %s >>" % info.encode("latin-1")) if info else b""
    return pdf.write(path, catalog, trailer)


def ligature_name_pdf(path: Path, text: str) -> Path:
    """A one-page PDF of `text` in Helvetica whose encoding names codes 1-4 by ligature glyph names without a
    Unicode map (/f_i, /f_f_i, /f_l, /T_h), as a font made by a typesetting tool does: "\\x01" in `text` draws
    the fi ligature, "\\x02" ffi, "\\x03" fl, "\\x04" Th. pypdf reads them as their names ("of/f_f_ices")."""
    pdf = RawPdf()
    catalog, tree = pdf.reserve(), pdf.reserve()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                   b"/BaseEncoding /WinAnsiEncoding /Differences [1 /f_i /f_f_i /f_l /T_h] >> >>")
    stream = pdf.stream(b"BT /F1 12 Tf 72 720 Td %s Tj ET\n" % _literal(text))
    page = pdf.add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
                   b" /Contents %d 0 R >>" % (tree, font, stream))
    pdf.set(tree, b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page)
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    return pdf.write(path, catalog)
