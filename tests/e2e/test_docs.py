"""The docs say what the code does (sqlite-utils' test_docs idea): a short README over docs/, every CLI command
and config field documented, the two generated pages up to date, every module architecture.md names present,
and every link between the pages leading somewhere."""

from __future__ import annotations

import re
from pathlib import Path

from searchapp.base.config import field_help
from searchapp.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
README = (REPO / "README.md").read_text(encoding="utf-8")


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands():
    block = README.split("```", 2)[1]
    assert "make run" in block and "make test" in block


def test_readme_is_short_and_links_every_page():
    assert len(README.splitlines()) <= 200
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert len(pages) >= 9, pages
    missing = [name for name in pages if f"docs/{name}" not in README]
    assert not missing, missing


def test_every_command_is_documented_in_words():
    """In the hand-written guide, not only in the generated reference."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    guide = page("cli.md") + page("models.md")
    missing = [name for name in sub.choices if f"searchapp {name}" not in guide]
    assert not missing, missing


def test_every_config_field_is_documented_with_help():
    fields = field_help()
    assert all(fields.values()), [k for k, v in fields.items() if not v]
    text = page("configuration.md")
    missing = [k for k in fields if k != "data_dir" and f"| `{k.split('.')[1]}` |" not in text]
    assert not missing, missing


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci and "make test" in README.split("```", 2)[1]


def test_cli_reference_is_what_the_parsers_say():
    from searchapp.cli.reference import PAGE, rewrite

    text = (REPO / PAGE).read_text(encoding="utf-8")
    assert rewrite(text) == text, f"run `python -m searchapp.cli.reference` to regenerate {PAGE}"


def test_configuration_reference_is_what_the_schema_says():
    from searchapp.base.config.reference import PAGE, rewrite

    text = (REPO / PAGE).read_text(encoding="utf-8")
    assert rewrite(text) == text, f"run `python -m searchapp.base.config.reference` to regenerate {PAGE}"


# A module path as architecture.md writes it, in backticks: `library/search/pipeline.py`, `store/`, `cli/entry.py`,
# or a function in one (`library/sync/words_pass.py: sync_root`). Relative to searchapp/ unless it starts with
# tests/ or searchapp/.
_PATH = re.compile(r"`((?:searchapp/|tests/)?[a-z_]+(?:/[a-z_0-9]+)*(?:\.py|/))(?::\s*([A-Za-z_][A-Za-z_0-9.]*))?`")


def test_every_module_architecture_md_names_exists():
    text = page("architecture.md")
    named = _PATH.findall(text)
    assert len(named) >= 60, len(named)  # the page names the modules, not only the packages
    missing = []
    for path, symbol in named:
        full = REPO / path if path.startswith(("searchapp/", "tests/")) else REPO / "searchapp" / path
        if not full.exists():
            missing.append(path)
        elif symbol and not re.search(rf"^\s*(?:def|class)\s+{re.escape(symbol.split('.')[-1])}\b",
                                      full.read_text(encoding="utf-8"), re.M):
            missing.append(f"{path}: {symbol}")
    assert not missing, missing


def _anchors(text: str) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped but `-` and `_`, spaces to `-`."""
    out = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_link_between_the_pages_leads_somewhere():
    pages = [REPO / "README.md", *sorted(DOCS.glob("*.md")), *sorted((DOCS / "decisions").glob("*.md"))]
    broken = []
    for source in pages:
        text = source.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            dest = (source.parent / file).resolve() if file else source
            if not dest.exists():
                broken.append(f"{source.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{source.name}: {target}")
    assert not broken, broken
