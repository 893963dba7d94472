"""A German word typed with ae, oe, ue for ä, ö, ü is searched as the library writes it (search/respelled.py): a
newcomer's "Muellgebuehren" missed the bill that "Mullgebuhren" and "Müllgebühren" both found first."""

from __future__ import annotations

from pathlib import Path

from corpus import write_texts
from searchapp.library.search.result import RESPELLED


def _docs(tmp_path: Path) -> Path:
    return write_texts(tmp_path / "docs", {
        "bill.txt": "Die Müllgebühren für 2024 sind gestiegen, schreibt die Stadt.",
        "tax.txt": "Die Steuerbehörde schreibt wegen der Nachzahlung.",
        "poet.txt": "Goethe wrote of the queue at the Weimar theatre; one letter spells him Gothe.",
        "shoe.txt": "A shoe of the aerobics team was lost.",
    })


def test_a_word_typed_with_ue_for_u_finds_what_the_library_writes_with_an_umlaut(tiny_library, tmp_path):
    tiny_library.add_folder(_docs(tmp_path), embed=False)
    res = tiny_library.search("Muellgebuehren", mode="lexical")
    assert [Path(h.path).name for h in res.hits][:1] == ["bill.txt"]
    assert [n.text for n in res.notices if n.kind == RESPELLED] == [
        "searched “Muellgebuehren” as “Mullgebuhren” (ae, oe, ue read as ä, ö, ü)"]
    # a "ue" that is the letters u and e: only the other digraph read as an umlaut (a reviewer's "Steurbehorde")
    res = tiny_library.search("Steuerbehoerde", mode="lexical")
    assert [Path(h.path).name for h in res.hits][:1] == ["tax.txt"], res.notices
    assert [n.text for n in res.notices if n.kind == RESPELLED] == [
        "searched “Steuerbehoerde” as “Steuerbehorde” (ae, oe, ue read as ä, ö, ü)"]
    for held in ("Goethe", "queue", "shoe", "aerobics"):  # words the library holds as typed are never touched
        res = tiny_library.search(held, mode="lexical")
        assert res.hits and not [n for n in res.notices if n.kind == RESPELLED], (held, res.notices)
    res = tiny_library.search("Blueberry", mode="lexical")  # nothing holds "Bluberry" either: left as typed
    assert not [n for n in res.notices if n.kind == RESPELLED]
