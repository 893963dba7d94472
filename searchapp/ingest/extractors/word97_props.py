"""Word 97-2003 .doc: which stretches of the text were deleted under tracked changes (MS-DOC 2.4.6, 2.9.33).

A Word document keeps text deleted while changes were tracked until someone accepts the deletion: the characters
stay in the piece table, formatted as deleted (sprmCFRMarkDel). The formatting lives apart from the text: the
FIB's fcPlcfBteChpx/lcbPlcfBteChpx point into the table stream at the PlcBteChpx, which names 512-byte ChpxFkp
pages of the WordDocument stream; each page lists runs of file offsets (FCs) and, per run, a Chpx whose grpprl
holds the run's character sprms. `deleted_spans` returns the FC spans whose sprms mark them deleted; word97 leaves
out the characters of a piece that fall in one.

Hidden text (sprmCFVanish) is kept, as for .docx: it is the writer's own words, and a person may search for it.

Caps: at most as many pages as the WordDocument stream holds, each read once (a page named again is skipped), a
page's run count within what fits in the page, each grpprl within its Chpx's byte count and read once per page,
and at most MAX_SPANS spans kept, merged as they are found (an 8 MB stream whose every page named 100 deleted
runs held 1.6 M spans: 1.5 s and 219 MB); past it the rest of the text is kept as read. Broken formatting never
fails the file: the text is kept as read (every word counts more than a mark).
"""

from __future__ import annotations

import re
import struct
from bisect import bisect_right
from itertools import pairwise

__all__ = ["deleted_spans", "drop_deleted", "MAX_SPANS"]

MAX_SPANS = 100_000  # deleted stretches kept (~12 MB); a long document much revised has thousands
_PAGE = 512
_MAX_RUNS = (_PAGE - 4 - 1) // 5  # a page's crun: (crun + 1) FCs of 4 bytes and crun offsets fit in 511 bytes
_RMARK_DEL = 0x0800  # sprmCFRMarkDel
_ON = (0x01, 0x81)  # ToggleOperand: on, or the opposite of the style (a style is never "deleted")
_DELETED_RUNS = re.compile(b"\x01+")  # in a page's runs, each marked 1 when deleted
# Operand sizes by spra, the sprm's top three bits (MS-DOC 2.2.5.1); 6 is variable: a size byte first.
_OPERAND = {0: 1, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2, 7: 3}
# Word's marks that end a paragraph or a cell: kept even when deleted, so that the words either side of a
# deleted paragraph end do not run together into one that nobody wrote.
_BREAKS = frozenset("\r\x07")


def deleted_spans(word: bytes, bte: bytes) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) FC spans of deleted text, from the PlcBteChpx `bte` (empty when none)."""
    n = (len(bte) - 4) // 8
    if n <= 0 or (len(bte) - 4) % 8:
        return []
    spans: list[tuple[int, int]] = []
    read: set[int] = set()
    for i in range(min(n, len(word) // _PAGE)):
        pn = struct.unpack_from("<I", bte, 4 * (n + 1) + 4 * i)[0] & 0x3FFFFF  # PnFkpChpx: the low 22 bits
        if pn in read:  # named again: its runs are spans already
            continue
        read.add(pn)
        for start, end in _page_spans(word, pn * _PAGE):
            if spans and spans[-1][0] <= start <= spans[-1][1]:  # runs in FC order: most join the last span
                spans[-1] = (spans[-1][0], max(spans[-1][1], end))
            elif len(spans) >= MAX_SPANS:
                return _merged(spans)
            else:
                spans.append((start, end))
    return _merged(spans)


def _page_spans(word: bytes, at: int) -> list[tuple[int, int]]:
    """The deleted runs of the ChpxFkp at `at`: crun in its last byte, then rgfc and rgb from its start. Runs
    side by side are one span; each Chpx is read once (runs of the same formatting share one)."""
    page = word[at:at + _PAGE]
    if len(page) < _PAGE:
        return []
    crun = min(page[-1], _MAX_RUNS)
    fcs = struct.unpack_from(f"<{crun + 1}I", page, 0)
    rgb = page[4 * (crun + 1):4 * (crun + 1) + crun]  # per run, a word offset into the page; 0: no properties
    marks = bytearray(256)
    for offset in set(rgb) - {0}:
        marks[offset] = _is_deleted(page, 2 * offset)
    out = []
    for found in _DELETED_RUNS.finditer(rgb.translate(marks)):
        first, last = found.span()  # runs first..last-1, their FCs fcs[first]..fcs[last]
        block = fcs[first:last + 1]
        if list(block) == sorted(set(block)):  # in order, as Word writes them: one span
            out.append((block[0], block[-1]))
        else:  # out of order: each run on its own, the empty or backwards ones left out
            out += [(a, b) for a, b in pairwise(block) if a < b]
    return out


def _is_deleted(page: bytes, at: int) -> bool:
    """Whether the Chpx at `at` (cb, then cb bytes of sprms) marks its run deleted; the last such sprm wins."""
    cb = page[at]
    grpprl = page[at + 1:at + 1 + cb]
    deleted, pos = False, 0
    while pos + 2 <= len(grpprl):
        sprm = struct.unpack_from("<H", grpprl, pos)[0]
        pos += 2
        size = _OPERAND.get(sprm >> 13)
        if size is None:  # variable: its size in the next byte
            if pos >= len(grpprl):
                break
            size = 1 + grpprl[pos]
        if sprm == _RMARK_DEL and pos < len(grpprl):
            deleted = grpprl[pos] in _ON
        pos += size
    return deleted


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def drop_deleted(text: str, start: int, width: int, spans: list[tuple[int, int]]) -> str:
    """`text`, stored from FC `start` with `width` bytes a character, less its characters inside `spans`."""
    if not spans:
        return text
    end = start + width * len(text)
    i = max(bisect_right(spans, (start, start)) - 1, 0)
    out, kept = [], 0  # kept: the first character not yet copied or dropped
    while i < len(spans) and spans[i][0] < end:
        a, b = spans[i]
        i += 1
        if b <= start:
            continue
        lo = max(0, -(-(a - start) // width))
        hi = min(len(text), -(-(b - start) // width))
        if lo < kept:
            lo = kept
        if lo >= hi:
            continue
        out.append(text[kept:lo])
        out.append("".join(c for c in text[lo:hi] if c in _BREAKS))
        kept = hi
    out.append(text[kept:])
    return "".join(out)
