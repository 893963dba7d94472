"""Render resources/searchapp.svg to resources/searchapp.png (256 px) with Qt's SVG renderer, offscreen."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

RES = Path(__file__).resolve().parents[1] / "resources"


def main(size: int = 256) -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 - the renderer needs an application
    renderer = QSvgRenderer(str(RES / "searchapp.svg"))
    if not renderer.isValid():
        print("searchapp.svg is not valid SVG", file=sys.stderr)
        return 1
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    renderer.render(p)
    p.end()
    out = RES / "searchapp.png"
    return 0 if img.save(str(out)) else 1


if __name__ == "__main__":
    sys.exit(main())
