#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/searchapp/searchapp (+ its libraries, resources and the model).
# Usage: packaging/build.sh            (uses .venv; installs the `package` extra, i.e. PyInstaller, if missing)
#        packaging/build.sh --check    (also starts the built app offscreen and checks that a window opens)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
"$PY" -c "import PyInstaller" 2>/dev/null || "$PY" -m pip install --quiet -e ".[package]"
"$PY" packaging/render_icon.py
"$PY" -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/searchapp.spec
echo "built: $(du -sh dist/searchapp | cut -f1) in dist/searchapp/ (run dist/searchapp/searchapp)"
if [[ "${1:-}" == "--check" ]]; then
  data="$(mktemp -d)"
  out="$(QT_QPA_PLATFORM=offscreen SEARCHAPP_SMOKE_TEST=1 SEARCHAPP_DATA_DIR="$data" timeout 120 dist/searchapp/searchapp 2>&1)"
  rm -rf "$data"
  echo "$out" | tail -5
  grep -q "window shown: True" <<<"$out" || { echo "the bundle did not open a window" >&2; exit 1; }
  echo "ok: the bundle opens its window"
fi
