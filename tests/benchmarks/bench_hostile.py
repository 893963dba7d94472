"""Hostile single files: seconds and peak memory to index one of them, before and after.

Cases (full size with --scale 1): a 48 MiB one-line base64 .txt, and a ~35 MB DOCX holding ~190 MB of
WordprocessingML (the 50 MB file cap applies to the compressed file); spreadsheets and slides: an .xlsx and
an .ods of ~190 MB of XML whose rows are a word, thousands of empty cells written one by one, a word; an
.odp whose content.xml is ~190 MB; a .pptx whose one slide has a 100 MB relationships part. Each run indexes a folder of 4
small notes plus the hostile file, in a child process, with the code tree given (e.g. /work/main for
"before", this checkout for "after"); the parent polls the child's peak RSS (VmHWM), so a run killed by
--timeout still reports its peak. One JSON line per run, then one ratio line per case (after / before).

    python tests/benchmarks/bench_hostile.py --scale 0.25 --trees /work/main,. --timeout 300 [--what index]

--what extract (default) times extraction + chunking of the hostile file alone (model loading excluded);
--what index the whole sync with the real MiniLM (model loading reported apart, as load_s). A run killed
by --timeout reports its wall time, a lower bound.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

WORDS = ("plant leaf light water root soil seed flower sun green grow stem cell sugar energy air warm cold "
         "garden tomato season rain summer winter spring autumn branch tree forest field farm crop").split()
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def make_base64(path: Path, mib: float) -> None:
    raw = random.Random(0).randbytes(int(mib * 2**20 * 3 / 4))
    path.write_bytes(base64.b64encode(raw))  # one line, no spaces


def make_docx(path: Path, xml_mb: float) -> None:
    rng = random.Random(0)
    target = int(xml_mb * 2**20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>')
        with z.open("word/document.xml", "w", force_zip64=True) as fh:
            head = f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>'.encode()
            fh.write(head)
            written = len(head)
            while written < target:
                para = " ".join(rng.choice(WORDS) + rng.choice(("", "", "s", "ed", str(rng.randrange(1000))))
                                for _ in range(60))
                chunk = f"<w:p><w:r><w:t>{para}.</w:t></w:r></w:p>".encode()
                fh.write(chunk)
                written += len(chunk)
            fh.write(b"</w:body></w:document>")


OFFICE_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
SML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
       'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"')


def _rels(*items: tuple[str, str, str]) -> str:
    return (f'<Relationships xmlns="{PKG_REL}">' + "".join(
        f'<Relationship Id="{i}" Type="{OFFICE_REL}/{t}" Target="{target}"/>' for i, t, target in items)
        + "</Relationships>")


def _stream_member(z: zipfile.ZipFile, name: str, head: str, tail: str, chunks, xml_mb: float) -> None:
    """Write `head`, then chunks from the generator until the member holds `xml_mb` MiB, then `tail`."""
    target = int(xml_mb * 2**20)
    with z.open(name, "w", force_zip64=True) as fh:
        fh.write(head.encode())
        written = len(head)
        for chunk in chunks:
            if written >= target:
                break
            data = chunk.encode()
            fh.write(data)
            written += len(data)
        fh.write(tail.encode())


def _columns(n: int) -> list[str]:
    out = []
    for i in range(1, n + 1):
        name = ""
        while i:
            i, r = divmod(i - 1, 26)
            name = chr(65 + r) + name
        out.append(name)
    return out


def make_xlsx(path: Path, xml_mb: float) -> None:
    """Rows of a word, 16,382 empty cells written one by one (<c r="B1" s="7"/>: a style, no value), a word."""
    rng = random.Random(0)
    cols = _columns(16_384)

    def rows():
        r = 0
        while True:
            r += 1
            empty = "".join(f'<c r="{c}{r}" s="{rng.randrange(64)}"/>' for c in cols[1:-1])
            yield (f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>{rng.choice(WORDS)}</t></is></c>{empty}'
                   f'<c r="XFD{r}" t="inlineStr"><is><t>{rng.choice(WORDS)}</t></is></c></row>')

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("_rels/.rels", _rels(("rId1", "officeDocument", "xl/workbook.xml")))
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{SML}" xmlns:r="{OFFICE_REL}"><sheets>'
                                      '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>')
        z.writestr("xl/_rels/workbook.xml.rels", _rels(("rId1", "worksheet", "worksheets/sheet1.xml")))
        _stream_member(z, "xl/worksheets/sheet1.xml", f'<worksheet xmlns="{SML}"><sheetData>', "</sheetData></worksheet>",
                       rows(), xml_mb)


def make_ods(path: Path, xml_mb: float) -> None:
    """Rows of a word, 10,000 empty cells written one by one (no number-columns-repeated), a word."""
    rng = random.Random(0)

    def rows():
        while True:
            empty = "".join(f'<table:table-cell table:style-name="ce{rng.randrange(64)}"/>' for _ in range(10_000))
            word = f"<table:table-cell><text:p>{rng.choice(WORDS)}</text:p></table:table-cell>"
            yield f"<table:table-row>{word}{empty}{word}</table:table-row>"

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        _stream_member(z, "content.xml", f'<office:document-content {ODF}><office:body><office:spreadsheet>'
                       '<table:table table:name="T">', "</table:table></office:spreadsheet></office:body>"
                       "</office:document-content>", rows(), xml_mb)


def make_odp(path: Path, xml_mb: float) -> None:
    """Slides of frames whose paragraphs are words in spans: a content.xml of `xml_mb` MiB, many small elements."""
    rng = random.Random(0)

    def pages():
        while True:
            paras = "".join("<text:p>" + "".join(f"<text:span>{rng.choice(WORDS)} </text:span>" for _ in range(12))
                            + "</text:p>" for _ in range(40))
            yield f"<draw:page><draw:frame><draw:text-box>{paras}</draw:text-box></draw:frame></draw:page>"

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.presentation")
        _stream_member(z, "content.xml", f"<office:document-content {ODF}><office:body><office:presentation>",
                       "</office:presentation></office:body></office:document-content>", pages(), xml_mb)


def make_pptx(path: Path, rels_mb: float) -> None:
    """One real slide whose relationships part lists `rels_mb` MiB of relationships to missing notes."""
    pml = "http://schemas.openxmlformats.org/presentationml/2006/main"
    dml = "http://schemas.openxmlformats.org/drawingml/2006/main"

    def rels():
        n = 0
        while True:
            n += 1
            yield (f'<Relationship Id="rId{n}" Type="{OFFICE_REL}/notesSlide" '
                   f'Target="../notesSlides/notesSlide{n}.xml"/>')

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("_rels/.rels", _rels(("rId1", "officeDocument", "ppt/presentation.xml")))
        z.writestr("ppt/presentation.xml", f'<p:presentation xmlns:p="{pml}" xmlns:r="{OFFICE_REL}"><p:sldIdLst>'
                                           '<p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>')
        z.writestr("ppt/_rels/presentation.xml.rels", _rels(("rId1", "slide", "slides/slide1.xml")))
        z.writestr("ppt/slides/slide1.xml", f'<p:sld xmlns:p="{pml}" xmlns:a="{dml}"><p:cSld><p:spTree><p:sp>'
                                            '<p:txBody><a:p><a:r><a:t>Tomatoes ripen in a warm greenhouse.</a:t>'
                                            '</a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>')
        _stream_member(z, "ppt/slides/_rels/slide1.xml.rels", f'<Relationships xmlns="{PKG_REL}">',
                       "</Relationships>", rels(), rels_mb)


MAKERS = {"docx": ("z.docx", make_docx, 190), "xlsx": ("z.xlsx", make_xlsx, 190), "ods": ("z.ods", make_ods, 190),
          "odp": ("z.odp", make_odp, 190), "pptx": ("z.pptx", make_pptx, 100)}


def child_extract(folder: str) -> None:
    """Extract and chunk the hostile file alone (tokenizer only, no embedding): the part a cap bounds."""
    from searchapp.ingest.chunking import chunk_document
    from searchapp.ingest.extractors import extract
    from searchapp.models import BiEncoder

    enc = BiEncoder("all-MiniLM-L6-v2", device="cpu", precision="fp32", threads=1)
    path = next(p for p in Path(folder).iterdir() if p.name.startswith("z."))
    t0 = time.perf_counter()
    try:
        doc = extract(path)
        t1 = time.perf_counter()
        n = len(chunk_document(doc, enc.token_offsets, 200, 0.2))
        out = {"extract_s": round(t1 - t0, 1), "chunk_s": round(time.perf_counter() - t1, 1),
               "text_chars": len(doc.text), "passages": n}
    except Exception as exc:  # e.g. skipped as not prose: that is the result
        out = {"extract_s": round(time.perf_counter() - t0, 1), "error": str(exc)[:120]}
    print("RESULT " + json.dumps(out), flush=True)


def child(folder: str, data: str) -> None:
    """Index `folder` with whatever `searchapp` is first on sys.path; print one JSON line."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    t0 = time.perf_counter()
    with Library(load_config(Path(data), env={})) as lib:
        _ = lib.models.encoder  # loaded first: model loading is not what is measured
        t1 = time.perf_counter()
        rep = lib.add_folder(folder)
        out = {"load_s": round(t1 - t0, 1), "index_s": round(time.perf_counter() - t1, 1), "added": rep.added, "skipped": rep.skipped,
               "failed": rep.failed, "chunks": rep.chunks_added,
               "problems": [(Path(p).name, r[:120]) for p, r in rep.problems]}
    print("RESULT " + json.dumps(out), flush=True)


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(tree: str, folder: Path, data: Path, timeout: float, what: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, __file__, "--child-" + what, str(folder), str(data)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0, peak = time.perf_counter(), 0
    while proc.poll() is None and time.perf_counter() - t0 < timeout:
        peak = max(peak, peak_kib(proc.pid))
        time.sleep(0.2)
    timed_out = proc.poll() is None
    if timed_out:
        peak = max(peak, peak_kib(proc.pid))
        proc.kill()
    out, err = proc.communicate()
    seconds = round(time.perf_counter() - t0, 1)
    res = next((json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")), {})
    return {"tree": tree, "timed_out": timed_out, "wall_s": seconds, "peak_rss_mb": round(peak / 1024),
            "rc": proc.returncode, **res, **({"stderr_tail": err[-300:]} if proc.returncode and not timed_out else {})}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child-index":
        return child(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "--child-extract":
        return child_extract(sys.argv[2])
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=0.25, help="1.0: 48 MiB base64, 190 MB of DOCX XML")
    ap.add_argument("--trees", default=str(Path(__file__).resolve().parents[2]),
                    help="comma-separated code trees to compare, e.g. /work/main,.")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cases", default="base64,docx", help="base64, docx, xlsx, ods, odp, pptx")
    ap.add_argument("--what", default="extract", choices=("extract", "index"),
                    help="extract: extraction + chunking of the hostile file (no embedding); index: the whole sync")
    args = ap.parse_args()
    trees = args.trees.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        for case in args.cases.split(","):
            folder = Path(tmp) / case
            folder.mkdir()
            for i in range(4):
                (folder / f"a{i}.txt").write_text(f"Small note {i}: tomatoes ripen in a warm greenhouse.")
            if case == "base64":
                make_base64(folder / "z.txt", 48 * args.scale)
            else:
                name, make, mb = MAKERS[case]
                make(folder / name, mb * args.scale)
            size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
            results = []
            for tree in trees:
                r = run(tree, folder, Path(tmp) / f"lib-{case}-{len(results)}", args.timeout, args.what)
                r.update(bench="hostile", what=args.what, case=case, scale=args.scale, folder_mb=round(size, 1))
                print(json.dumps(r), flush=True)
                results.append(r)
            if len(results) == 2:
                b, a = results
                # A "before" killed by --timeout has no index_s: its wall time minus the after's load time
                # is a lower bound of its indexing time.
                key = "index_s" if args.what == "index" else "extract_s"
                spent = [r.get(key, r["wall_s"]) + r.get("chunk_s", 0) for r in (b, a)]
                print(json.dumps({"bench": "hostile", "what": args.what, "case": case, "ratio": "after/before",
                                  "seconds": round(spent[1] / max(spent[0], 0.1), 4),
                                  "peak_rss": round(a["peak_rss_mb"] / max(b["peak_rss_mb"], 1), 3),
                                  "before_timed_out": b["timed_out"]}), flush=True)


if __name__ == "__main__":
    main()
