"""A mailbox's own entry (its listing of its messages' subjects) beside its messages (search/listings.py), and the
count its listing says (ingest/extractors/members.py listing)."""

from __future__ import annotations

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


def test_a_listing_counts_a_containers_own_members_not_its_notes():
    """The members inside members are said apart, and a note about the rest of a container ("…", only the first
    2,000 members read) is no member."""
    names = ["a.txt", "inner.zip", "inner.zip" + MEMBER_SEP + "b.txt", "…"]
    assert listing("box.zip", names) == ("box.zip: 2 members and 1 inside them\n"
                                         "a.txt\ninner.zip\ninner.zip › b.txt\n…")
    assert listing("one.mbox", ["1: Hello"]).startswith("one.mbox: 1 message\n")
