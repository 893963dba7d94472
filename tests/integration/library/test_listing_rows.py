"""A mailbox's own entry (its listing of its messages' subjects) beside its messages (search/listings.py), and the
count its listing says (ingest/extractors/members.py listing)."""

from __future__ import annotations

import io
import zipfile

import pytest

from searchapp.base.member_paths import MEMBER_SEP, split_member
from searchapp.library import Library
from searchapp.ingest.extractors.members import listing
from searchapp.library.search.listings import answered_listings

from office_files import make_mail

SUBJECTS = ["Did you receive the package?", "Lease renewal for the flat", "Window cleaning next Monday"]
BODIES = ["The courier left a parcel with the neighbour on Tuesday.",
          "The renewal keeps the pet clause: the cat may stay. The letter is attached.",
          "The cleaners come at nine, please leave the balcony door unlocked."]


def _mbox() -> bytes:
    out = b""
    for i, (subject, body) in enumerate(zip(SUBJECTS, BODIES, strict=True)):
        attachments = {"lease_renewal_2025.txt": b"Lease renewal, Gartenstrasse 12."} if i == 1 else None
        msg = make_mail(subject=subject, plain=body, html=None, attachments=attachments)
        out += b"From ana@example.org Fri Mar  7 10:00:00 2025\n" + msg.as_bytes() + b"\n"
    return out


def test_a_messages_query_finds_the_message_not_its_mailboxs_listing(make_config, tiny_encoder, tmp_path):
    """A newcomer's `personal.mbox` came second for "recieve the package", under the message itself, and third for
    "pet clause lease": its listing holds each message's subject. The message is the answer; the mailbox is still
    found by its own name, and says how many messages it holds (it said "63 members" of 60 messages with 3
    attachments)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "personal.mbox").write_bytes(_mbox())
    mbox = str(docs / "personal.mbox")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        for query in ("recieve the package", "lease renewal", "window cleaning monday"):
            paths = [h.path for h in lib.search(query, mode="lexical", k=10).hits]
            assert paths and mbox not in paths and split_member(paths[0])[0] == mbox, (query, paths)
        named = lib.search("personal", mode="lexical", k=10).hits
    assert [h.path for h in named] == [mbox]
    assert named[0].text.startswith("personal.mbox: 3 messages and 1 attachment\n1: Did you receive"), named[0].text


def test_a_listing_stays_where_no_member_holds_its_words():
    """A member's name its own text does not hold (a photo named beach.jpg, its text what OCR read), or no member
    among the candidates: the listing is the only answer, and stays."""
    zip_ = "/p/photos.zip"
    path_of = {10: zip_, 20: zip_ + MEMBER_SEP + "beach.jpg", 30: zip_ + MEMBER_SEP + "a.txt"}
    texts = {1: "photos.zip: 2 members\nbeach.jpg\na.txt", 2: "sunset over the harbour",
             3: "beach towels to pack, photos to print"}
    file_of = {1: 10, 2: 20, 3: 30}
    assert answered_listings("beach", [1, 2], file_of, texts, path_of) == set()  # beach.jpg holds no "beach"
    assert answered_listings("beach", [1, 3], file_of, texts, path_of) == {1}  # a.txt holds it: the answer
    assert answered_listings("beach", [1], file_of, texts, path_of) == set()  # no member a candidate
    assert answered_listings("harbour", [1, 2], file_of, texts, path_of) == {1}  # found by meaning alone
    assert answered_listings("photos", [1, 2, 3], file_of, texts, path_of) == set()  # its own name, a.txt holds too
    # A name counts as typed: `quoted.mbox` is no search for "quote" (a newcomer's was fourth for "Müller heat pump
    # quote", matched by "quoted" alone), and its message, holding "quoted", answers it.
    mbox = "/p/quoted.mbox"
    path_of |= {40: mbox, 50: mbox + MEMBER_SEP + "1: (no subject)"}
    texts |= {4: "quoted.mbox: 1 message\n1: (no subject)", 5: "Test content\n> quoted stuff"}
    file_of |= {4: 40, 5: 50}
    assert answered_listings("heat pump quote", [4, 5], file_of, texts, path_of) == {4}
    assert answered_listings("quoted", [4, 5], file_of, texts, path_of) == set()  # its own name, as typed


def test_a_listing_counts_a_containers_own_members_not_its_notes():
    """The members inside members are said apart, and a note about the rest of a container ("…", only the first
    2,000 members read) is no member."""
    names = ["a.txt", "inner.zip", "inner.zip" + MEMBER_SEP + "b.txt", "…"]
    assert listing("box.zip", names) == ("box.zip: 2 members and 1 inside them\n"
                                         "a.txt\ninner.zip\ninner.zip › b.txt\n…")
    assert listing("one.mbox", ["1: Hello"]).startswith("one.mbox: 1 message\n")


BREAD = b"Sourdough starter log. Day 3: bubbles, the starter doubled in six hours.\n"
VOLCANO = b"Why do volcanoes erupt? Magma is less dense than the rock around it.\n"


@pytest.mark.engines("sqlite")
def test_a_member_shown_as_a_copy_of_another_file_answers_its_zips_listing(make_config, tiny_encoder, tmp_path):
    """A newcomer's `notes-backup.zip` (sourdough.md, volcano.md) came first for "sourdough OR volcano" by its
    listing (0.73, the notes 0.44) and took a row for "sourdough starter" too, though its sourdough.md was shown as
    the copy of `sourdough-copy.md`: the member was folded away as that copy before its listing was weighed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("sourdough.md", BREAD)
        z.writestr("volcano.md", VOLCANO)
    (docs / "notes-backup.zip").write_bytes(buf.getvalue())
    (docs / "sourdough-copy.md").write_bytes(BREAD)
    zip_ = str(docs / "notes-backup.zip")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        for query in ("sourdough OR volcano", "sourdough starter"):
            hits = lib.search(query, mode="lexical", k=10).hits
            assert hits and zip_ not in [h.path for h in hits], (query, [h.path for h in hits])
            copy = next(h for h in hits if h.path == str(docs / "sourdough-copy.md"))
            assert copy.copies == [zip_ + MEMBER_SEP + "sourdough.md"], copy.copies
        assert [h.path for h in lib.search("backup", mode="lexical", k=10).hits] == [zip_]  # its own name
