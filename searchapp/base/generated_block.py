"""A generated block inside a hand-written Markdown page: the text between two marker lines is replaced whole.

docs/cli-reference.md (cli/reference.py) and docs/configuration.md (base/config/reference.py) hold one each;
tests/e2e/test_docs.py fails when a block differs from what its generator writes now.
"""

from __future__ import annotations

__all__ = ["replace_block"]


def replace_block(text: str, begin: str, end: str, body: str, name: str) -> str:
    """`text` with the lines between `begin` and `end` replaced by `body`; ValueError without both markers."""
    head, found, rest = text.partition(begin)
    if not found or end not in rest:
        raise ValueError(f"the page has no {name} markers")
    return f"{head}{begin}\n\n{body.rstrip()}\n\n{end}{rest.split(end, 1)[1]}"
