"""Write a PNG of rendered words (a stand-in for a scan) for `build.sh --check`: the bundle must find it by them."""

from __future__ import annotations

import sys

from PIL import Image, ImageDraw, ImageFont

WORDS = ("Quarterly invoice for harbour maintenance", "Payment due within thirty days")


def main(path: str) -> int:
    font = ImageFont.load_default(size=44)  # FreeType's bundled font: no system font needed
    img = Image.new("RGB", (1400, 400), "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(WORDS):
        draw.text((60, 80 + 120 * i), line, fill="black", font=font)
    img.save(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
