"""Open Packaging Conventions (the zip layout of .docx, .xlsx, .pptx): relationships between parts, and the
core-properties title. Shared by the OOXML readers so each resolves targets the same way."""

from __future__ import annotations

import posixpath
from typing import Iterator, Optional

from ...base.errors import ExtractionError
from .title import dc_title
from .ziputil import SafeZip, local_name

__all__ = ["package_part", "part_relationships", "core_title", "part_size", "listed_parts"]

_CORE_PROPERTIES = "/metadata/core-properties"
MAX_RELATIONSHIPS = 100_000  # a .rels part listing more is not a document anyone wrote


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
    (links to the web or other files) are left out: nothing outside the zip is ever read."""
    rels = _rels_name(part) if part else "_rels/.rels"
    if not z.find(rels):
        return {}
    out: dict[str, tuple[str, str]] = {}
    for n, rel in enumerate(z.xml(rels)):
        if n >= MAX_RELATIONSHIPS:
            break
        target = rel.get("Target") or ""
        if target and rel.get("TargetMode", "Internal") != "External":
            out[rel.get("Id", f"#{n}")] = (rel.get("Type", ""), _resolve(part, target))
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


def listed_parts(z: SafeZip, part: str, max_bytes: int, element: str,
                 what: str) -> Iterator[tuple[object, str, str]]:
    """(element, relationship type, target part) for each `element` that `part` lists by r:id, in order: a
    workbook's sheets, a presentation's slides. `part` must exist and hold at most `max_bytes`; `what` names
    the file kind in the error ("an Excel workbook")."""
    size = part_size(z, part)
    if size is None:
        raise ExtractionError(f"not {what}: {part} missing")
    if size > max_bytes:
        raise ExtractionError(f"{part} is larger than {max_bytes // 2**20} MB")
    rels = part_relationships(z, part)
    for el in z.xml(part).iter():
        if isinstance(el.tag, str) and local_name(el.tag) == element:
            rid = next((v for k, v in el.attrib.items() if k.startswith("{") and local_name(k) == "id"), "")
            type_, target = rels.get(rid, ("", ""))
            yield el, type_, target
