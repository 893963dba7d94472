"""A small library for the similar / duplicates / filters tests: an original report, its exact copy, a reworded
draft, a same-topic but different text, and unrelated files of several types and dates."""

from __future__ import annotations

import os
import time
from pathlib import Path

ORIGINAL = ("Our sourdough starter is fed every morning with equal weights of flour and water. After the starter "
            "doubles, we mix it into the dough, let the dough ferment slowly overnight in the fridge, shape the loaf "
            "and bake it in a very hot Dutch oven so the crust crackles.")
REWORDED = ("Each morning we feed the sourdough culture the same weight of water and of flour. Once it has doubled in "
            "size it goes into the dough, which ferments slowly in the refrigerator overnight; then the loaf is shaped "
            "and baked in a Dutch oven at high heat for a crackling crust.")
SAME_TOPIC = ("Bread baking basics: flour, water, salt and yeast are mixed into a dough that rises before it is baked "
              "in an oven.")
UNRELATED = {
    "cluster.md": "Kubernetes assigns each pod to a node in the cluster. The scheduler filters nodes that lack enough "
                  "CPU or memory, scores the rest, and binds the pod to the best node.",
    "volcano.txt": "Magma rises from the mantle and collects in a chamber beneath the volcano until gas pressure makes "
                   "it erupt as lava and ash.",
    "jazz.txt": "The saxophonist improvises a solo over the chord changes, quoting the melody and trading phrases with "
                "the drummer.",
    "castle.md": "Stone castles were built for defence: a moat, a curtain wall, a drawbridge and archers on the "
                 "battlements of the keep.",
}
OLD = time.mktime((2020, 6, 15, 12, 0, 0, 0, 0, -1))  # mtime of the files under old/


def make(root: Path) -> Path:
    """root/reports/original.txt, root/reports/copy.txt (same bytes), root/drafts/reworded.md,
    root/drafts/basics.txt, root/misc/* (unrelated), root/old/* (unrelated, modified in 2020)."""
    files = {
        "reports/original.txt": ORIGINAL,
        "reports/copy.txt": ORIGINAL,
        "drafts/reworded.md": REWORDED,
        "drafts/basics.txt": SAME_TOPIC,
    }
    for name, text in UNRELATED.items():
        files[f"misc/{name}"] = text
        files[f"old/{name}"] = text + " (archived copy, edited)"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        if rel.startswith("old/"):
            os.utime(p, (OLD, OLD))
    return root


def index(root: Path, encoder) -> tuple[Path, "object"]:
    """The corpus under root/docs, indexed into root/library with `encoder`: (docs folder, its Config)."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    docs = make(root / "docs")
    config = load_config(root / "library", env={})
    with Library(config, encoder=encoder) as lib:
        lib.add_folder(docs)
    return docs, config
