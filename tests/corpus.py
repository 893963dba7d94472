"""Builders of real documents for tests: PDF (fpdf2), DOCX (python-docx), ODT (odfpy), EPUB (zip by hand),
HTML, Markdown and plain text, each about one distinct topic so a search has one right answer."""

from __future__ import annotations

import zipfile
from pathlib import Path

TOPICS = {
    "bread.txt": (
        "Baking sourdough bread at home\n\n"
        "A sourdough starter is a living culture of wild yeast and lactic acid bacteria. Feed the starter with "
        "equal weights of flour and water every day until it doubles within six hours. Mix the levain into the "
        "dough, let it ferment slowly, shape the loaf, and bake it in a hot Dutch oven for a crackling crust."
    ),
    "cluster.md": (
        "# Scheduling containers\n\n"
        "Kubernetes assigns each pod to a node in the cluster. The scheduler filters nodes that lack enough CPU "
        "or memory, scores the rest, and binds the pod to the best node. Taints and tolerations keep workloads "
        "off dedicated machines, while affinity rules place replicas near each other."
    ),
    "volcano.html": (
        "Volcanic eruptions",
        "Magma rises from the mantle and collects in a chamber beneath the volcano. When pressure from "
        "dissolved gases grows too high the magma erupts as lava, ash and pyroclastic flows that race down "
        "the mountain slopes. Geologists monitor ground swelling and sulfur dioxide to forecast eruptions.",
    ),
    "biology.pdf": [
        "Photosynthesis in green plants. Chlorophyll in the chloroplasts absorbs sunlight, and the plant uses "
        "that light energy to turn carbon dioxide and water into glucose, releasing oxygen as a by-product.",
        "Mitochondria are the powerhouse of the cell. Through oxidative phosphorylation these organelles "
        "produce ATP, the molecule that carries chemical energy for nearly every cellular process.",
    ],
    "castles.docx": [
        "Medieval castle architecture",
        "Stone castles of the Middle Ages were built for defence. A deep moat surrounded the curtain wall, "
        "a drawbridge guarded the gatehouse, and archers shot from the battlements of the keep.",
    ],
    "jazz.odt": [
        "Jazz improvisation",
        "In a jazz combo the saxophonist improvises a solo over the chord changes, quoting the melody, "
        "playing bebop scales and trading phrases with the drummer before the band returns to the head.",
    ],
    "ocean.epub": [
        ("Chapter one", "The octopus lives on the deep sea floor and hunts crabs at night."),
        ("Chapter two", "Cephalopods change the colour and texture of their skin in an instant, using "
                        "chromatophores to camouflage themselves against coral and rock."),
    ],
}

# (query, expected file name, page or None) per mode: dense and hybrid queries are paraphrases that share
# few words with the text; lexical queries use the text's own words.
SEMANTIC_QUERIES = [
    ("how do I keep a wild yeast culture alive for baking loaves", "bread.txt", None),
    ("molten rock exploding out of a mountain", "volcano.html", None),
    ("how do leaves turn sunlight into sugar", "biology.pdf", 1),
    ("which part of a cell makes energy", "biology.pdf", 2),
    ("fortified stone buildings with water-filled ditches", "castles.docx", None),
    ("a sax player making up a solo over chords", "jazz.odt", None),
    ("how do squid and octopuses hide by changing skin colour", "ocean.epub", None),
    ("placing workloads on machines in a container orchestrator", "cluster.md", None),
]
LEXICAL_QUERIES = [
    ("sourdough starter levain", "bread.txt", None),
    ("magma eruption lava", "volcano.html", None),
    ("chlorophyll photosynthesis", "biology.pdf", 1),
    ("mitochondria ATP", "biology.pdf", 2),
    ("moat drawbridge", "castles.docx", None),
    ("saxophonist bebop", "jazz.odt", None),
    ("chromatophores camouflage", "ocean.epub", None),
    ("kubernetes pod scheduler", "cluster.md", None),
]


def write_pdf(path: Path, pages: list[str]) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    pdf.output(str(path))


def write_docx(path: Path, paragraphs: list[str]) -> None:
    import docx

    d = docx.Document()
    d.add_heading(paragraphs[0], level=1)
    for p in paragraphs[1:]:
        d.add_paragraph(p)
    d.save(str(path))


def write_odt(path: Path, paragraphs: list[str]) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text=paragraphs[0]))
    for p in paragraphs[1:]:
        doc.text.addElement(P(text=p))
    doc.save(str(path))


def write_epub(path: Path, chapters: list[tuple[str, str]]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                   "</rootfiles></container>")
        items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(len(chapters)))
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
        z.writestr("OEBPS/content.opf",
                   '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Ocean</dc:title></metadata>'
                   f"<manifest>{items}</manifest><spine>{spine}</spine></package>")
        for i, (title, body) in enumerate(chapters):
            z.writestr(f"OEBPS/c{i}.xhtml",
                       f'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>'
                       f"<body><h1>{title}</h1><p>{body}</p></body></html>")


def write_html(path: Path, title: str, body: str) -> None:
    path.write_text(
        f"<!DOCTYPE html><html><head><title>{title}</title><style>body {{ color: red }} .hidden {{}}</style>"
        "<script>var secret = 'sourdough starter script text';</script></head>"
        f"<body><h1>{title}</h1><p>{body}</p><noscript>enable javascript</noscript></body></html>",
        encoding="utf-8",
    )


def make_mixed_corpus(folder: Path) -> Path:
    """Write one file per format under `folder` (plus a hidden and a VCS dir that must be ignored)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bread.txt").write_text(TOPICS["bread.txt"], encoding="utf-8")
    (folder / "cluster.md").write_text(TOPICS["cluster.md"], encoding="utf-8")
    write_html(folder / "volcano.html", *TOPICS["volcano.html"])
    write_pdf(folder / "biology.pdf", TOPICS["biology.pdf"])
    sub = folder / "office"
    sub.mkdir(exist_ok=True)
    write_docx(sub / "castles.docx", TOPICS["castles.docx"])
    write_odt(sub / "jazz.odt", TOPICS["jazz.odt"])
    write_epub(folder / "ocean.epub", TOPICS["ocean.epub"])
    for hidden in (".git", "node_modules"):
        (folder / hidden).mkdir(exist_ok=True)
        (folder / hidden / "notes.txt").write_text("sourdough starter levain hidden copy", encoding="utf-8")
    return folder


def write_texts(folder: Path, texts: dict[str, str]) -> Path:
    """`folder` holding one UTF-8 text file per name in `texts` (made when missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def committee_notes(root, n: int = 400):
    """`root`/many holding `n` notes of eight sentences each (a folder a sync takes a while over, several batches):
    (that folder, n)."""
    many = root / "many"
    many.mkdir()
    for i in range(n):
        (many / f"note{i:03d}.txt").write_text(
            f"Note {i}. " + " ".join(f"The committee discussed item {i}-{j} about budgets and rivers." for j in range(8)),
            encoding="utf-8")
    return many, n
