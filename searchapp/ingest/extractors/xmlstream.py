"""One zip part's XML as a stream of events with flat memory, for the readers of sheets, slides and
relationships: a part of any size never becomes one tree.

Every element is dropped from the tree as soon as it ends, except inside the subtrees the reader asks to
hold (a cell, a paragraph) until they end, so it can read them whole. The caps are on what a hostile part
could make us keep: its bytes (`max_bytes`, PartTooLarge where crossed), its nesting depth, and what one
held subtree may gather (past MAX_HELD elements the rest of it is dropped as it ends; `cut` counts them).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Optional, Union
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from .ziputil import SafeZip, local_name

__all__ = ["XmlStream", "MAX_DEPTH", "MAX_HELD"]

MAX_DEPTH = 256  # real OOXML and ODF nest a few dozen deep at most
MAX_HELD = 100_000  # elements under one held subtree: a real cell or paragraph has a few dozen
_CHECK_EVERY = 4096  # XML events between two cancel checks

Holds = Union[frozenset[str], Callable[[str, Element], bool]]  # local names, or a test on (local name, element)


class XmlStream:
    """Iterate for (event, local name, element, open ancestors). Events are "end" ones, and "start" ones
    too with `starts=True`; ancestors never include the element itself. An element a reader holds keeps
    its children until its own end event has been seen."""

    def __init__(self, z: Optional[SafeZip], part: str, holds: Holds = frozenset(),
                 cancel: Optional[CancelToken] = None, max_bytes: Optional[int] = None, starts: bool = False) -> None:
        self.z, self.part, self.holds, self.cancel = z, part, holds, cancel
        self.max_bytes, self.starts = max_bytes, starts
        self.cut = 0
        self._events: Optional[Iterable[tuple[str, Element]]] = None

    @classmethod
    def of_events(cls, events: Iterable[tuple[str, Element]], label: str, holds: Holds = frozenset(),
                  cancel: Optional[CancelToken] = None, starts: bool = False) -> "XmlStream":
        """The same stream over ("start"/"end", element) events parsed elsewhere (a whole file, not a zip part:
        ziputil.iterparse_xml, which caps nothing but what it is given); `label` names it in errors."""
        stream = cls(None, label, holds, cancel, starts=starts)
        stream._events = events
        return stream

    def __iter__(self) -> Iterator[tuple[str, str, Element, list[Element]]]:
        stack: list[Element] = []
        names: dict[str, str] = {}  # tag -> local name: a part has a handful of tags and millions of elements
        holds, cancel, starts = self.holds, self.cancel, self.starts
        held_at = -1  # depth of the outermost held element open, -1 when none
        held = 0  # elements started under it
        events = self._events
        if events is None:
            assert self.z is not None
            events = self.z.iterparse(self.part, max_bytes=self.max_bytes)
        for n, (event, el) in enumerate(events):
            if cancel is not None and n % _CHECK_EVERY == 0:
                cancel.check()
            name = names.get(el.tag)
            if name is None:
                name = names[el.tag] = local_name(el.tag)
            if event == "start":
                if len(stack) >= MAX_DEPTH:
                    raise ExtractionError(f"{self.part} nests elements more than {MAX_DEPTH} deep")
                if held_at >= 0:
                    held += 1
                    if held == MAX_HELD + 1:
                        self.cut += 1
                elif name in holds if isinstance(holds, frozenset) else holds(name, el):
                    held_at, held = len(stack), 0
                if starts:
                    yield event, name, el, stack
                stack.append(el)
                continue
            stack.pop()
            yield event, name, el, stack
            depth = len(stack)
            if depth == held_at:
                held_at = -1
            if stack and (held_at < 0 or held > MAX_HELD):
                del stack[-1][-1]  # `el`: the last child of its parent, as no sibling has started since
