"""Which extractor reads which suffix, and the one entry point that turns any failure into ExtractionError."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Optional

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.types import Document
from . import docx, epub, html, odt, pdf, sniff, text

__all__ = ["Extractor", "supported_suffixes", "extractor_name", "extract", "DEFAULT_MAX_BYTES"]

DEFAULT_MAX_BYTES = 50 * 2**20

Extractor = Callable[[Path, int], Document]  # (path, max_bytes) -> Document

_BY_NAME: dict[str, tuple[frozenset[str], Extractor]] = {
    "text": (text.SUFFIXES, text.extract_text),
    "html": (html.SUFFIXES, html.extract_html),
    "pdf": (pdf.SUFFIXES, pdf.extract_pdf),
    "docx": (docx.SUFFIXES, docx.extract_docx),
    "odt": (odt.SUFFIXES, odt.extract_odt),
    "epub": (epub.SUFFIXES, epub.extract_epub),
    "sniffed": (frozenset(), sniff.extract_sniffed),  # any other suffix: plain text when the content is
}
_BY_SUFFIX: dict[str, str] = {s: name for name, (suffixes, _) in _BY_NAME.items() for s in suffixes}
_SUFFIXES = frozenset(_BY_SUFFIX)


def supported_suffixes() -> frozenset[str]:
    """Lowercase suffixes with the dot, e.g. '.pdf'."""
    return _SUFFIXES


def extractor_name(path: Path | str) -> Optional[str]:
    """'pdf', 'text', ... for the file's suffix (case-insensitive), or None."""
    return _BY_SUFFIX.get(os.path.splitext(os.fspath(path))[1].lower())


def extract(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Document:
    """The text of one file.

    Raises UnsupportedFileError (no extractor, binary content behind a text suffix, not a regular
    file) or ExtractionError with a short reason; no other exception escapes.
    """
    name = extractor_name(path)
    if name is None:
        suffix = os.path.splitext(os.fspath(path))[1].lower()
        if suffix in sniff.KNOWN_BINARY_SUFFIXES:
            raise UnsupportedFileError(f'unsupported type "{suffix}"')
        name = "sniffed"
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # opening a fifo or device could block forever
            raise UnsupportedFileError("not a regular file")
        if st.st_size > max_bytes:
            raise ExtractionError(f"file too large ({st.st_size / 2**20:.1f} MB > {max_bytes / 2**20:g} MB)")
        return _BY_NAME[name][1](Path(path), max_bytes)
    except ExtractionError:
        raise
    except MemoryError:
        raise ExtractionError("out of memory while extracting") from None
    except RecursionError:
        raise ExtractionError("document structure nested too deeply") from None
    except OSError as exc:
        raise ExtractionError(f"cannot read file: {exc.strerror or exc}") from None
    except Exception as exc:  # library bugs on hostile input: one file fails, the sync goes on
        raise ExtractionError(f"{name} extraction failed: {type(exc).__name__}: {exc}"[:300]) from None
