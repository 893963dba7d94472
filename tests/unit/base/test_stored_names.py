"""Names that are not UTF-8 (base/stored_names.py, decision 0179): stored as SQLite can hold them, the exact bytes
found again on disk, shown readable (query text typed so: tests/unit/cli/test_search_output.py)."""

from __future__ import annotations

import os
import sqlite3

import pytest

from searchapp.base.member_paths import display_path, key_of, member_fields
from searchapp.base.stored_names import disk_path, guessed_name, stored_name


@pytest.mark.parametrize("raw,stored,shown", [
    (b"plain.txt", "plain.txt", "plain.txt"),
    (b"caf\xc3\xa9.txt", "caf\u00e9.txt", "caf\u00e9.txt"),  # valid UTF-8: as it is
    (b"R\xe9sum\xe9.txt", "R\\xe9sum\\xe9.txt", "R\u00e9sum\u00e9.txt"),  # cp1252 / Latin-1
    (b"\x93q\x94 \x81.txt", "\\x93q\\x94 \\x81.txt", "\u201cq\u201d \ufffd.txt"),  # cp1252's quotes; 0x81 unassigned
    (b"mixed-\xe9-\xc3\xa9.txt", "mixed-\\xe9-\u00e9.txt", "mixed-\u00e9-\u00e9.txt"),  # UTF-8 parts kept
    (b"a\\xe9\xff", "a\\x5cxe9\\xff", "a\\xe9\u00ff"),  # a backslash beside such a byte: escaped too, exact again
    (b"dir\\x41/f\xe9", "dir\\x41/f\\xe9", "dir\\x41/f\u00e9"),  # a folder that is UTF-8 stays as it is
])
def test_a_name_is_stored_found_again_exactly_and_shown_readable(tmp_path, raw, stored, shown):
    folder = os.fsencode(str(tmp_path))
    path = os.fsdecode(folder + b"/" + raw)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(b"x")
    key = stored_name(path)
    assert key == os.path.join(str(tmp_path), stored)
    assert stored_name(key) == key  # a stored name (a --json key pasted back) stays what it is
    sqlite3.connect(":memory:").execute("SELECT ?", (key,))  # SQLite takes it
    assert os.fsencode(disk_path(key)) == folder + b"/" + raw  # the very bytes
    assert guessed_name(key) == os.path.join(str(tmp_path), shown) == display_path(key)
    assert key_of(path) == key  # typed in a shell (its bytes): the library's key


def test_json_names_the_exact_bytes_only_of_a_name_that_is_not_utf8(tmp_path):
    import base64

    raw = os.fsencode(str(tmp_path)) + b"/Arch\xefve.zip"
    fields = member_fields(stored_name(os.fsdecode(raw)) + "//inner.txt")
    assert fields["path"] == f"{tmp_path}/Arch\u00efve.zip \u203a inner.txt"
    assert base64.b64decode(fields["path_bytes_b64"]) == raw  # what a script opens
    assert "path_bytes_b64" not in member_fields(str(tmp_path / "plain.txt"))
