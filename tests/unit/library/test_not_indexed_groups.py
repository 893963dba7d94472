"""A container's members grouped in the Not indexed list: one group per (container, state, reason), so two groups
of one container with the same reason and count but different states keep their own members."""

from __future__ import annotations

from searchapp.base.member_paths import MEMBER_SEP
from searchapp.library.report.not_indexed import group_members


def test_groups_of_one_container_that_differ_only_by_state_keep_their_own_members():
    box = "/docs/box.zip"
    skipped = [box + MEMBER_SEP + f"a{i}.txt" for i in range(2)]
    failed = [box + MEMBER_SEP + f"b{i}.txt" for i in range(2)]
    why = "unsupported compression method: ppmd"
    rows, groups = group_members([(p, "skipped", why) for p in skipped] + [(p, "failed", why) for p in failed])
    shown = f"2 of its members: {why}"
    assert rows == [(box, "skipped", shown), (box, "failed", shown)]
    assert groups == {(box, "skipped", shown): skipped, (box, "failed", shown): failed}
    assert all((p, s, r) in groups for p, s, r in rows)  # every grouped row finds its own members
