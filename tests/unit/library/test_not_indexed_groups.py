"""A container's members grouped in the Not indexed list: one group per (container, state, reason), so two groups
of one container with the same reason and count but different states keep their own members."""

from __future__ import annotations

from searchapp.base.member_paths import MEMBER_SEP
from searchapp.library.report.not_indexed import group_in_states, group_members


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


def test_status_groups_members_within_their_ledger_state_and_keeps_it_with_each_row():
    """`status` lists rows by status and reason; members of one status and reason may be in two states (one still
    waits for OCR): each state's are a row of their own, with the state the ledger's query gave them."""
    box = "/docs/box.zip"
    waiting = [box + MEMBER_SEP + f"a{i}.png" for i in range(2)]
    skipped = [box + MEMBER_SEP + f"b{i}.png" for i in range(3)]
    lone = "/docs/note.txt"
    why = "too large (3.0 MB > 2.0 MB)"
    rows, groups, states = group_in_states([("ocr_pending", (p, "skipped", why)) for p in waiting]
                                           + [("skipped", (p, "skipped", why)) for p in skipped]
                                           + [("no_text", (lone, "skipped", "no text found"))])
    two, three = (box, "skipped", f"2 of its members: {why}"), (box, "skipped", f"3 of its members: {why}")
    assert rows == [two, three, (lone, "skipped", "no text found")]
    assert groups == {two: waiting, three: skipped}
    assert states == {two: "ocr_pending", three: "skipped", (lone, "skipped", "no text found"): "no_text"}
