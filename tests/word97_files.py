"""Word 97-2003 documents with character formatting, made by the tests: the text of legacy_office_files.make_doc,
plus the ChpxFkp page and PlcBteChpx (MS-DOC 2.9.33, 2.8.6) that say which characters are deleted under tracked
changes (sprmCFRMarkDel) or hidden (sprmCFVanish), as Word writes them."""

from __future__ import annotations

import struct

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from legacy_office_files import TEXT_AT, word_stream

DELETED = b"\x00\x08\x01"  # sprmCFRMarkDel, on
HIDDEN = b"\x3c\x08\x01"  # sprmCFVanish, on
_FIB_PAIRS = 32 + 2 + 2 * 14 + 2 + 4 * 22 + 2  # where word_stream's FIB lists its (fc, lcb) pairs
_BTE_CHPX = 12


def fc_spans(pieces: list[tuple[str, bool]], start: int, end: int) -> list[tuple[int, int]]:
    """The file offsets (FCs) of characters start..end of the text, as word_stream lays the pieces out."""
    out, cp, fc = [], 0, TEXT_AT
    for text, compressed in pieces:
        width = 1 if compressed else 2
        lo, hi = max(start, cp), min(end, cp + len(text))
        if lo < hi:
            out.append((fc + (lo - cp) * width, fc + (hi - cp) * width))
        cp += len(text)
        fc += len(text) * width
    return out


def fkp_page(runs: list[tuple[int, int, bytes]]) -> bytes:
    """One ChpxFkp: runs (fc_start, fc_end, grpprl), back to back, each grpprl in a Chpx at the page's end."""
    page = bytearray(512)
    crun = len(runs)
    fcs = [r[0] for r in runs] + [runs[-1][1]]
    struct.pack_into(f"<{crun + 1}I", page, 0, *fcs)
    at = 511
    for k, (_, _, grpprl) in enumerate(runs):
        if grpprl:
            at = (at - 1 - len(grpprl)) & ~1  # Chpx on a 2-byte boundary, found by its word offset
            page[at] = len(grpprl)
            page[at + 1:at + 1 + len(grpprl)] = grpprl
            page[4 * (crun + 1) + k] = at // 2
    page[511] = crun
    return bytes(page)


def make_doc_with_props(pieces: list[tuple[str, bool]], props: list[tuple[int, int, bytes]],
                        bte: bytes | None = None) -> bytes:
    """A .doc of `pieces` whose characters props[i][0]..props[i][1] carry the sprms props[i][2]; `bte`: a
    PlcBteChpx to write instead of the one naming the page (a hostile one)."""
    word, table = word_stream(pieces)
    end = TEXT_AT + sum(len(t) * (1 if c else 2) for t, c in pieces)
    bounds = {TEXT_AT, end}
    for start, stop, _ in props:
        for a, b in fc_spans(pieces, start, stop):
            bounds |= {a, b}
    edges = sorted(bounds)
    runs = []
    for a, b in zip(edges, edges[1:], strict=False):
        inside = [g for s, t, g in props for x, y in fc_spans(pieces, s, t) if x <= a < y]
        runs.append((a, b, inside[-1] if inside else b""))
    pn = -(-len(word) // 512)
    word = word.ljust(pn * 512, b"\0") + fkp_page(runs)
    if bte is None:
        bte = struct.pack("<III", TEXT_AT, end, pn)
    fib = bytearray(word)
    struct.pack_into("<II", fib, _FIB_PAIRS + 8 * _BTE_CHPX, len(table), len(bte))
    return cfb({"WordDocument": bytes(fib), "1Table": table + bte})


def make_word6(text: bytes, fonts: list[tuple[str, int]], lid: int = 0x409) -> bytes:
    """A Word 6/95 .doc: its 8-bit `text` as one run, a font table of (name, charset) as Word 6 writes it (an STTBF
    of FFNs in the WordDocument stream), the FIB's lid saying which language's Word saved it."""
    ffns = b""
    for name, charset in fonts:
        body = struct.pack("<BHBB", 0x16, 400, charset, 0) + name.encode("ascii") + b"\0"  # flags, weight, chs, alt
        ffns += bytes([len(body)]) + body  # cbFfnM1: the FFN's size less one
    sttbf = struct.pack("<H", 2 + len(ffns)) + ffns
    fib = bytearray(TEXT_AT)
    struct.pack_into("<HHHH", fib, 0, 0xA5DC, 101, 0, lid)  # wIdent, nFib, nProduct, lid
    struct.pack_into("<II", fib, 0x18, TEXT_AT, TEXT_AT + len(text))  # fcMin, fcMac
    struct.pack_into("<II", fib, 0xD0, TEXT_AT + len(text), len(sttbf))  # fcSttbfffn, lcbSttbfffn
    return cfb({"WordDocument": bytes(fib) + text + sttbf})
