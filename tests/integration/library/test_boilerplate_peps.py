"""A footer repeated in real files, as PEPs carry it (issue 39, item 5): each PEP's last passage mixes the end of its
own text with "Copyright / This document has been placed in the public domain." and the Emacs local-variables
trailer, so no two such passages are alike, and its own words share common ones with the query ("has", "been").
The files matched only through the footer take one row, "common to N files", below the files on the footer's topic
and above any PEP that does not treat it."""

from __future__ import annotations

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.library import Library
from searchapp.library.search.boilerplate import find_common

FOOTER = """Copyright
=========

This document has been placed in the public domain.


..
   Local Variables:
   mode: indented-text
   indent-tabs-mode: nil
   sentence-end-double-space: t
   fill-column: 70
   coding: utf-8
   End:
"""

# (title, abstract, motivation, specification): distinct topics, none about copyright or the public domain.
TOPICS = [
    ("Generator delegation", "This PEP adds a syntax for a generator to delegate part of its work to another one.",
     "Refactoring a generator into pieces has been awkward, because values sent in must be passed by hand.",
     "The expression yield from iterates over the subgenerator and returns its return value."),
    ("Context managers", "This PEP adds the with statement to release a resource when a block ends.",
     "Try and finally blocks have been repeated around every lock, file and socket in the standard library.",
     "The manager's exit method is called with the exception, which it may swallow by returning true."),
    ("Keyword-only arguments", "This PEP allows parameters that can only be passed by name.",
     "Functions with many flags have been called with positional booleans nobody can read.",
     "Parameters after a bare star in the signature must be given as keywords."),
    ("Assignment expressions", "This PEP adds the walrus operator, which binds a name inside an expression.",
     "Loops have been written with a call repeated before the loop and at its end.",
     "The target of the operator is a plain name; it binds in the enclosing scope of a comprehension."),
    ("Structural pattern matching", "This PEP adds the match statement with patterns over sequences and classes.",
     "Chains of isinstance checks have been the only way to take apart nested data.",
     "Case clauses are tried in order; a capture pattern binds the matched value to a name."),
    ("Exception groups", "This PEP lets concurrent tasks raise several unrelated exceptions together.",
     "A task group has been forced to drop all but one of the failures of its children.",
     "The except star clause handles the matching exceptions and raises the rest again."),
    ("Dataclasses", "This PEP generates init, repr and comparison methods from annotated fields.",
     "Plain record classes have been written with the same boilerplate methods in every project.",
     "A frozen dataclass refuses assignment after construction and can be hashed."),
    ("Type hints", "This PEP defines a standard syntax for annotating function parameters and returns.",
     "Tools for static checking have been inventing their own comment conventions.",
     "Annotations are not checked at run time; the typing module provides generic containers."),
    ("Asynchronous coroutines", "This PEP adds async and await for coroutines driven by an event loop.",
     "Generator-based coroutines have been confused with ordinary generators by readers and tools.",
     "An async function returns a coroutine object, which runs when an event loop awaits it."),
    ("Path objects", "This PEP adds an object-oriented module for file system paths.",
     "String manipulation of paths has been error-prone across operating systems.",
     "Paths are joined with the slash operator and globbed with patterns on every platform."),
    ("Enumerations", "This PEP adds an enum module with named constants that compare by identity.",
     "Integer constants have been printed as bare numbers in logs and tracebacks.",
     "Members of an enumeration are singletons and iterate in definition order."),
    ("Formatted string literals", "This PEP adds f-strings that evaluate expressions inside braces.",
     "Percent formatting and format calls have been verbose for simple interpolation.",
     "The expression inside braces is evaluated at run time and formatted with its format spec."),
]

# Files on the footer's topic: their own words are about documents placed in the public domain.
ON_TOPIC = {
    "public-domain-guide.txt": (
        "A guide to the public domain. A document enters the public domain when its copyright expires, or when "
        "its author has placed it there by a dedication such as CC0. A document placed in the public domain "
        "may be copied, translated and published by anyone, without a licence and without asking permission.\n\n"
        "Government documents have been in the public domain in some countries since they were written; "
        "elsewhere the licence of each document says what readers may do with it."),
    "licences-explained.txt": (
        "Licences explained: what the licence of a document allows. A permissive licence lets anyone reuse a "
        "document if the author is credited; a document in the public domain needs no licence at all, because "
        "nobody holds its copyright any more.\n\n"
        "Authors who want their work to be free to reuse have placed it in the public domain, or chosen a licence "
        "close to it, so that libraries and archives can publish it freely."),
}

QUERIES = ["This document has been placed in the public domain", "public domain licence of this document"]


AUTHORS = ["Greg Ewing", "Nick Coghlan", "Talin", "Chris Angelico", "Brandt Bucher", "Irit Katriel", "Eric V. Smith",
           "Guido van Rossum", "Yury Selivanov", "Antoine Pitrou", "Ethan Furman", "Eric V. Smith"]


def pep_text(number: int, title: str, abstract: str, motivation: str, spec: str) -> str:
    return f"""PEP: {number}
Title: {title}
Author: {AUTHORS[number % 12]} <{AUTHORS[number % 12].split()[0].lower()}@python.org>
Status: {("Final", "Accepted", "Draft")[number % 3]}
Type: {("Standards Track", "Informational")[number % 2]}
Content-Type: text/x-rst
Created: {number % 28 + 1:02}-Mar-20{number % 20:02}
Python-Version: 3.{number % 12}


Abstract
========

{abstract}


Motivation
==========

{motivation}


Specification
=============

{spec}


Reference Implementation
========================

The reference implementation of {title.lower()} has been merged into CPython; the discussion of this proposal
is archived at https://mail.python.org/archives/list/python-dev/thread/{number}/


{FOOTER}"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory, packaged_encoder):
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("peps")
    docs = root / "docs"
    docs.mkdir()
    for i, topic in enumerate(TOPICS):
        (docs / f"pep-{3100 + i}.rst").write_text(pep_text(3100 + i, *topic), encoding="utf-8")
    for name, text in ON_TOPIC.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    cfg = load_config(root / "library", env={}, overrides={"search": {"rerank": False}})
    library = Library(cfg, encoder=packaged_encoder)
    library.add_folder(docs)
    yield library
    library.close()


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", QUERIES)
def test_peps_matched_through_their_footer_take_one_row_below_the_files_on_its_topic(lib, mode, query):
    hits = lib.search(query, mode=mode, k=10).hits
    names = [(_name(h.path), h.common_to) for h in hits]
    common = [i for i, h in enumerate(hits) if h.common_to]
    # Found by words, the footer is a row; by meaning, "public domain licence" is far from a PEP's last passage,
    # which may then be below the top 10: never more than one row.
    assert len(common) == 1 if mode == "lexical" or query == QUERIES[0] else len(common) <= 1, names
    row = common[0] if common else len(hits)
    # No other PEP is shown by its footer: each one matched through it is folded into the row. (By meaning, a PEP
    # abstract, "This PEP adds...", may come near "This document has been..."; it is then shown by its own text.)
    footers = [_name(h.path) for i, h in enumerate(hits) if i != row and "placed in the public domain." in h.text]
    assert not footers, names
    assert {_name(h.path) for h in hits[:2]} == set(ON_TOPIC), names  # the files on the topic first
    if common:
        assert hits[row].common_to == len(TOPICS), names  # counted in the whole library
    if mode == "lexical":  # then the row, above every PEP that shares a word or two with the query ("has been")
        assert row == 2, names


def test_a_pep_found_by_its_own_words_keeps_its_row(lib):
    hits = lib.search("delegate generator yield from subgenerator", mode="hybrid", k=5).hits
    assert _name(hits[0].path) == "pep-3100.rst" and hits[0].common_to == 0


def test_a_footer_is_recognised_when_its_year_spacing_and_punctuation_differ():
    """Near-equal, not identical: each file writes its own year, its own spacing, and its passages end where
    chunking cut them."""
    texts, file_of = {}, {}
    for i in range(6):
        own = f"Notes on the harbour survey number {i}: tide tables, moorings and the pilot's log have been updated."
        footer = (f"Copyright (c) {2015 + i}  Harbour Trust.\nAll rights reserved;  reproduction has been "
                  f"permitted for non-commercial use{'.' if i % 2 else ''}")
        texts[i], file_of[i] = f"{own}\n\n{footer}", i
    texts[10], file_of[10] = ("Who may reproduce the survey? Reproduction for commercial use needs the Trust's "
                              "permission; non-commercial reproduction is permitted."), 10
    common = find_common("reproduction permitted for non-commercial use", texts, file_of)
    assert set(common.key_of) == set(range(6))
    assert len(set(common.key_of.values())) == 1  # one repeated text, one row


def test_a_footer_few_candidates_hold_is_counted_in_the_whole_library(make_config, tiny_encoder, tmp_path):
    """With 4 candidate passages (search.candidates = k = 1), fewer than MIN_FILES files hold the footer among
    them: the library is asked how many files hold it, and the PEPs still take one row."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, topic in enumerate(TOPICS[:8]):
        (docs / f"pep-{3100 + i}.rst").write_text(pep_text(3100 + i, *topic), encoding="utf-8")
    with Library(make_config(models={"reranker": ""}, search={"candidates": 1, "rerank": False}),
                 encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)  # words only: folding needs no meaning
        hits = lib.search("placed in the public domain", mode="lexical", k=1).hits
    assert [h.common_to for h in hits] == [8], [(_name(h.path), h.common_to) for h in hits]


def test_files_alike_but_for_their_amounts_are_not_one_footer():
    """Only a year is taken as the same: fifty invoices from one template differ by their amounts, and each is
    its own row."""
    texts = {i: f"Invoice {4711 + i}\nInvoice total: {1234 + 17 * i}.50 EUR\nPayable within 30 days." for i in range(8)}
    common = find_common("invoice total", texts, {i: i for i in texts})
    assert not common.key_of


def test_a_threads_subject_is_each_messages_topic_not_a_footer(make_config, tiny_encoder, tmp_path):
    """A newcomer's "Dinner on Saturday?" thread (six messages of one mbox): the five replies carry the same
    subject line, which was taken for repeated text, so they took one row "common to 5 files" at half weight.
    Each message is its own row; a footer the messages share is still one."""
    bodies = ["Shall we have dinner on Saturday at the Thai place? I can book for seven.",
              "Saturday works for me, but can we make it eight? Work runs late.",
              "Eight is fine. Should I invite Marta and her brother too?",
              "Yes, invite them. I will bring the wine, a red from the market.",
              "Booked the table for six people at eight on Saturday.",
              "Running ten minutes late, order the spring rolls without me."]
    footer = "Sent from the harbour club mailing list. To leave the list, reply with unsubscribe."
    mbox = "\n".join(
        f"From p{i}@example.com Sat Nov  1 1{i}:00:00 2025\nFrom: Person {i} <p{i}@example.com>\n"
        f"To: friends@example.com\nSubject: {'Re: ' if i else ''}Dinner on Saturday?\n"
        f"Date: Sat, 1 Nov 2025 1{i}:00:00 +0000\nMessage-ID: <m{i}@example.com>\n\n{body}\n\n{footer}\n"
        for i, body in enumerate(bodies))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "friends.mbox").write_text(mbox, encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs, embed=False)
        hits = [h for h in lib.search("dinner saturday", mode="lexical", k=10).hits if "//" in h.path]  # messages
        assert len(hits) == 6 and not any(h.common_to for h in hits), [(h.path, h.common_to) for h in hits]
        shared = [h for h in lib.search("harbour club mailing list", mode="lexical", k=10).hits if "//" in h.path]
    assert len(shared) == 1 and shared[0].common_to == 6, [(h.path, h.common_to) for h in shared]


def _messages(sender: str, bodies: list[str], footer: str) -> dict[int, str]:
    """Messages as the mail reader lays them out (mail.py): header lines, a blank line, the body."""
    return {i: f"Subject: Note {i}\nFrom: {sender}\nTo: Chris Taylor <chris.taylor@example.org>\n"
               f"Date: Tue, {i + 1} Jul 2025 10:00:00 +0000\n\n{body}\n\n{footer}" for i, body in enumerate(bodies)}


def test_a_senders_own_messages_are_not_repeated_text():
    """A newcomer's mailbox: the From and To lines her messages all carry made "Alice Nguyen" one row "common to
    60 files", at half weight, below a slide naming another Nguyen. Who wrote a message and to whom is what it is
    searched by; the signature under each is still repeated text."""
    bodies = ["The cabin is booked for the weekend.", "Can you water the plants on Sunday?",
              "Here are the meeting notes from Tuesday.", "The dentist on Elm Street is very good.",
              "Did the package arrive yesterday?", "Birthday party at three on Saturday."]
    footer = "Sent from my phone. Please excuse the brevity and any typing mistakes."
    for sender in ("Alice Nguyen <alice.nguyen@example.com>", "Dr. Henrik Vogel <h.vogel@example.de>"):
        texts = _messages(sender, bodies, footer)
        file_of = {i: i for i in texts}
        name = sender.split("<")[0]
        for query in (name, sender.split("<")[1].rstrip(">"), "Chris Taylor", "note"):
            assert not find_common(query, texts, file_of).key_of, (sender, query)
        signed = find_common("sent from my phone", texts, file_of)
        assert set(signed.key_of) == set(texts) and len(set(signed.key_of.values())) == 1
