"""The extractor registry imports a format's reader at the first file of that format (registry._on_first_use):
the suffixes it writes down agree with each module's own constant, choosing and reading a text file imports no
other reader, and the first HTML file imports the HTML reader and is read as before."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from searchapp.ingest.extractors import registry

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", sorted(registry.SUFFIXES_DECLARED_IN))
def test_the_registrys_suffixes_are_the_modules_own(name):
    module, constant = registry.SUFFIXES_DECLARED_IN[name]
    declared = getattr(importlib.import_module(f"searchapp.ingest.extractors.{module}"), constant)
    assert registry._BY_NAME[name][0] == declared


def test_every_format_but_text_and_sniffing_is_read_on_first_use():
    assert set(registry.SUFFIXES_DECLARED_IN) == set(registry._BY_NAME) - {"text", "sniffed"}


PROBE = """
import sys
from pathlib import Path
from searchapp.ingest.extractors import extract, supported_suffixes
readers = ("html", "pdf", "docx", "odt", "epub", "xlsx", "ods", "pptx", "odp", "legacy_office", "mail", "members")
def loaded():
    return [m for m in readers if "searchapp.ingest.extractors." + m in sys.modules]
assert ".docx" in supported_suffixes() and ".eml" in supported_suffixes()
text = extract(Path(sys.argv[1]))
print(text.text.strip(), loaded(), "email" in sys.modules)
page = extract(Path(sys.argv[2]))
print(page.text.strip(), loaded())
"""


def test_reading_a_text_file_imports_no_other_reader(tmp_path):
    (tmp_path / "a.txt").write_text("plain words", encoding="utf-8")
    (tmp_path / "b.html").write_text("<html><body><p>marked up</p></body></html>", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "a.txt"), str(tmp_path / "b.html")],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "plain words [] False"
    assert second == "marked up ['html']"
