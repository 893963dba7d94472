"""One number a release (decision 0154): searchapp/__init__.py says it, the package metadata reads it from there,
the CHANGELOG's newest section is headed by it, and `status` names it (of the process that answered)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from searchapp import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_takes_its_version_from_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "searchapp.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_the_newest_changelog_section_names_this_release():
    """A release that forgets to raise the number (two releases both '0.1.0', as before) or to name it in the
    CHANGELOG fails here: the newest section must carry this number, and no older section may."""
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), flags=re.M)
    assert headings[0].startswith(f"{__version__} "), headings[0]
    assert not any(h.startswith(f"{__version__} ") for h in headings[1:])


def test_status_names_the_release_that_answered(tmp_path, capsys):
    """What a person pastes into a bug report (`status`, `status --json`) says which release wrote it."""
    import json

    from searchapp.cli.main import main

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("lava flows downhill")
    data = str(tmp_path / "data")
    assert main(["--data-dir", data, "index", "--words-only", str(tmp_path / "notes")]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == __version__
    assert main(["--data-dir", data, "status"]) == 0
    assert f"version: searchapp {__version__}\n" in capsys.readouterr().out
