"""The OLE compound file (CFB) that holds a legacy Office file (.doc, .xls, .ppt, .msg), read through olefile with
caps, and what a legacy suffix holds when it is not one.

Before olefile parses a file, its directory chain is walked here (ole_encrypted.directory_names): a loop or a FAT
count larger than the file fails the file with the reason, and a password-protected file is told by its streams.
olefile then runs leniently (a wrong CLSID or a stream listed twice does not stop a real file being read): the
directory check above and the size checks below are what bound it. A stream is read only when the directory's
size for it is within the reader's cap and the file's own size, so a FAT loop under a stream re-reads at most
that many bytes. Nothing is executed: olefile and xlrd only parse bytes (neither unpickles nor runs macros).

Old names often hold other things: a .doc saved by a newer Word as .docx, an .xls that is an HTML or CSV
export. `sniff` tells them apart by their first bytes, so each is read by the reader of what it is.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO, Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.safe_open import open_regular
from .ole_encrypted import ENCRYPTED, OLE_MAGIC, OleStructureError, directory_names, names_encrypted
from .ziputil import PartTooLarge

__all__ = ["OleFile", "sniff", "corrupt"]


def corrupt(what: str) -> ExtractionError:
    return ExtractionError(f"corrupt {what}"[:300])


def sniff(path: Path) -> str:
    """"ole", "zip", "html", "rtf" or "" by the file's first bytes."""
    with open_regular(path) as fh:
        head = fh.read(512)
    if head.startswith(OLE_MAGIC):
        return "ole"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if head.startswith(b"{\\rtf"):
        return "rtf"
    low = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if low.startswith((b"<html", b"<!doctype html", b"<?xml", b"<table", b"<meta", b"<head")):
        return "html"
    return ""


class OleFile:
    """One compound file, open for reading streams by name ("WordDocument", "__attach_version1.0_#00000000/...")."""

    def __init__(self, path: Path | bytes) -> None:
        import io

        import olefile

        self._fh: BinaryIO = io.BytesIO(path) if isinstance(path, (bytes, bytearray)) else open_regular(path)
        self._below: Optional[dict[str, list[str]]] = None  # `below`'s, made at its first ask
        try:
            self._fh.seek(0, os.SEEK_END)
            self.size = self._fh.tell()
            try:
                names = directory_names(self._fh)
            except (OleStructureError, struct.error) as exc:
                raise corrupt(f"OLE file: {exc}") from None
            if names_encrypted(names):
                raise UnsupportedFileError(ENCRYPTED)
            self._fh.seek(0)
            try:
                self.ole = olefile.OleFileIO(self._fh, raise_defects=olefile.DEFECT_FATAL)
            except (OSError, ValueError, IndexError, struct.error) as exc:  # olefile's OleFileError is an OSError
                raise corrupt(f"OLE file: {exc}") from None
        except BaseException:
            self._fh.close()
            raise

    def __enter__(self) -> "OleFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.ole.close()
        except AttributeError:
            pass
        self._fh.close()

    def exists(self, name: str) -> bool:
        return bool(self.ole.exists(name))

    def storages(self, prefix: str = "") -> list[str]:
        """The storages directly below `prefix` ("" the root), e.g. a message's attachments."""
        depth = prefix.count("/") + 1 if prefix else 0
        out: list[str] = []
        for entry in self.ole.listdir(streams=False, storages=True):
            if len(entry) == depth + 1 and "/".join(entry[:depth]) == prefix.rstrip("/"):
                out.append("/".join(entry))
        return out

    def below(self, storage: str) -> list[str]:
        """Every stream and storage below `storage` ("ObjectPool/_1345470949"), at any depth, from one listing of the
        directory for all the asks: a .doc of 2,000 objects listed its whole directory for each (4.9 s, a reviewer)."""
        if self._below is None:
            self._below = {}
            for entry in self.ole.listdir(streams=True, storages=True):
                name = "/".join(entry)
                for depth in range(1, len(entry)):
                    self._below.setdefault("/".join(entry[:depth]), []).append(name)
        return self._below.get(storage.rstrip("/"), [])

    def stream(self, name: str, cap: int) -> bytes:
        """A stream's bytes. PartTooLarge over `cap`; ExtractionError when it is missing or its size lies."""
        if self.ole.get_type(name) != 2:  # olefile.STGTY_STREAM; False when missing
            raise ExtractionError(f"stream {name} missing")
        try:
            size = self.ole.get_size(name)
            if size > cap:
                raise PartTooLarge(name, cap)
            if size > self.size:
                raise corrupt(f"OLE file: stream {name} claims {size:,} bytes, more than the file's {self.size:,}")
            with self.ole.openstream(name) as fh:
                data: bytes = fh.read(size)  # olefile has no type information
        except ExtractionError:
            raise
        except (OSError, ValueError, IndexError, struct.error) as exc:
            raise corrupt(f"OLE stream {name}: {exc}") from None
        if len(data) < size:  # olefile, lenient, gives what the file still holds: a cut-off file
            raise corrupt(f"OLE file: stream {name} is cut short ({len(data):,} of {size:,} bytes)")
        return data

    def optional(self, name: str, cap: int) -> Optional[bytes]:
        """A small optional stream (a property), or None when missing, too large or broken."""
        try:
            return self.stream(name, cap) if self.ole.exists(name) else None
        except ExtractionError:
            return None
