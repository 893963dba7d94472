"""docs/configuration.md's generated tables (base/config/reference.py): one row per setting with its default,
allowed values, environment variable and help text, written between the markers and nowhere else."""

from __future__ import annotations

import pytest

from searchapp.base.config import field_meta
from searchapp.base.config import reference


def test_one_row_per_setting_with_what_the_schema_says():
    text = reference.reference()
    rows = {line.split("`")[1]: line for line in text.splitlines() if line.startswith("| `")}
    settings = [k for k in field_meta()]
    assert len(rows) == len(settings)  # no two sections share a key name today; a new one would need a row each
    assert "| `k` | `10` | 1..10000 | `SEARCHAPP_SEARCH__K` | Hits returned. |" in text
    assert "| `pooling` | `\"auto\"` | auto \\| mean \\| cls \\| max \\| wk | `SEARCHAPP_MODELS__POOLING` |" in rows["pooling"]
    assert "| true \\| false |" in rows["ocr"]
    assert "&lt;title>" in rows["title_context"]  # raw <title> would be read as HTML and vanish from the page
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert headings == ["### `[scan]`", "### `[chunking]`", "### `[models]`", "### `[index]`", "### `[search]`",
                        "### `[library]`"]


def test_rewrites_only_its_block_and_is_stable():
    page = f"# Configuration\n\nbefore\n{reference.BEGIN}\nstale\n{reference.END}\nafter\n"
    new = reference.rewrite(page)
    assert new.startswith("# Configuration\n\nbefore\n" + reference.BEGIN) and new.endswith(reference.END + "\nafter\n")
    assert "stale" not in new and "| `max_tokens` |" in new
    assert reference.rewrite(new) == new
    with pytest.raises(ValueError, match="no config-reference markers"):
        reference.rewrite("# no markers\n")
