"""host_id: a digest of the installation's id, never the id itself; None where the system keeps none."""

from __future__ import annotations

import searchapp.base.host_id as host


def test_the_id_is_a_digest_of_the_systems_id_and_none_without_one(tmp_path, monkeypatch):
    mid = tmp_path / "machine-id"
    mid.write_text("3d1219c7aa0b4c0e9f1f2e3d4c5b6a79\n", encoding="ascii")
    monkeypatch.setattr(host, "_FILES", (str(tmp_path / "absent"), str(mid)))
    got = host.host_id()
    assert got is not None and len(got) == 32 and "3d1219c7" not in got
    assert host.host_id() == got  # the same computer, the same digest
    mid.write_text("0000000000000000000000000000000f\n", encoding="ascii")
    assert host.host_id() not in (None, got)
    mid.write_text("", encoding="ascii")
    assert host.host_id() is None
