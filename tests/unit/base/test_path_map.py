"""library.path_map (decision 0134): another machine's folders as mounted on this desktop, and back."""

from __future__ import annotations

import pytest

from searchapp.base.config import load_config
from searchapp.base.errors import ConfigError
from searchapp.base.path_map import PathMap


def test_whole_components_only_and_the_longest_prefix_wins():
    m = PathMap(["desk-a:/mnt/share=/Volumes/share", "desk-a:/mnt/share/docs=/Volumes/docs/"], "desk-b")
    assert m.to_local("desk-a", "/mnt/share/x/a.txt") == "/Volumes/share/x/a.txt"
    assert m.to_local("desk-a", "/mnt/share") == "/Volumes/share"
    assert m.to_local("desk-a", "/mnt/shared2/a.txt") == "/mnt/shared2/a.txt"  # not a component of /mnt/share
    assert m.mounted("desk-a", "/mnt/shared2/a.txt") is None
    assert m.to_local("desk-a", "/mnt/share/docs/a.txt") == "/Volumes/docs/a.txt"
    assert m.to_local("desk-c", "/mnt/share/a.txt") == "/mnt/share/a.txt"  # another machine's entry only
    assert m.to_theirs("/Volumes/share/x/a.txt") == [("desk-a", "/mnt/share/x/a.txt")]
    assert m.to_theirs("/Volumes/shared2/a.txt") == [] and m.to_theirs("/Volumes") == []


def test_this_machines_own_paths_are_never_mapped():
    m = PathMap(["desk-b:/home=/elsewhere"], "desk-b")
    assert not m and m.to_local("desk-b", "/home/a.txt") == "/home/a.txt" and m.to_theirs("/elsewhere/a") == []


def test_a_windows_machines_folder_and_a_member_key():
    m = PathMap(["pc:S:\\=/mnt/s", "pc:\\\\nas\\team=/mnt/team"], "desk-b")
    assert m.to_local("pc", "S:\\docs\\a.txt") == "/mnt/s/docs/a.txt"
    assert m.to_local("pc", "\\\\nas\\team\\x.zip\\\\in/y.pdf") == "/mnt/team/x.zip//in/y.pdf"
    assert m.to_theirs("/mnt/s/docs/a.txt") == [("pc", "S:\\docs\\a.txt")]
    assert m.to_theirs("/mnt/team/x.zip//in/y.pdf") == [("pc", "\\\\nas\\team\\x.zip\\\\in/y.pdf")]


def test_a_windows_folder_written_with_forward_slashes():
    m = PathMap(["pc:S:/docs/=/mnt/docs"], "desk-b")  # as a TOML file is easiest written; Windows reads it so
    assert m.to_local("pc", "S:\\docs\\a.txt") == "/mnt/docs/a.txt"
    assert m.to_theirs("/mnt/docs/sub/a.txt") == [("pc", "S:\\docs\\sub\\a.txt")]


@pytest.mark.parametrize("entry, said", [
    ("/mnt/share=/Volumes/share", "is not MACHINE:THEIR_FOLDER=FOLDER_HERE"),
    ("desk-a:/mnt/share", "is not MACHINE:THEIR_FOLDER=FOLDER_HERE"),
    ("desk-a:mnt/share=/Volumes/share", "is not an absolute folder of 'desk-a'"),
    ("desk-a:/mnt/share=Volumes/share", "is not an absolute folder here"),
    ("desk-a:/mnt/share=", "is not MACHINE:THEIR_FOLDER=FOLDER_HERE"),
])
def test_a_malformed_entry_is_one_config_line(tmp_path, entry, said):
    (tmp_path / "config.toml").write_text(f"[library]\npath_map = [{entry!r}]\n".replace("'", '"'), encoding="utf-8")
    with pytest.raises(ConfigError) as got:
        load_config(tmp_path, env={})
    text = str(got.value)
    assert text.startswith("library.path_map: ") and said in text and "\n" not in text


def test_the_same_folder_twice_and_the_environment(tmp_path):
    with pytest.raises(ConfigError, match="mapped twice"):
        load_config(tmp_path, env={"SEARCHAPP_LIBRARY__PATH_MAP": "a:/x=/y, a:/x/=/z"})
    cfg = load_config(tmp_path, env={"SEARCHAPP_LIBRARY__PATH_MAP": "a:/x=/y,b:/p=/q"})
    assert cfg.library.path_map == ("a:/x=/y", "b:/p=/q")
