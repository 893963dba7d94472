"""Open Packaging Conventions (the zip layout of .docx, .xlsx, .pptx): relationships between parts, and the
core-properties title. Shared by the OOXML readers so each resolves targets the same way. The parts read
here are streamed, and one over its byte cap is refused unread (PartTooLarge, with the reason)."""

from __future__ import annotations

import posixpath
from typing import Iterator, Optional

from ...base.errors import ExtractionError
from .title import dc_title
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip

__all__ = ["package_part", "part_relationships", "core_title", "part_size", "listed_parts", "MAX_RELS_BYTES"]

_CORE_PROPERTIES = "/metadata/core-properties"
MAX_RELATIONSHIPS = 100_000  # a .rels part listing more is not a document anyone wrote
MAX_RELS_BYTES = 16 * 2**20  # ~100,000 relationships; a real one (5,000 slides) is under 1 MB


def _resolve(source: str, target: str) -> str:
    """A relationship's Target as a part name: absolute ("/xl/x.xml") or relative to the source part's folder."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), target)).lstrip("/")


def _rels_name(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", name + ".rels")


def part_relationships(z: SafeZip, part: str) -> dict[str, tuple[str, str]]:
    """Id -> (type, target part) of the relationships of `part` ("" for the package); external targets
    (links to the web or other files) are left out: nothing outside the zip is ever read. PartTooLarge
    when the relationships part holds more than MAX_RELS_BYTES."""
    rels = _rels_name(part) if part else "_rels/.rels"
    size = part_size(z, rels)
    if size is None:
        return {}
    if size > MAX_RELS_BYTES:
        raise PartTooLarge(z.find(rels) or rels, MAX_RELS_BYTES)
    out: dict[str, tuple[str, str]] = {}
    n = 0
    for _, name, rel, stack in XmlStream(z, rels, max_bytes=MAX_RELS_BYTES):
        if name != "Relationship" or len(stack) != 1:
            continue
        target = rel.get("Target") or ""
        if target and rel.get("TargetMode", "Internal") != "External":
            out[rel.get("Id", f"#{n}")] = (rel.get("Type", ""), _resolve(part, target))
        n += 1
        if n >= MAX_RELATIONSHIPS:
            break
    return out


def package_part(z: SafeZip, rel_type: str, usual: str) -> str:
    """Target of the package relationship whose type ends with `rel_type`, else the usual name."""
    for type_, target in part_relationships(z, "").values():
        if type_.endswith(rel_type):
            return target
    return usual


def core_title(z: SafeZip) -> str:
    """dc:title of the core properties; "" when they are missing or broken (even their relationships)."""
    try:
        part = package_part(z, _CORE_PROPERTIES, "docProps/core.xml")
    except ExtractionError:
        return ""
    return dc_title(z.optional_xml(part))


def part_size(z: SafeZip, part: str) -> Optional[int]:
    """The uncompressed size the zip directory claims for `part`, or None when it is missing."""
    stored = z.find(part)
    return None if stored is None else z.names[stored].file_size


def listed_parts(z: SafeZip, part: str, max_bytes: int, elements: frozenset[str],
                 what: str) -> Iterator[tuple[str, dict[str, str], str, str]]:
    """(local name, attributes, relationship type, target part) for each element of `part` named in
    `elements`, in order; type and target are those its r:id names ("" without one): a workbook's sheets,
    a presentation's slides. `part` must exist and hold at most `max_bytes`; `what` names the file kind in
    the error ("an Excel workbook")."""
    size = part_size(z, part)
    if size is None:
        raise ExtractionError(f"not {what}: {part} missing")
    if size > max_bytes:
        raise PartTooLarge(part, max_bytes)
    rels = part_relationships(z, part)
    for _, name, el, _ in XmlStream(z, part, max_bytes=max_bytes):
        if name in elements:
            rid = next((v for k, v in el.attrib.items() if k.startswith("{") and k.endswith("}id")), "")
            type_, target = rels.get(rid, ("", ""))
            yield name, dict(el.attrib), type_, target
