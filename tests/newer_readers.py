"""A newer reader for a test (decision 0152): this version's reader of one format, one step newer than the one that
indexed the files, reading them as `reads` says (or as the old one did)."""

from __future__ import annotations


def a_newer_reader(monkeypatch, name: str, reads=None) -> None:
    """The reader `name` ("text", "pdf", …: registry._BY_NAME's) one step newer; `reads(text) -> text`: what it
    now makes of a file (None: the same text as before)."""
    from dataclasses import replace

    from searchapp.base.types import Document
    from searchapp.ingest.extractors import registry

    monkeypatch.setitem(registry._READER_VERSIONS, name, registry._READER_VERSIONS[name] + 1)
    if reads is not None:
        suffixes, old = registry._BY_NAME[name]

        def newer(path, *args, **kwargs) -> Document:
            doc = old(path, *args, **kwargs)
            return replace(doc, text=reads(doc.text))

        monkeypatch.setitem(registry._BY_NAME, name, (suffixes, newer))
