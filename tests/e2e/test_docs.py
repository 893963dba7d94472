"""Every CLI command and every config field is documented in the README (sqlite-utils' test_docs idea)."""

from __future__ import annotations

from pathlib import Path

from searchapp.base.config import field_help
from searchapp.cli.parser import build_parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands():
    block = README.split("```", 2)[1]
    assert "make run" in block and "make test" in block


def test_every_command_is_documented():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    missing = [name for name in sub.choices if f"searchapp {name}" not in README]
    assert not missing, missing


def test_every_config_field_is_documented_with_help():
    fields = field_help()
    assert all(fields.values()), [k for k, v in fields.items() if not v]
    missing = [k for k in fields if k != "data_dir" and k.split(".")[1] not in README]
    assert not missing, missing


def test_ci_runs_the_readme_test_command():
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert "make test" in ci and "make test" in README.split("```", 2)[1]


def test_cli_reference_in_the_readme_is_what_the_parsers_say():
    from searchapp.cli.reference import rewrite

    assert rewrite(README) == README, "run `python -m searchapp.cli.reference` to regenerate README.md's CLI reference"
