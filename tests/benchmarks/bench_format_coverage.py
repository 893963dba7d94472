"""Format coverage: does a fact that lies only inside a newly read format reach search at all?

    python tests/benchmarks/bench_format_coverage.py [--before-tree /tmp/before-formats]

Writes ~30 files into a temp folder: 20 "answer" files, each holding one fact only inside a format searchapp
did not read before that round (xlsx cells, ods sheets, pptx/odp slide text or speaker notes, eml bodies,
mbox messages, zip members, PNG text read by OCR), plus 10 plain .txt distractors on related topics. Each of
20 questions is searched in hybrid mode (k=10, grouped by file, packaged all-MiniLM-L6-v2, no reranker, cpu,
SEARCHAPP_OCR_ENGINE=rapidocr); the rank of the file whose shown path holds the answer file's name is recorded.
"Before" is the same corpus indexed by an older checkout (`git worktree add /tmp/before-formats 2650ac9`) in a
subprocess with PYTHONPATH pointing there; "after" is this checkout, also in a subprocess. Prints one JSON line
per question and a summary line. Never run in CI.

What it measures is coverage: before, those formats were not read, so nothing could find their facts; after,
they are read and found. It is not a measure of retrieval quality on paraphrased questions: the questions are
reworded, but there are only 30 files and 10 distractors, one fact per file, written together with the
questions, so finding the one file that holds the topic is easy once its text is indexed. No paraphrase
benchmark sits beside it; retrieval quality on real questions and documents is bench_quality.py (SciFact,
Cranfield, TrecQA, against a plain pipeline in the same run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from _common import cpu_note

REPO = Path(__file__).resolve().parents[2]
K = 10

# (format, answer file, fact, question). The fact is the only place the answer appears.
CASES = [
    ("xlsx", "lisbon_budget.xlsx", "The Q3 budget for the Lisbon office was 48,200 euros",
     "how much money did the Portuguese branch get for the third quarter"),
    ("xlsx", "greenhouse_log.xlsx", "Tomato seedlings in greenhouse B need watering every 36 hours",
     "how often should the young tomato plants be watered"),
    ("xlsx", "fleet.xlsx", "The delivery van with plate KX-4471 is due for its brake inspection in March",
     "when does the truck need its brakes checked"),
    ("xlsx", "choir.xlsx", "The choir rehearses in the church basement on Thursday evenings at 7:30",
     "where and when does the singing group practise"),
    ("ods", "library_fines.ods", "Overdue children's books cost 10 cents per day in late fees",
     "what is the penalty for returning a kid's book late"),
    ("ods", "marathon.ods", "Runner number 212, Ingrid Solberg, finished the marathon in 3 hours 41 minutes",
     "what was Ingrid's race time"),
    ("ods", "bees.ods", "Hive number 4 produced 23 kilograms of honey this summer",
     "how much honey came from the fourth beehive"),
    ("pptx", "kickoff.pptx", "The new warehouse in Rotterdam opens on 14 June",
     "when will the Dutch distribution centre start operating"),
    ("pptx", "safety.pptx", "Fire drills are held on the first Monday of every quarter",
     "how frequently do we practise evacuating the building"),
    ("odp", "onboarding.odp", "New hires receive their laptop from Priya in room 3.12",
     "who hands out computers to new employees"),
    ("odp", "science_fair.odp", "The winning project measured how salt changes the boiling point of water",
     "what experiment took first prize at the school exhibition"),
    ("eml", "plumber.eml", "The plumber will replace the leaking kitchen tap on Wednesday morning",
     "when is someone coming to fix the dripping faucet"),
    ("eml", "wifi.eml", "The guest wifi password at the cabin is blueheron2024",
     "what is the wireless network key at the holiday house"),
    ("eml", "vet.eml", "Biscuit the cat is allergic to penicillin, so the vet prescribed doxycycline",
     "which antibiotic can my pet not take"),
    ("mbox", "club.mbox", "The chess club moved its tournament to the town hall because of the flood",
     "why did the board game competition change venue"),
    ("mbox", "landlord.mbox", "The rent goes up to 1,150 pounds a month from September",
     "what will the new monthly housing payment be"),
    ("zip", "recipes.zip", "Grandma's lemon cake needs three eggs and 200 grams of caster sugar",
     "how many eggs go in the citrus sponge"),
    ("zip", "trip.zip", "Our ferry to Stromness leaves Scrabster at 8:45 on Saturday",
     "what time is the boat to Orkney"),
    ("png", "whiteboard.png", "Server migration finishes on Friday night",
     "when will the move to the new servers be complete"),
    ("png", "sign.png", "Pool closed for repairs until 3 May",
     "when does the swimming pool reopen"),
]

DISTRACTORS = {
    "office_notes.txt": "Notes from the Madrid office: travel expenses were reviewed and the printer was replaced.",
    "garden.txt": "Cucumbers and peppers grow well in the greenhouse if the vents are opened on warm days.",
    "cars.txt": "Remember to check tyre pressure and oil level before a long drive.",
    "music.txt": "The orchestra concert was sold out; the violin section got a standing ovation.",
    "reading.txt": "The library added a new shelf of mystery novels and a quiet study corner.",
    "running.txt": "Training plan: long runs on Sunday, intervals on Tuesday, rest on Friday.",
    "kitchen.txt": "We painted the kitchen walls yellow and bought new chairs for the dining table.",
    "pets.txt": "The dog needs its annual vaccination and a new collar.",
    "travel.txt": "Flights to Edinburgh are cheaper on Tuesdays; the train takes about four hours.",
    "it.txt": "The office network was slow last week; IT restarted the router twice.",
}


def build_corpus(docs: Path) -> list[dict]:
    """Write the answer files and distractors under `docs`; the cases as dicts."""
    sys.path.insert(0, str(REPO / "tests"))  # the tests' own office file builders (tests/ is not a package)
    from office_files import make_mail, make_odp, make_ods, make_pptx, make_xlsx

    from PIL import Image, ImageDraw, ImageFont

    docs.mkdir(parents=True, exist_ok=True)
    for name, text in DISTRACTORS.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    for fmt, name, fact, _ in CASES:
        path = docs / name
        if fmt == "xlsx":
            rows = ('<row r="1"><c r="A1" t="inlineStr"><is><t>Note</t></is></c></row>'
                    f'<row r="2"><c r="A2" t="inlineStr"><is><t>{fact}</t></is></c><c r="B2"><v>1</v></c></row>')
            make_xlsx(path, [("Sheet1", rows)], [])
        elif fmt == "ods":
            make_ods(path, {"Sheet1": [["Note", "Checked"], [fact, "yes"]]})
        elif fmt == "pptx":  # the fact in the speaker notes of slide 2
            make_pptx(path, [(["Agenda", "Updates"], []), (["Announcements"], [fact])])
        elif fmt == "odp":  # the fact on slide 2's text
            make_odp(path, [("Welcome", ""), (fact, "")])
        elif fmt == "eml":
            path.write_bytes(make_mail(subject="Quick update", plain=fact + ".", html=None).as_bytes())
        elif fmt == "mbox":
            out = b""
            for i, body in enumerate(["Thanks for the photos, see you soon.", fact + "."], start=1):
                msg = make_mail(subject=f"Message {i}", plain=body, html=None)
                out += b"From ana@example.org Fri Mar  7 10:00:00 2025\n" + msg.as_bytes() + b"\n"
            path.write_bytes(out)
        elif fmt == "zip":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("notes/info.txt", fact + ".\n")
        elif fmt == "png":
            font = ImageFont.load_default(size=28)
            im = Image.new("RGB", (900, 120), "white")
            ImageDraw.Draw(im).text((24, 40), fact, font=font, fill="black")
            im.save(path)
    return [{"format": f, "file": n, "question": q} for f, n, _, q in CASES]


def measure(data: Path, docs: Path, cases_file: Path) -> None:
    """Index `docs` with whichever searchapp is on PYTHONPATH, search each question, print {"ranks": [...]}."""
    import searchapp
    from searchapp.base.config import load_config
    from searchapp.library import Library

    cases = json.loads(cases_file.read_text())
    cfg = load_config(data, env={}, overrides={"models": {"bi_encoder": "all-MiniLM-L6-v2", "reranker": "",
                                                          "device": "cpu"}})
    t0 = time.perf_counter()
    ranks = []
    with Library(cfg) as lib:
        rep = lib.add_folder(docs)
        index_s = time.perf_counter() - t0
        for c in cases:
            res = lib.search(c["question"], k=K, mode="hybrid", group="file")
            rank = next((i for i, h in enumerate(res.hits, start=1) if c["file"] in h.path), None)
            ranks.append(rank)
    print(json.dumps({"ranks": ranks, "index_s": round(index_s, 1), "added": getattr(rep, "added", None),
                      "searchapp": str(Path(searchapp.__file__).parent)}))


def run_measure(tree: Path, docs: Path, cases_file: Path, work: Path, label: str) -> dict:
    data = work / f"lib-{label}"
    data.mkdir()
    env = dict(os.environ, PYTHONPATH=str(tree), SEARCHAPP_OCR_ENGINE="rapidocr", HF_HUB_OFFLINE="1",
               QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, __file__, "--measure", str(data), str(docs), str(cases_file)],
                         env=env, cwd=str(work), capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(ranks: list) -> dict:
    n = len(ranks)
    return {"found@1": sum(r == 1 for r in ranks), "found@10": sum(r is not None for r in ranks),
            "mrr": round(sum(1 / r for r in ranks if r) / n, 3), "n": n}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before-tree", default="/tmp/before-formats")
    ap.add_argument("--measure", nargs=3, metavar=("DATA", "DOCS", "CASES"))
    args = ap.parse_args()
    if args.measure:
        measure(*(Path(p) for p in args.measure))
        return
    with tempfile.TemporaryDirectory(prefix="bench-formats-") as tmp:
        work = Path(tmp)
        docs = work / "docs"
        cases = build_corpus(docs)
        cases_file = work / "cases.json"
        cases_file.write_text(json.dumps(cases))
        load0 = os.getloadavg()[0]
        before = run_measure(Path(args.before_tree), docs, cases_file, work, "before")
        after = run_measure(REPO, docs, cases_file, work, "after")
        for c, rb, ra in zip(cases, before["ranks"], after["ranks"], strict=True):
            print(json.dumps({"question": c["question"], "format": c["format"], "file": c["file"],
                              "rank_before": rb, "rank_after": ra}))
        print(json.dumps({"summary": True, "before": summary(before["ranks"]), "after": summary(after["ranks"]),
                          "index_s_before": before["index_s"], "index_s_after": after["index_s"],
                          "files": len(list(docs.iterdir())), "load_avg_start": round(load0, 2), **cpu_note()}))


if __name__ == "__main__":
    main()
