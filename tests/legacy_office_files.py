"""Word, Excel and PowerPoint 97-2003 files and Outlook .msg files, made by the tests (searchapp's own ole_writer.py
writes the compound file, as it writes an embedded document's; the damage helpers below find their places in it). Each writes the records its reader needs, as Office lays them out (MS-DOC, MS-XLS, MS-PPT, MS-OXMSG),
and no more; hostile variants damage one of them."""

from __future__ import annotations

import struct

from searchapp.ingest.extractors.ole_writer import compound_file as cfb

def _sector(data: bytes, number: int) -> int:
    """Where sector `number` of a compound file starts (after its header, which is one sector long)."""
    size = 1 << struct.unpack_from("<H", data, 0x1E)[0]
    return size * (1 + number)


def directory_entry(data: bytes, entry: int) -> int:
    """Where directory entry `entry` starts (the directory's sectors one after another, as ole_writer writes it)."""
    return _sector(data, struct.unpack_from("<I", data, 0x30)[0]) + 128 * entry


def entry_number(data: bytes, name: str) -> int:
    """The number of the directory entry named `name` (its last part)."""
    raw = name.encode("utf-16-le") + b"\0\0"
    for entry in range(4096):
        at = directory_entry(data, entry)
        if data[at:at + len(raw)] == raw and struct.unpack_from("<H", data, at + 64)[0] == len(raw):
            return entry
    raise KeyError(name)


def set_fat(data: bytes, sector: int, value: int) -> bytes:
    """`data` with the FAT entry of `sector` set to `value` (in the first FAT sector, the header's first)."""
    out = bytearray(data)
    struct.pack_into("<I", out, _sector(data, struct.unpack_from("<I", data, 0x4C)[0]) + 4 * sector, value)
    return bytes(out)


def set_stream_size(data: bytes, entry: int, size: int) -> bytes:
    """`data` with directory entry `entry`'s stream size set to `size` (a size that lies)."""
    out = bytearray(data)
    struct.pack_into("<I", out, directory_entry(data, entry) + 0x78, size)
    return bytes(out)


TEXT_AT = 1024  # where the document's text starts in the WordDocument stream (past the FIB)


def word_stream(pieces: list[tuple[str, bool]], flags: int = 0x0200, word6: bool = False) -> tuple[bytes, bytes]:
    """(WordDocument, table stream) for a document whose text is `pieces`: (text, compressed) each, compressed
    meaning 8-bit cp1252, else UTF-16LE. `flags`: the FIB's (0x0200 fWhichTblStm: 1Table; 0x0100 fEncrypted)."""
    csw, cslw, pairs = 14, 22, 93
    fib = bytearray(32 + 2 + 2 * csw + 2 + 4 * cslw + 2 + 8 * pairs)
    struct.pack_into("<HH", fib, 0, 0xA5DC if word6 else 0xA5EC, 104 if word6 else 193)
    struct.pack_into("<H", fib, 0x0A, flags)
    at = 32
    struct.pack_into("<H", fib, at, csw)
    at += 2 + 2 * csw
    struct.pack_into("<H", fib, at, cslw)
    at += 2 + 4 * cslw
    struct.pack_into("<H", fib, at, pairs)
    body = bytearray()
    cps, fcs, cp = [0], [], 0
    for text, compressed in pieces:
        offset = TEXT_AT + len(body)
        if compressed:
            body += text.encode("cp1252")
            fcs.append((offset * 2) | 0x40000000)
        else:
            body += text.encode("utf-16-le")
            fcs.append(offset)
        cp += len(text)
        cps.append(cp)
    plc = struct.pack(f"<{len(cps)}I", *cps) + b"".join(struct.pack("<HIH", 0, fc, 0) for fc in fcs)
    clx = b"\x02" + struct.pack("<I", len(plc)) + plc
    table = b"\0" * 16 + clx
    struct.pack_into("<II", fib, at + 2 + 8 * 33, 16, len(clx))  # fcClx, lcbClx
    if word6:
        struct.pack_into("<II", fib, 0x18, TEXT_AT, TEXT_AT + len(body))  # fcMin, fcMac
    word = bytes(fib).ljust(TEXT_AT, b"\0") + bytes(body)
    return word, table


def make_doc(pieces: list[tuple[str, bool]], flags: int = 0x0200, word6: bool = False) -> bytes:
    word, table = word_stream(pieces, flags, word6)
    streams = {"WordDocument": word}
    if not word6:
        streams["1Table" if flags & 0x0200 else "0Table"] = table
    return cfb(streams)


def record(kind: int, body: bytes, container: bool = False, instance: int = 0) -> bytes:
    """One PowerPoint record: its header (version/instance, type, length), then its body."""
    return struct.pack("<HHI", (instance << 4) | (0xF if container else 0), kind, len(body)) + body


def text_atom(text: str, unicode: bool = True) -> bytes:
    header = record(0x0F9F, struct.pack("<I", 1))  # TextHeaderAtom: body text
    return header + (record(0x0FA0, text.encode("utf-16-le")) if unicode else record(0x0FA8, text.encode("cp1252")))


def ppt_stream(slides: list[str], master: str = "Click to edit Master title style", extra: bytes = b"") -> bytes:
    """A "PowerPoint Document" stream: the document's SlideListWithText holding each slide's text (alternately
    UTF-16 and 8-bit), a main master holding `master`, then `extra` records."""
    texts = b"".join(text_atom(t, unicode=i % 2 == 0) for i, t in enumerate(slides))
    document = record(0x03E8, record(0x0FF0, texts, container=True), container=True)
    main_master = record(0x03F8, record(0x0FF0, text_atom(master), container=True), container=True)
    return document + main_master + extra


def make_ppt(slides: list[str], **kw) -> bytes:
    return cfb({"PowerPoint Document": ppt_stream(slides, **kw), "Current User": b"\0" * 20})


def master_shape(text: str, placeholder: bool) -> bytes:
    """A shape on a master (OfficeArtSpContainer) holding `text`; `placeholder`: with an OEPlaceholderAtom in its
    client data, as a template placeholder has."""
    client = record(0xF011, record(0x0BC3, b"\0" * 8), container=True) if placeholder else b""
    return record(0xF004, client + record(0xF00D, text_atom(text), container=True), container=True)


def fast_saved_ppt(old: str, new: str) -> bytes:
    """A presentation saved twice with fast save: the first DocumentContainer (text `old`) left in the stream, a
    second one (`new`) appended, and the edit chain (Current User -> UserEditAtom -> PersistDirectoryAtom) naming
    the second as persist id 1."""
    first = record(0x03E8, record(0x0FF0, text_atom(old), container=True), container=True)
    second = record(0x03E8, record(0x0FF0, text_atom(new), container=True), container=True)
    directory_at = len(first) + len(second)
    directory = record(0x1772, struct.pack("<II", (1 << 20) | 1, len(first)))
    edit_at = directory_at + len(directory)
    edit = record(0x0FF5, struct.pack("<IHBBIIII", 0, 0, 0, 3, 0, directory_at, 1, 2) + b"\0" * 4)
    current_user = struct.pack("<HHI", 0, 0x0FF6, 20) + struct.pack("<III", 20, 0xE391C05F, edit_at) + b"\0" * 8
    return cfb({"PowerPoint Document": first + second + directory + edit, "Current User": current_user})


def _biff(kind: int, body: bytes) -> bytes:
    return struct.pack("<HH", kind, len(body)) + body


def _bof(dt: int) -> bytes:
    return _biff(0x0809, struct.pack("<HHHHII", 0x0600, dt, 0x0DBB, 0x07CC, 0, 0x06))


def graph_stream(version: int = 0x0680) -> bytes:
    """The Workbook stream of a Microsoft Graph chart, as far as a reader looks: a BOF of Graph's own version (0x0680
    in MSGraph.Chart.8, 0x0580 in MSGraph.Chart.5), a chart's series name, EOF."""
    series = _biff(0x100D, struct.pack("<HB", 0, 6) + b"\x01" + "Apples".encode("utf-16-le"))
    return _biff(0x0809, struct.pack("<HHHHII", version, 0x0005, 0x1BC2, 0x07CD, 0, 0x06)) + series + _biff(0x000A, b"")


def _label(row: int, col: int, text: str) -> bytes:
    return _biff(0x0204, struct.pack("<HHHHB", row, col, 15, len(text), 1) + text.encode("utf-16-le"))


def _number(row: int, col: int, value: float) -> bytes:
    return _biff(0x0203, struct.pack("<HHHd", row, col, 15, value))


def workbook_stream(sheets: dict[str, list[list[object]]], filepass: bool = False) -> bytes:
    """A BIFF8 "Workbook" stream: the globals (with 16 default XF records, so xlrd knows cell formats), one
    BOUNDSHEET per sheet, then each sheet's LABEL and NUMBER cells."""
    xf = _biff(0x00E0, struct.pack("<HHHBBBBIIH", 0, 0, 0xFFF5, 0x20, 0, 0, 0, 0, 0, 0x20C0))
    font = _biff(0x0031, struct.pack("<HHHHHBBBB", 200, 0, 0x7FFF, 400, 0, 0, 0, 0, 0) + b"\x05\x01" + "Arial".encode("utf-16-le"))
    globals_ = _bof(0x0005) + (_biff(0x002F, b"\x01\x00" + b"\0" * 52) if filepass else b"") + font * 5 + xf * 16
    bounds = [len(n) for n in sheets]
    bound_size = sum(4 + 8 + n * 2 for n in bounds)
    eof = _biff(0x000A, b"")
    offset = len(globals_) + bound_size + len(eof)
    subs, records = [], []
    for name, rows in sheets.items():
        cells = b""
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if isinstance(value, str) and value:
                    cells += _label(r, c, value)
                elif isinstance(value, (int, float)):
                    cells += _number(r, c, float(value))
        sub = _bof(0x0010) + cells + eof
        records.append(_biff(0x0085, struct.pack("<IBBBB", offset, 0, 0, len(name), 1) + name.encode("utf-16-le")))
        subs.append(sub)
        offset += len(sub)
    return globals_ + b"".join(records) + eof + b"".join(subs)


def make_xls(sheets: dict[str, list[list[object]]], filepass: bool = False) -> bytes:
    return cfb({"Workbook": workbook_stream(sheets, filepass).ljust(4096, b"\0")})


def _props_stream(header: int, fixed: dict[int, bytes]) -> bytes:
    return b"\0" * header + b"".join(struct.pack("<II", tag, 6) + value.ljust(8, b"\0") for tag, value in fixed.items())


def make_msg(subject: str, body: str = "", sender: str = "", to: str = "", html: bytes = b"",
             attachments: dict[str, bytes] | None = None, filetime: int = 0, nested: bool = False, cc: str = "") -> bytes:
    """An Outlook .msg: its properties as UTF-16 streams, the submit time as a fixed property, each attachment a
    storage with its name and bytes (`nested`: one more attachment holding an Outlook item)."""
    def u(text: str) -> bytes:
        return text.encode("utf-16-le")

    streams = {"__substg1.0_0037001F": u(subject), "__substg1.0_0C1A001F": u(sender), "__substg1.0_0E04001F": u(to),
               "__properties_version1.0": _props_stream(32, {0x00390040: struct.pack("<Q", filetime)} if filetime else {})}
    if cc:
        streams["__substg1.0_0E03001F"] = u(cc)
    if body:
        streams["__substg1.0_1000001F"] = u(body)
    if html:
        streams["__substg1.0_10130102"] = html
    for n, (name, data) in enumerate((attachments or {}).items()):
        storage = f"__attach_version1.0_#{n:08X}"
        streams[f"{storage}/__substg1.0_3707001F"] = u(name)
        streams[f"{storage}/__substg1.0_37010102"] = data
        streams[f"{storage}/__properties_version1.0"] = _props_stream(8, {0x37050003: struct.pack("<I", 1)})
    if nested:
        storage = f"__attach_version1.0_#{len(attachments or {}):08X}"
        streams[f"{storage}/__substg1.0_3707001F"] = u("Forwarded item.msg")
        streams[f"{storage}/__substg1.0_3701000D/__substg1.0_0037001F"] = u("inner")
    return cfb(streams)


def ole10_native(label: str, data: bytes) -> bytes:
    """An `\\x01Ole10Native` stream of Windows' Packager holding `data` as the file `label`: its names in cp1252
    ("?" for what it lacks), then again in UTF-16 after the file's bytes, as Windows since Vista writes them."""
    name = label.encode("cp1252", "replace")
    temp = b"C:\\Temp\\" + name + b"\0"
    body = (b"\x02\x00" + name + b"\0" + b"C:\\Users\\ann\\" + name + b"\0" + b"\0\0\x03\x00"
            + struct.pack("<I", len(temp)) + temp + struct.pack("<I", len(data)) + data)
    for text in ("C:\\Temp\\" + label, label, "C:\\Users\\ann\\" + label):
        body += struct.pack("<I", len(text)) + text.encode("utf-16-le")
    return struct.pack("<I", len(body)) + body


def compobj(prog_id: str) -> bytes:
    """An object's `\\x01CompObj` stream naming its class (MS-OLEDS 2.3.8)."""
    def ansi(text: str) -> bytes:
        return struct.pack("<I", len(text) + 1) + text.encode("cp1252") + b"\0"
    header = b"\x01\x00\xfe\xff\x03\x0a\x00\x00\xff\xff\xff\xff" + b"\0" * 16
    return header + ansi(prog_id) + struct.pack("<I", 0) + ansi(prog_id)


def ppt_object(object_cfb: bytes, compressed: bool = True) -> bytes:
    """An ExOleObjStg record holding an embedded object's compound file, zlib-compressed (instance 1) or not."""
    import zlib

    if compressed:
        return record(0x1011, struct.pack("<I", len(object_cfb)) + zlib.compress(object_cfb), instance=1)
    return record(0x1011, object_cfb)


def rtf_object(prog_id: str, native: bytes, linked: bool = False, binary: bool = False) -> bytes:
    """An RTF `{\\object …}` group holding an OLE 1.0 object of class `prog_id` whose data is `native` (a Packager's:
    an Ole10Native stream without its size; any other embedded object's: its compound file), written in hex, or
    (`binary`) its header in hex and the rest as raw bytes after `\\binN`, as the RTF specification allows."""
    cls = prog_id.encode() + b"\0"
    ole1 = struct.pack("<III", 0x0501, 1 if linked else 2, len(cls)) + cls
    ole1 += struct.pack("<II", 0, 0) + struct.pack("<I", len(native)) + native if not linked else b""
    hexed = ole1.hex().encode()
    lines = b"\r\n".join(hexed[i:i + 128] for i in range(0, len(hexed), 128))  # Word breaks it in lines
    if binary:
        lines = ole1[:12].hex().encode() + b"\r\n" + b"\\bin%d " % (len(ole1) - 12) + ole1[12:]
    return (b"{\\object\\objemb{\\*\\objclass " + prog_id.encode() + b"}{\\*\\objdata " + lines
            + b"}{\\result {\\pict\\wmetafile8 0100}}}")
