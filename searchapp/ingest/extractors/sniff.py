"""Files whose name says nothing (README, Makefile, *.Debian, *.nfo): indexed as plain text when the
content is text. Known binary suffixes are left out by name without being opened."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ...base.errors import UnsupportedFileError
from ...base.types import Document
from .encoding import CONTROL_CHARS, clean_text, decode_text, read_capped

__all__ = ["KNOWN_BINARY_SUFFIXES", "extract_sniffed"]

# Formats that are never plain text: skipped quietly (not listed as problems). Program files that are text but
# no document are among them: Thunderbird's .msf (a Mork index of a mailbox beside it: its subjects and senders
# in a table of hex ids, which the mailbox itself gives as messages).
KNOWN_BINARY_SUFFIXES = frozenset(
    "." + s
    for s in (
        "png jpg jpeg gif bmp tif tiff webp ico icns heic heif psd xcf raw cr2 nef svgz "
        "mp3 mp4 m4a m4v aac flac ogg oga opus wav wma avi mov mkv webm wmv mpg mpeg flv "
        "zip gz tgz bz2 xz zst 7z rar tar lz lzma cab iso dmg img deb rpm apk jar war whl egg msi "
        "exe dll so dylib o a lib obj bin dat pyc pyo pyd class wasm elc beam "
        "ttf otf woff woff2 eot "
        "sqlite sqlite3 db mdb accdb pkl pickle npy npz h5 hdf5 parquet feather onnx pt pth safetensors ckpt "
        "xlsb key numbers pages odg "
        "swp swo lock msf"
    ).split()
)
MAX_CONTROL_RATIO = 0.01  # text with a name we do not know must look clean, not just decodable


def extract_sniffed(path: Path, max_bytes: int, data: Optional[bytes] = None, **_caps: object) -> Document:
    if data is None:
        data = read_capped(path, max_bytes)
    if b"\x00" in data:
        raise UnsupportedFileError("not plain text (binary content)")
    try:
        text = clean_text(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        text = decode_text(data)  # a legacy 8-bit encoding, found by charset detection
        sample = text[:8192]
        if "\ufffd" in sample or len(CONTROL_CHARS.findall(sample)) > MAX_CONTROL_RATIO * max(len(sample), 1):
            raise UnsupportedFileError("not plain text (binary content)") from None  # not a decoding failure
    return Document(text, kind="text")
