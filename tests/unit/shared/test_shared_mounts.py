"""shared_mounts.mounted_elsewhere (decision 0206) over a store's two answers, without a server: the files of a
folder here are hashed only where another machine has a folder to compare them with."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from searchapp.base import hashing
from searchapp.library.shared_mounts import mounted_elsewhere


class _Store:
    """The two questions mounted_elsewhere asks of a PgStore: the machines' folders, the others' files by content."""

    machine = "desk-b"

    def __init__(self, roots: list[tuple[str, str]], files: list[tuple[str, str]]) -> None:
        self.roots, self.files = roots, files

    def all_roots(self) -> list[tuple[str, SimpleNamespace]]:
        return [(m, SimpleNamespace(path=p)) for m, p in self.roots]

    def others_with_content(self, hashes: list[str]) -> list[tuple[str, str, str]]:
        return [("desk-a", p, sha) for p, sha in self.files if sha in hashes]


def test_a_folder_is_read_for_its_hashes_only_where_another_machine_has_a_folder(tmp_path, monkeypatch):
    here = tmp_path / "mnt" / "share"
    here.mkdir(parents=True)
    for n in range(4):
        (here / f"n{n}.txt").write_text(f"note {n}\n", encoding="utf-8")
    shas = {f"n{n}.txt": hashing.file_sha256(here / f"n{n}.txt") for n in range(4)}
    theirs = [(f"/srv/share/{name}", sha) for name, sha in shas.items()]

    why = mounted_elsewhere(_Store([("desk-a", "/srv/share")], theirs), str(here), 2**20)
    assert why is not None and why.startswith("desk-a indexes these files already, as /srv/share ")
    assert f'"desk-a:/srv/share={here}"' in why

    # a folder inside one of its folders: the map entry names that folder, at its place here
    why = mounted_elsewhere(_Store([("desk-a", "/srv")], theirs), str(here), 2**20)
    assert why is not None and f'"desk-a:/srv={here.parent}"' in why, why
    # a few of its files at the same places, the rest elsewhere there (copies, not a mount): added as before
    some = theirs[:2] + [(f"/srv/share/old/{name}", sha) for name, sha in list(shas.items())[2:]]
    assert mounted_elsewhere(_Store([("desk-a", "/srv/share")], some), str(here), 2**20) is None

    def read(path: object) -> str:
        raise AssertionError(f"{path} read")

    monkeypatch.setattr(hashing, "file_sha256", read)
    assert mounted_elsewhere(_Store([("desk-b", str(tmp_path))], []), str(here), 2**20) is None  # its own alone
    with pytest.raises(AssertionError, match="read"):  # the guard above is the one that would fail
        mounted_elsewhere(_Store([("desk-a", "/srv/share")], []), str(here), 2**20)
