"""Print `name==X` for the light pure-Python dependencies at the lowest version pyproject.toml allows, for
`make test-lowest` (the declared lower bounds must be ones the code works with: sqlite-utils' table API as the
OCR cache uses it, and the write lane's rules, which follow sqlite-utils 4's atomic(): decision 0126)."""

import re
import sys
import tomllib
from pathlib import Path

LIGHT = ("sqlite-utils", "olefile", "xlrd")  # cheap to install beside the rest; torch, transformers and Qt are not

deps = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]["dependencies"]
for name in LIGHT:
    spec = next(d for d in deps if re.match(rf"{re.escape(name)}\s*[<>=!~]", d))
    low = re.search(r">=\s*([\w.]+)", spec)
    if low is None:
        sys.exit(f"{name}: no lower bound in pyproject.toml ({spec!r})")
    print(f"{name}=={low.group(1)}")
