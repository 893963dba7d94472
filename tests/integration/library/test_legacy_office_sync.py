"""Legacy Office files and Outlook messages in a library (issue 43, items 1 and 2): a sync indexes .doc, .xls, .ppt
and .msg files and a message's attachments as entries of their own; password-protected files of every kind say
so, and a container's encrypted members are one row."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from legacy_office_files import make_doc, make_msg, make_ppt, make_xls

from searchapp.base.member_paths import MEMBER_SEP

ENCRYPTED = "encrypted: password-protected, not indexed"
OOXML_LOCKED = cfb({"EncryptionInfo": b"\x04\x00\x04\x00" + b"\0" * 60, "EncryptedPackage": b"\x13" * 5000})


def _found(lib, word: str) -> list[str]:
    return sorted(h.path for h in lib.search(word, mode="lexical").hits)


def test_legacy_files_and_a_messages_attachments_are_found(tiny_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "minutes.doc").write_bytes(make_doc([("The committee chose a marmalade judge.\r", True)]))
    (docs / "plots.xls").write_bytes(make_xls({"Plots": [["North", "Quince hedge"]]}))
    (docs / "talk.ppt").write_bytes(make_ppt(["Composting with bokashi"]))
    rota = make_doc([("Watering rota: Ann on Mondays, the sundial on Fridays.\r", True)])
    (docs / "rota.msg").write_bytes(make_msg("Allotment rota", "See the attached rota, and the wheelbarrow note.",
                                             "Ann Smith", "Committee", attachments={"rota.doc": rota}, nested=True))
    rep = tiny_library.add_folder(docs)
    assert _found(tiny_library, "marmalade") == [str(docs / "minutes.doc")]
    assert _found(tiny_library, "quince") == [str(docs / "plots.xls")]
    assert _found(tiny_library, "bokashi") == [str(docs / "talk.ppt")]
    msg = str(docs / "rota.msg")
    assert _found(tiny_library, "wheelbarrow") == [msg]  # the message's own text
    assert _found(tiny_library, "sundial") == [msg + MEMBER_SEP + "rota.doc"]  # its attachment, an entry of its own
    assert dict(rep.problems) == {msg + MEMBER_SEP + "Forwarded item.msg": "an Outlook item attached to a message: "
                                                                           "not read"}


def test_encrypted_files_of_every_kind_say_so_and_a_containers_are_one_row(tiny_library, tmp_path):
    from fpdf import FPDF

    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Salaries")
    pdf.set_encryption(owner_password="o", user_password="u")
    pdf.output(str(docs / "salaries.pdf"))
    (docs / "locked.doc").write_bytes(make_doc([("secret\r", True)], flags=0x0300))
    (docs / "locked.xls").write_bytes(make_xls({"S": [["secret"]]}, filepass=True))
    (docs / "locked.docx").write_bytes(OOXML_LOCKED)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("q3/forecast.xlsx", OOXML_LOCKED)
        z.writestr("q3/old.xls", make_xls({"S": [["secret"]]}, filepass=True))
        z.writestr("q3/deck.ppt", cfb({"PowerPoint Document": b"\0" * 16, "EncryptedSummary": b"\0" * 64}))
        z.writestr("q3/readme.txt", "The forecasts are locked; ask the treasurer for the pelican password.")
    (docs / "q3.zip").write_bytes(buf.getvalue())
    tiny_library.add_folder(docs)
    st = tiny_library.status()
    rows = {Path(p).name: (s, r) for p, s, r in st.failed}
    for name in ("salaries.pdf", "locked.doc", "locked.xls", "locked.docx"):
        assert rows[name] == ("skipped", ENCRYPTED), (name, rows)
    zip_rows = [(s, r) for p, s, r in st.failed if p.startswith(str(docs / "q3.zip"))]
    assert zip_rows == [("skipped", f"3 of its members: {ENCRYPTED}")], zip_rows  # counted once for the container
    assert _found(tiny_library, "pelican") == [str(docs / "q3.zip") + MEMBER_SEP + "q3/readme.txt"]
