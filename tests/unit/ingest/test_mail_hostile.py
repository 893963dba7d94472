"""Mail that is huge in parts, mostly links, a bounce or a forward: read within caps, never refused whole
(ingest/extractors/mail.py, mail_parse.py, mail_body.py)."""

from __future__ import annotations

import base64
import email
import email.policy
import os
from pathlib import Path

from searchapp.ingest.extractors import extract, mail_parse
from searchapp.ingest.extractors.mail_parse import MAX_PARTS, parse, parse_once

from office_files import forwarded, make_mail, many_parts


def _leaves(msg) -> int:
    return sum(1 for p in msg.walk() if not p.is_multipart())


def test_mime_parts_are_capped_before_the_parser_sees_them(tmp_path: Path) -> None:
    data = many_parts(3 * MAX_PARTS)
    parsed = parse(data)
    assert parsed.parts_left_out == 3 * MAX_PARTS + 1 - MAX_PARTS  # the body and 3,000 attachments
    assert _leaves(parsed.msg) == MAX_PARTS == len(list(mail_parse.parts(parsed.msg)))  # every part parsed is read
    path = tmp_path / "many.eml"
    path.write_bytes(data)
    doc = extract(path)
    assert "many-parts heron" in doc.text
    assert f"only the first {MAX_PARTS:,} MIME parts read; 2,001 left out" in doc.notes
    # A mail within the cap is parsed whole, with nothing said; a body quoting delimiter-like lines is no cut.
    assert parse(many_parts(10)).parts_left_out == 0
    quoted = make_mail(plain="\n".join(["--bnd", "-- ", "----"] * 2000), html=None).as_bytes()
    assert parse(quoted).parts_left_out == 0 and "----" in parse(quoted).msg.get_body().get_content()


def test_a_mail_is_parsed_once_inside_parse_once(monkeypatch) -> None:
    calls: list[int] = []
    real = email.message_from_bytes
    monkeypatch.setattr(mail_parse.email, "message_from_bytes", lambda b, **kw: calls.append(len(b)) or real(b, **kw))
    data = make_mail().as_bytes()
    with parse_once():
        first = parse(data)
        assert parse(bytes(bytearray(data))) is first  # equal bytes, another object: the same message
    assert len(calls) == 1
    assert parse(data) is not first and len(calls) == 2  # outside, nothing is kept


def test_a_newsletter_of_tracking_links_keeps_subject_sender_and_sentences(tmp_path: Path) -> None:
    link = "https://click.mail.example.com/ls/click?upn=" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z" * 5
    lines = []
    for i in range(40):
        lines += [f"Story {i}: the lighthouse keepers' association meets on Friday.", f"Read more <{link}{i}>", ""]
    body = "\n".join(lines)
    assert sum(len(link) + 2 for _ in range(40)) / len(body) > 0.69  # mostly links, as the newsletter was
    blob = base64.encodebytes(os.urandom(3000)).decode()  # a pasted base64 block is not prose either
    path = tmp_path / "news.eml"
    path.write_bytes(make_mail(subject="Weekly digest", plain=body + "\n" + blob + "\nThat is all for this week.",
                               html=None).as_bytes())
    doc = extract(path)  # was refused whole: "not prose: most of the text is strings of 40+ characters ..."
    assert doc.title == "Weekly digest" and "From: Ana <ana@example.org>" in doc.text
    assert "lighthouse keepers' association" in doc.text and "That is all for this week." in doc.text
    assert "Read more <click.mail.example.com/ls/click…>" in doc.text and "upn=" not in doc.text
    assert blob.split()[0] not in doc.text
    assert "40 long link(s) shortened (their query or data left out)" in doc.notes
    assert any("1 paragraph(s) of the body that are not prose left out" in n for n in doc.notes)


def test_a_deep_link_keeps_its_path_words(tmp_path: Path) -> None:
    """Every link over 40 characters was cut to its site: `search refs-overview` found nothing in a mail that
    pointed at technet.microsoft.com/en-us/library/refs-overview. The path's words stay; a query, a fragment,
    a token in the path and a password go."""
    from searchapp.ingest.extractors.mail_body import readable_body

    text, notes = readable_body(
        "See https://technet.microsoft.com/en-us/library/refs-overview-hh831739 and\n"
        "https://github.com/example-org/searchapp/issues/1234#issuecomment-99887766 and\n"
        "https://docs.example.org/share/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit?usp=sharing and\n"
        "ftp://ana:s3cret-passw0rd@files.example.org/pub/reports/annual-report-2019.pdf and\n"
        "https://links.example.com/e/3f2504e0-4f89-11d3-9a0c-0305e82c3301/c/5ae7e5a1-93a0-4a3b-bfb3-6fdb0e0cb2a8")
    assert "https://technet.microsoft.com/en-us/library/refs-overview-hh831739 and" in text
    assert "github.com/example-org/searchapp/issues/1234… and" in text and "issuecomment" not in text
    assert "docs.example.org/share/… and" in text and "1BxiMVs0" not in text and "usp" not in text
    assert "files.example.org/pub/reports/annual-report-2019.pdf… and" in text and "s3cret" not in text
    assert text.endswith("links.example.com/e/…") and "4f89" not in text  # a UUID in a path is a token
    assert notes == ["4 long link(s) shortened (their query or data left out)"]


def test_a_bounce_keeps_its_delivery_status_as_text(tmp_path: Path) -> None:
    raw = (b"Subject: Undelivered Mail Returned to Sender\nFrom: MAILER-DAEMON@example.org\nTo: ana@example.org\n"
           b'MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary="r"\n\n'
           b"--r\nContent-Type: text/plain\n\nYour message could not be delivered.\n"
           b"--r\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.org\n\n"
           b"Final-Recipient: rfc822; nobody@example.net\nAction: failed\nStatus: 5.1.1\n"
           b"Diagnostic-Code: smtp; 550 5.1.1 mailbox unavailable\n"
           b"--r\nContent-Type: text/rfc822-headers\n\nSubject: The original\n--r--\n")
    path = tmp_path / "bounce.eml"
    path.write_bytes(raw)
    doc = extract(path)
    assert "Your message could not be delivered." in doc.text
    assert "Final-Recipient: rfc822; nobody@example.net" in doc.text
    assert "Diagnostic-Code: smtp; 550 5.1.1 mailbox unavailable" in doc.text


def test_a_forwarded_message_is_named_in_the_text_of_its_mail(tmp_path: Path) -> None:
    path = tmp_path / "fwd.eml"
    path.write_bytes(forwarded().as_bytes())
    doc = extract(path)
    assert doc.text.endswith("See the message below.\n\nAttachments: The bridge survey.eml"), doc.text
    assert "suspension cables" not in doc.text  # its text is its own entry (members.py)
    msg = email.message_from_bytes(forwarded().as_bytes(), policy=email.policy.default)
    assert [p.get_content_type() for p in mail_parse.parts(msg)] == ["text/plain", "message/rfc822"]
