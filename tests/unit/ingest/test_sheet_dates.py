"""Dates in spreadsheets read as dates: an Excel cell formatted as a date holds a serial number (42731) and
must read `2016-12-27`; an ODS date cell reads as LibreOffice shows it, or its office:date-value."""

from __future__ import annotations

import zipfile
from pathlib import Path

from searchapp.ingest.extractors import extract

from office_files import REL, make_xlsx, write_zip

# cellStyleXfs comes first and holds a date format too: only cellXfs (a cell's s attribute) counts.
STYLES = ('<numFmts count="4"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/>'
          '<numFmt numFmtId="165" formatCode="0.00&quot; days&quot;"/>'
          '<numFmt numFmtId="166" formatCode="[$-409]mmmm d, yyyy;@"/>'
          '<numFmt numFmtId="167" formatCode="&quot;Week &quot;0;[Red]\\-0"/></numFmts>'
          '<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>'
          '<cellXfs count="9"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164"/>'
          '<xf numFmtId="165"/><xf numFmtId="21"/><xf numFmtId="46"/><xf numFmtId="166"/><xf numFmtId="167"/>'
          '<xf numFmtId="22"/></cellXfs>'
          '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>')


def _with_styles(path: Path, styles: str, date1904: bool = False) -> Path:
    """The workbook make_xlsx wrote, given xl/styles.xml (and the 1904 date system when asked)."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i).decode() for i in z.infolist()}
    parts["xl/styles.xml"] = f'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' \
                             f'{styles}</styleSheet>'
    rels = parts["xl/_rels/workbook.xml.rels"]
    parts["xl/_rels/workbook.xml.rels"] = rels.replace(
        "</Relationships>", f'<Relationship Id="rIdT" Type="{REL}/styles" Target="styles.xml"/></Relationships>')
    if date1904:
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace("<sheets>", '<workbookPr date1904="1"/><sheets>')
    return write_zip(path, parts)


def _row(*cells: str) -> str:
    return "<row>" + "".join(cells) + "</row>"


def test_xlsx_cells_formatted_as_dates_read_as_dates(tmp_path: Path) -> None:
    rows = (_row('<c s="1"><v>42731</v></c>', '<c s="0"><v>42731</v></c>', '<c><v>42731</v></c>')
            + _row('<c s="2"><v>42731.5729166667</v></c>', '<c s="8"><v>42731.25</v></c>',
                   '<c s="1"><f>TODAY()</f><v>45000</v></c>')
            + _row('<c s="3"><v>3</v></c>', '<c s="7"><v>12</v></c>', '<c s="6"><v>36526</v></c>')
            + _row('<c s="4"><v>0.5625</v></c>', '<c s="5"><v>1.5625</v></c>', '<c s="1"><v>-5</v></c>',
                   '<c s="99"><v>42731</v></c>', '<c s="x"><v>42731</v></c>')
            + _row('<c s="1"><v>60</v></c>', '<c s="1"><v>59</v></c>', '<c s="1"><v>61</v></c>')
            + _row('<c t="d"><v>2016-12-27T00:00:00Z</v></c>', '<c t="d"><v>2016-12-27T13:45:00</v></c>',
                   '<c t="s" s="1"><v>0</v></c>', '<c t="b" s="1"><v>1</v></c>'))
    path = _with_styles(make_xlsx(tmp_path / "d.xlsx", [("Dates", rows)], ["<si><t>Not a date</t></si>"]), STYLES)
    lines = extract(path).text.split("\n")
    assert lines[1] == "2016-12-27 | 42731 | 42731"  # formatted as a date; General; no style
    assert lines[2] == "2016-12-27 13:45 | 2016-12-27 06:00 | 2023-03-15"  # custom, built-in 22, a formula's value
    assert lines[3] == "3 | 12 | 2000-01-01"  # "0.00 days" and "Week 0" hold letters in quotes only
    assert lines[4] == "13:30:00 | 37:30:00 | -5 | 42731 | 42731"  # a time, a duration; no such date or style
    assert lines[5] == "1900-02-29 | 1900-02-28 | 1900-03-01"  # Excel's own 29 February 1900
    assert lines[6] == "2016-12-27 | 2016-12-27T13:45:00 | Not a date | TRUE"  # ISO cells; text stays text


def test_xlsx_dates_of_a_1904_workbook(tmp_path: Path) -> None:
    path = _with_styles(make_xlsx(tmp_path / "m.xlsx", [("S", _row('<c s="1"><v>41269</v></c>'))], []),
                        STYLES, date1904=True)
    assert extract(path).text == "S\n2016-12-27"


def test_xlsx_broken_or_missing_styles_keep_numbers(tmp_path: Path) -> None:
    rows = _row('<c s="1"><v>42731</v></c>', '<c><v>7</v></c>')
    assert extract(make_xlsx(tmp_path / "n.xlsx", [("S", rows)], [])).text == "S\n42731 | 7"
    broken = _with_styles(make_xlsx(tmp_path / "b.xlsx", [("S", rows)], []), "<cellXfs><xf numFmtId='14'/><xf")
    assert extract(broken).text == "S\n42731 | 7"


ODS_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')


def test_ods_date_cells_read_as_dates(tmp_path: Path) -> None:
    # As LibreOffice writes them: the value in office: attributes, what it shows in a paragraph; some
    # writers leave the paragraph out, and then the value is what there is to read.
    def cell(attrs: str, shown: str = "") -> str:
        body = f"<text:p>{shown}</text:p>" if shown else ""
        return f"<table:table-cell {attrs}>{body}</table:table-cell>"

    row = "".join((cell('office:value-type="date" office:date-value="2016-12-27"', "12/27/16"),
                   cell('office:value-type="date" office:date-value="2016-12-27"'),
                   cell('office:value-type="date" office:date-value="2016-12-27T13:45:00"'),
                   cell('office:value-type="time" office:time-value="PT13H45M00S"'),
                   cell('office:value-type="float" office:value="42731"'),
                   cell('office:value-type="boolean" office:boolean-value="true"'),
                   cell('office:value-type="string" office:string-value="Quince"')))
    content = (f'<office:document-content {ODS_NS}><office:body><office:spreadsheet><table:table table:name="T">'
               f"<table:table-row>{row}</table:table-row></table:table></office:spreadsheet></office:body>"
               "</office:document-content>")
    path = write_zip(tmp_path / "d.ods", {"mimetype": "application/vnd.oasis.opendocument.spreadsheet",
                                          "content.xml": content})
    assert extract(path).text == "T\n12/27/16 | 2016-12-27 | 2016-12-27 13:45:00 | 13:45:00 | 42731 | TRUE | Quince"
