"""A developer's files read as a person would search them, and what a tool wrote for another tool left out with its
rule (decision 0178): a notebook's cells without its outputs' images and tables, a drawing's words without its
path data, a JSON file's keys and values without its punctuation; lockfiles, minified bundles and large JSON."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from searchapp.base.config import ScanConfig
from searchapp.base.errors import ExtractionError, GeneratedFileError
from searchapp.ingest.extractors import extract
from searchapp.ingest.generated import generated_reason

PNG = base64.b64encode(bytes(range(256)) * 40).decode()  # a plot's image, as a notebook keeps it
NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Harmonic analysis\n", "We fit the M2 constituent.\n"]},
    {"cell_type": "code", "metadata": {}, "source": "amplitude = fit(readings)\namplitude", "outputs": [
        {"output_type": "execute_result", "data": {"text/plain": ["2.05 metres"]}, "metadata": {}},
        {"output_type": "display_data", "metadata": {},
         "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}},
        {"output_type": "stream", "name": "stdout", "text": [f"row {i} 0.123456\n" for i in range(200)]}]}]}
SVG = b"""<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><title>Tide gauge</title>
<desc>A wave over a pole</desc><style>.a{fill:#036}</style><path class="a" d="M0 40 C 10 30, 20 50, 32 40Z"/>
<text x="8" y="20">High <tspan font-weight="bold">water</tspan></text></svg>"""


@pytest.mark.parametrize("name,data,text,title", [
    ("analysis.ipynb", json.dumps(NOTEBOOK).encode(),
     "# Harmonic analysis\nWe fit the M2 constituent.\n\namplitude = fit(readings)\namplitude\n\n2.05 metres",
     "Harmonic analysis"),
    ("logo.svg", SVG, "Tide gauge\nA wave over a pole\nHigh water", "Tide gauge"),
    ("icon.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><path d="M12 4l-1.41 1.41z"/></svg>', "", ""),
    ("ports.json", json.dumps({"ports": [{"name": "Brest", "m2": 2.05, "open": True}, {"name": "Saint-Malo"}],
                               "units": "metres", "note": None}).encode(),
     "ports.name: Brest\nports.m2: 2.05\nports.name: Saint-Malo\nunits: metres", ""),
    ("nul.json", b'{"a\\u0000b": "c\\u0000d\\r\\ne"}', "ab: cd\ne", ""),  # escaped NULs never reach the index
    ("tsconfig.json", b'{\n  // comments: not strict JSON\n  "strict": true\n}\n',
     '{\n  // comments: not strict JSON\n  "strict": true\n}', ""),
])
def test_a_developers_files_are_read_for_their_words(tmp_path: Path, name: str, data: bytes, text: str,
                                                     title: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    doc = extract(path)
    assert (doc.text.strip(), doc.title) == (text, title)


def test_a_json_key_path_is_capped_at_its_end() -> None:
    from searchapp.ingest.extractors.json_data import MAX_KEY, key_values

    # long keys nested deep, a sibling at each level: uncapped, each sibling held a key path of up to a megabyte
    value: object = {"leaf": "tide"}
    for level in range(300):
        value = {"k" * 500: value, f"s{level}": level}
    lines = key_values(value)
    assert len(lines) == 301 and max(len(line.split(": ")[0]) for line in lines) <= MAX_KEY
    assert lines[0].endswith(".leaf: tide") and lines[-1] == "s299: 299"


def test_an_svg_that_declares_entities_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "laughs.svg"
    path.write_bytes(b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">]>'
                     b'<svg xmlns="http://www.w3.org/2000/svg"><text>&a;</text></svg>')
    with pytest.raises(ExtractionError, match="unsafe XML"):
        extract(path)


@pytest.mark.parametrize("name,size,rule", [
    ("package-lock.json", 10, "lockfile"), ("Cargo.lock", 10, "lockfile"), ("go.sum", 10, "lockfile"),
    ("app.min.js", 10, "minified"), ("site.min.css", 10, "minified"), ("app.js.map", 10, "minified"),
    ("readings.json", 2 * 2**20, "large JSON"), ("ports.json", 2**20, None), ("app.js", 2 * 2**20, None),
])
def test_generated_files_are_told_by_name_and_size(name: str, size: int, rule: str | None) -> None:
    reason = generated_reason(name, size, ScanConfig())
    assert (reason.split(":", 1)[0] if reason else None) == rule


def test_a_minified_bundle_is_left_out_whatever_its_name(tmp_path: Path) -> None:
    bundle = tmp_path / "vendor.js"
    bundle.write_text(";".join(f"function a{i}(b){{return b*{i}}}" for i in range(200)) + "\n", encoding="utf-8")
    with pytest.raises(GeneratedFileError, match="^minified: its lines average") as caught:
        extract(bundle)
    assert caught.value.status == "excluded"
    code = tmp_path / "chart.js"
    code.write_text("// draw the tide chart\n" + "function draw(port) {\n  return plot(port);\n}\n" * 40)
    assert extract(code).text.startswith("// draw the tide chart")
