"""Image files as page images for OCR, read with Pillow within caps.

Decisions:
- Only the decoders for the formats named in SUFFIXES are allowed (Pillow would otherwise guess among
  dozens of formats from the content); HEIC/HEIF only when the pillow-heif plugin is installed.
- The size in the header is checked before any pixel is decoded: above MAX_IMAGE_PIXELS (a photo of
  100 megapixels is real, a 30,000 x 30,000 PNG is a decompression bomb) the file is refused with a
  reason. Pillow's own bomb warning and error are turned into the same ExtractionError.
- A multi-frame TIFF is a multi-page scan: each frame is a page, at most `max_pages` of them.
- EXIF orientation is applied (a phone photo of a page is often stored sideways).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular

if TYPE_CHECKING:  # Pillow is imported where an image is read, not with this module
    from PIL.Image import Image as PilImage

__all__ = ["SUFFIXES", "MAX_IMAGE_PIXELS", "image_suffixes", "iter_image_pages", "UnreadableImage"]

SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"})
HEIF_SUFFIXES = frozenset({".heic", ".heif"})
_FORMATS = ("PNG", "JPEG", "MPO", "TIFF", "WEBP", "BMP")  # MPO: a phone's JPEG (merged into JPEG in newer Pillow)
MAX_IMAGE_PIXELS = 100_000_000  # decoded pixels of one frame


@functools.lru_cache(maxsize=None)
def _heif_installed() -> bool:
    """Whether the pillow-heif plugin is installed, looked up without importing it: every sync's scan asks, and
    the import (~50 ms on a busy 2-core machine) is paid only when a HEIC file is read (_heif_available)."""
    import importlib.util

    try:
        return importlib.util.find_spec("pillow_heif") is not None
    except (ImportError, ValueError):
        return False


@functools.lru_cache(maxsize=None)
def _heif_available() -> bool:
    # Once per process, at the first HEIC file read: a plugin that is installed but cannot load fails that file
    # ("not a readable image"), as a damaged image does.
    if not _heif_installed():
        return False
    try:
        import pillow_heif  # in the ocr extra
    except ImportError:
        return False
    pillow_heif.register_heif_opener()
    return True


@functools.lru_cache(maxsize=None)
def image_suffixes() -> frozenset[str]:
    """The suffixes OCR can read as images here (HEIC only with pillow-heif installed)."""
    return SUFFIXES | HEIF_SUFFIXES if _heif_installed() else SUFFIXES


@functools.lru_cache(maxsize=None)
def _init_pillow() -> None:
    from PIL import Image

    Image.init()  # registers every plugin: preinit() leaves TIFF and WEBP out


def _formats(path: Path) -> list[str]:
    from PIL import Image

    _init_pillow()
    wanted = _FORMATS + (("HEIF", "AVIF") if path.suffix.lower() in HEIF_SUFFIXES and _heif_available() else ())
    return [f for f in wanted if f in Image.OPEN]


class UnreadableImage(ExtractionError):
    """Bytes the image decoder cannot read (not an image it knows, truncated or corrupt data): the same bytes fail
    the same way every time, so OCR remembers it for them (ocr/document.py) instead of reading them again at
    every sync (four corrupt JPEGs were read again, and listed as newly not indexed, at each of a newcomer's)."""


def _bomb(w: int, h: int) -> ExtractionError:
    return ExtractionError(f"image too large ({w} x {h} pixels > {MAX_IMAGE_PIXELS:,}; a decompression bomb?)")


def iter_image_pages(path: Path, max_pages: int, cancel: Optional[CancelToken] = None) -> Iterator[tuple[int, PilImage]]:
    """(page number, PIL image) for each frame of an image file, up to `max_pages` frames."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    formats = _formats(path)
    with open_regular(path) as fh, warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            im = Image.open(fh, formats=formats)
        except UnidentifiedImageError:
            raise UnreadableImage("not a readable image") from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ExtractionError(f"image too large (> {MAX_IMAGE_PIXELS:,} pixels; a decompression bomb?)") from None
        with im:
            multi = im.format == "TIFF"
            for index in range(max_pages if multi else 1):  # frames met one by one: see frame_count
                if cancel is not None:
                    cancel.check()
                try:
                    try:
                        im.seek(index)
                    except EOFError:  # the last frame was the one before
                        return
                    w, h = im.size
                    if w * h > MAX_IMAGE_PIXELS:
                        raise _bomb(w, h)
                    im.load()
                    page = ImageOps.exif_transpose(im)
                except ExtractionError:
                    raise
                except (Image.DecompressionBombError, Image.DecompressionBombWarning):
                    raise _bomb(*im.size) from None
                except (OSError, ValueError, SyntaxError) as exc:  # truncated or corrupt data
                    if isinstance(exc, OSError) and exc.errno is not None:  # the disk's or the share's, not the
                        raise ExtractionError(f"cannot read image: {exc}"[:300]) from None  # bytes': tried again
                    raise UnreadableImage(f"corrupt image: {exc}"[:300]) from None
                yield index + 1, page


def frame_count(path: Path, most: int) -> int:
    """How many pages (frames) an image file has, counted up to `most`. Not Pillow's n_frames: it walks every
    frame of a TIFF, in time quadratic in their number (its loop check looks through a list of the frames
    before), before any cap applies: 40,000 frames took 23 s, 400,000 ~40 min."""
    from PIL import Image

    with open_regular(path) as fh, Image.open(fh, formats=_formats(path)) as im:
        if im.format != "TIFF":
            return 1
        for index in range(1, most):
            try:
                im.seek(index)
            except EOFError:
                return index
        return most
