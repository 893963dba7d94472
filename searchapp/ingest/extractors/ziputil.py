"""Safe access to zip containers (DOCX, ODT, EPUB): bounded decompression and defused XML."""

from __future__ import annotations

import codecs
import io
import locale
import os
import zipfile
import zlib
from pathlib import Path
from typing import IO, Iterator, Mapping, Optional, Protocol, Sequence, cast
from xml.etree.ElementTree import Element, ParseError

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.safe_open import open_regular
from .ole_encrypted import ENCRYPTED, is_encrypted_office

__all__ = ["SafeZip", "PartTooLarge", "bomb_reason", "parse_xml", "iterparse_xml", "entry_name", "MAX_TOTAL_BYTES", "MAX_RATIO", "MAX_MEMBERS", "TRUNCATED",
           "MAX_METADATA_BYTES", "local_name"]

MAX_TOTAL_BYTES = 200 * 2**20  # uncompressed, all members together
MAX_RATIO = 100  # uncompressed / compressed, per member
# What a zip whose end was cut off is said to be ("archive" or "document"): its members' directory, written last, is
# gone, and "corrupt zip container: File is not a zip file" (zipfile's words) told a person nothing of why. A tar
# cut short is said in the same words (members.py), once the members before the cut are read
TRUNCATED = "the {} is cut short (truncated): an incomplete download or copy?"
_END_RECORD_REACH = 22 + 65_535  # the end record and the longest comment it may carry
RATIO_FLOOR = 2**20  # members smaller than this may compress as well as they like
MAX_MEMBERS = 10_000
MAX_METADATA_BYTES = 2**20  # docProps/core.xml, meta.xml: a few KB in any real file
_READ_CHUNK = 2**16
# Zip compression methods zipfile cannot read (APPNOTE 4.4.5), named as archivers name them.
_METHODS = {1: "shrink", 2: "reduce", 3: "reduce", 4: "reduce", 5: "reduce", 6: "implode", 9: "deflate64",
            10: "implode (old IBM TERSE)", 12: "bzip2", 14: "lzma", 18: "IBM TERSE", 19: "IBM LZ77 z",
            93: "zstandard", 95: "xz", 96: "jpeg", 97: "wavpack", 98: "ppmd"}


class PartTooLarge(ExtractionError):
    """A part over the byte cap its reader set: refused before reading, or cut where the cap was crossed."""

    def __init__(self, part: str, max_bytes: int) -> None:
        super().__init__(f"{part} is larger than {_size(max_bytes)}")
        self.part, self.max_bytes = part, max_bytes

    def cut_note(self) -> str:
        """The note of a reader that keeps what it read before the cap."""
        return f"{self.part}: only its first {_size(self.max_bytes)} read"


def _cut_short(fh: IO[bytes], exc: Exception) -> bool:
    """Whether a zip that zipfile could not open begins as a zip (a local file header) but holds no end record
    where one must be (the last 64 KB: the record and its comment), the directory of its members being written
    last: a download or a copy that stopped before the end, not a zip broken inside."""
    if not isinstance(exc, zipfile.BadZipFile):
        return False
    fh.seek(0)
    if fh.read(4) != b"PK\x03\x04":
        return False
    size = fh.seek(0, os.SEEK_END)
    fh.seek(max(0, size - _END_RECORD_REACH))
    return b"PK\x05\x06" not in fh.read()


def _size(n: int) -> str:
    return f"{n // 2**20} MB" if n >= 2**20 else f"{n:,} bytes"


def local_name(tag: str) -> str:
    """'{namespace}p' -> 'p'."""
    return tag.rpartition("}")[2]


class SafeZip:
    """A zip opened read-only after checking its directory for zip-bomb signs (entry count, total size).

    Every read is also capped while streaming, so a lying header cannot make us inflate more
    than MAX_TOTAL_BYTES in total. The compression ratio is judged for the parts that are read, when they are
    read: a document's preview image that compresses 130:1 (an embedded object's EMF in a .docx) is never
    inflated, so it must not refuse the document's text. An archive (`archive=True`) is judged member by member
    too: its directory's total is not refused whole, as a document's is; members.py's budget names the members
    past it, and a member that compresses like a bomb is refused alone, never inflated (a person's zip of notes
    with one such member kept the notes out).
    """

    def __init__(self, path: Path | bytes, max_total: int = MAX_TOTAL_BYTES, *, archive: bool = False) -> None:
        """`path`: a file, or the bytes of a zip held in memory (a zip inside an archive: never written out)."""
        self.max_total = max_total
        self.archive = archive
        self.read_so_far = 0
        fh = self._fh = io.BytesIO(path) if isinstance(path, (bytes, bytearray)) else open_regular(path)
        try:
            self.zf = zipfile.ZipFile(fh)  # closing the ZipFile leaves fh open: close() closes both
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            try:  # the file already open, never the path again (a FIFO or link may be there by now)
                encrypted = is_encrypted_office(fh)  # a password-protected .docx/.xlsx is an OLE file, not a broken zip
                cut_short = _cut_short(fh, exc)
            finally:
                fh.close()
            if encrypted:
                raise UnsupportedFileError(ENCRYPTED) from None
            if cut_short:
                raise ExtractionError(TRUNCATED.format("archive" if archive else "document")) from None
            raise ExtractionError(f"corrupt zip container: {exc}") from None
        except BaseException:
            fh.close()
            raise
        try:
            self._check()
            self.names = {i.filename: i for i in self.zf.infolist()}
        except BaseException:
            self.close()
            raise
        self._folded = {name.lower(): name for name in self.names}

    def _check(self) -> None:
        infos = self.zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ExtractionError(f"zip bomb: more than {MAX_MEMBERS} members")
        total = sum(i.file_size for i in infos)
        if total > self.max_total and not self.archive:
            raise ExtractionError(f"zip bomb: uncompressed size exceeds {self.max_total // 2**20} MB")

    def __enter__(self) -> "SafeZip":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.zf.close()
        self._fh.close()

    def find(self, name: str) -> Optional[str]:
        """The stored member name for `name` (exact, else case-insensitive), or None."""
        if name in self.names:
            return name
        return self._folded.get(name.lower())

    def read(self, name: str) -> bytes:
        """A member's bytes; ExtractionError if missing, encrypted, corrupt, or over the budget."""
        stored = self.find(name)
        if stored is None:
            raise ExtractionError(f"missing part {name}")
        _check_ratio(self.names[stored])
        budget = self.max_total - self.read_so_far
        out = bytearray()
        try:
            with self.zf.open(self.names[stored]) as fh:
                while chunk := fh.read(_READ_CHUNK):
                    out += chunk
                    if len(out) > budget:
                        raise ExtractionError(
                            f"zip bomb: uncompressed size exceeds {self.max_total // 2**20} MB")
        except ExtractionError:
            raise
        except RuntimeError as exc:
            raise _member_error(self.names[stored], exc) from None
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as exc:
            raise ExtractionError(f"corrupt zip member {name}: {exc}") from None
        self.read_so_far += len(out)
        return bytes(out)

    def iterparse(self, name: str, events: Sequence[str] = ("start", "end"),
                  max_bytes: Optional[int] = None) -> Iterator[tuple[str, Element]]:
        """Stream a member's XML as (event, element) pairs, with the same defusing and byte budget as `read`:
        the caller can drop what it has used, so a huge part never sits in memory as one tree. Past
        `max_bytes` of this part, PartTooLarge is raised where the cap is crossed: what came before it
        has been seen (see xmlstream.py for a stream that also drops what it has passed)."""
        stored = self.find(name)
        if stored is None:
            raise ExtractionError(f"missing part {name}")
        _check_ratio(self.names[stored])
        try:
            with self.zf.open(self.names[stored]) as raw:
                yield from iterparse_xml(_Budgeted(raw, self, name, max_bytes), name, events)
        except RuntimeError as exc:  # iterparse_xml's and the budget's ExtractionErrors pass through as they are
            raise _member_error(self.names[stored], exc) from None
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
            raise ExtractionError(f"corrupt zip member {name}: {exc}") from None

    def xml(self, name: str) -> Element:
        """Parse a member as XML with DTDs, entities and external references forbidden."""
        return parse_xml(self.read(name), name)

    def optional_xml(self, name: str, max_bytes: int = MAX_METADATA_BYTES) -> Optional[Element]:
        """A small optional part (metadata), parsed like `xml`; None when it is missing, larger than
        `max_bytes`, or broken in any way: the document's text is readable without it."""
        stored = self.find(name)
        if stored is None or self.names[stored].file_size > max_bytes:
            return None
        try:
            return self.xml(stored)
        except ExtractionError:
            return None


# A name without the zip's UTF-8 flag is in whatever code page the zipping machine used: zipfile reads it as
# cp437 (the format's default), which turns a Japanese or Chinese Windows user's names into box drawings
# ("╔≤╝╞"). Valid UTF-8 is taken as such (many tools write it unflagged; legacy bytes rarely form it); else the
# candidates are scored by what names are made of, cp437 winning ties (_entry_score). Korean bytes read as GBK
# are as plausible Chinese as they are Korean (both two bytes a character, the same ranges), so among the CJK code
# pages the one of this machine's language comes first and wins such ties: a Korean desktop's zips are mostly
# made on Korean Windows, a Chinese desktop's on Chinese Windows (_name_codecs).
_NAME_CODECS = ("cp932", "gbk", "cp949", "big5")
_LANGUAGE_CODECS = (("ko", "cp949"), ("ja", "cp932"), ("zh_tw", "big5"), ("zh_hk", "big5"), ("zh", "gbk"))


def _name_codecs(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """_NAME_CODECS, this machine's own first: its language from the POSIX locale variables, or Windows' code
    page (locale.getencoding(): "cp949" on a Korean Windows)."""
    lang = (environ.get("LC_ALL") or environ.get("LC_CTYPE") or environ.get("LANG") or "").lower().replace("-", "_")
    own = next((codec for prefix, codec in _LANGUAGE_CODECS if lang.startswith(prefix)), None)
    if own is None:
        try:
            own = codecs.lookup(locale.getencoding()).name
        except (LookupError, AttributeError, ValueError):
            own = None
        own = {"euc_kr": "cp949", "shift_jis": "cp932", "gb2312": "gbk"}.get(own or "", own)
    if own not in _NAME_CODECS:
        return _NAME_CODECS
    return (own,) + tuple(c for c in _NAME_CODECS if c != own)


def entry_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its maker wrote it: UTF-8 when flagged or valid, else the likeliest code page."""
    if info.flag_bits & 0x800 or info.filename.isascii():
        return info.filename
    try:
        raw = info.filename.encode("cp437")
    except UnicodeEncodeError:  # not what zipfile decodes as cp437: keep it
        return info.filename
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best, best_score = info.filename, _entry_score(info.filename)
    for codec in _name_codecs():
        try:
            name = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        score = _entry_score(name)
        if score > best_score:
            best, best_score = name, score
    return best


def _entry_score(name: str) -> int:
    """Letters, signs and scripts file names are written in count for; box drawings, half-width katakana, Greek
    and mathematical signs and control characters (what a wrong code page makes of them) count against. A CJK
    character stands for two bytes and counts two, so a cp437 name of plain Latin-1 characters (`20°C`, `£`,
    `café`) keeps the tie it wins against the same bytes read as one ideograph."""
    score = 0
    for ch in name:
        o = ord(ch)
        if 0x20 <= o < 0x7F or 0xA0 <= o <= 0xFF:  # ASCII, Latin-1's letters and signs (é, °, £, µ, ¿, ß)
            score += 1
        elif 0x3000 <= o <= 0x30FF or 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xFF01 <= o <= 0xFF5E:
            score += 2  # one character for two bytes: CJK punctuation, kana, ideographs, hangul, full-width forms
        else:
            score -= 2
    return score


def bomb_reason(info: zipfile.ZipInfo) -> str:
    """Why `info` is refused as a zip bomb by its directory entry (it compresses more than MAX_RATIO:1), or ""."""
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        return f"zip bomb: {info.filename} compresses more than {MAX_RATIO}:1"
    return ""


def _check_ratio(info: zipfile.ZipInfo) -> None:
    why = bomb_reason(info)
    if why:
        raise ExtractionError(why)


def _member_error(info: zipfile.ZipInfo, exc: RuntimeError) -> ExtractionError:
    """Why zipfile would not open a member. It raises RuntimeError for an encrypted one, and NotImplementedError (a
    RuntimeError) for a compression method it lacks (deflate64, ppmd...): no encryption, so the flag says which."""
    if info.flag_bits & 0x1 or info.compress_type == 99:  # 99: WinZip AES, the method an AES member is marked with
        return UnsupportedFileError(ENCRYPTED)  # skipped, as an encrypted Office file is: not read again each sync
    method = _METHODS.get(info.compress_type, f"method {info.compress_type}")
    return ExtractionError(f"unsupported compression method: {method}")


class _Budgeted:
    """A member's stream that counts what it inflates against the zip's total budget."""

    def __init__(self, raw: IO[bytes], zip_: SafeZip, name: str, max_bytes: Optional[int] = None) -> None:
        self.raw, self.zip, self.name, self.max_bytes = raw, zip_, name, max_bytes
        self.read_here = 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            return b"".join(iter(lambda: self.read(_READ_CHUNK), b""))
        data = self.raw.read(min(n, _READ_CHUNK))
        self.read_here += len(data)
        if self.max_bytes is not None and self.read_here > self.max_bytes:
            raise PartTooLarge(self.name, self.max_bytes)
        self.zip.read_so_far += len(data)
        if self.zip.read_so_far > self.zip.max_total:
            raise ExtractionError(f"zip bomb: uncompressed size exceeds {self.zip.max_total // 2**20} MB")
        return data


def _unsafe(name: str, exc: Exception) -> ExtractionError:
    """What a person reads of XML defusedxml refused: what it declared, in words (its repr, "DTDForbidden(name='foo',
    system_id=None, public_id=None)", reached the Not indexed list)."""
    what = {"DTDForbidden": "a document type declaration (DTD)", "EntitiesForbidden": "entity declarations",
            "ExternalReferenceForbidden": "a reference to an outside file", "NotSupportedError": "an unsupported feature"
            }.get(type(exc).__name__, "something refused")
    return ExtractionError(f"unsafe XML: {name} holds {what}, never read (a trick that can make a reader hang or "
                           "read other files)")


def parse_xml(data: bytes, name: str = "XML") -> Element:
    import defusedxml.ElementTree as DET
    from defusedxml import DefusedXmlException

    try:
        # defusedxml has no type information; its fromstring is ElementTree's, which returns the root Element
        return cast(Element, DET.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True))
    except DefusedXmlException as exc:
        raise _unsafe(name, exc) from None
    except (ParseError, ValueError) as exc:
        raise ExtractionError(f"corrupt XML in {name}: {exc}") from None


class Readable(Protocol):
    """What the XML parser reads from: a file, or a zip member counted against its budget (_Budgeted)."""

    def read(self, n: int = -1) -> bytes: ...


def iterparse_xml(source: Readable, name: str = "XML",
                  events: Sequence[str] = ("start", "end")) -> Iterator[tuple[str, Element]]:
    """`parse_xml` as a stream of (event, element) pairs, for a file that is not a zip part (SafeZip.iterparse
    is for those): the caller drops what it has used, so a large file never becomes one tree."""
    import defusedxml.ElementTree as DET
    from defusedxml import DefusedXmlException

    try:
        yield from DET.iterparse(source, events=events, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise _unsafe(name, exc) from None
    except (ParseError, ValueError) as exc:
        raise ExtractionError(f"corrupt XML in {name}: {exc}") from None
