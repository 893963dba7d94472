#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/searchapp/searchapp (+ its libraries, resources, the model and OCR).
# Usage: packaging/build.sh            (uses .venv; installs the `package` extra, i.e. PyInstaller, if missing)
#        packaging/build.sh --check    (also starts the built app offscreen and checks that a window opens, then
#                                       indexes a scan it renders with the bundle's CLI and finds it by its words)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
"$PY" -c "import PyInstaller" 2>/dev/null || "$PY" -m pip install --quiet -e ".[package]"
"$PY" packaging/render_icon.py
"$PY" -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/searchapp.spec
echo "built: $(du -sh dist/searchapp | cut -f1) in dist/searchapp/ in $((SECONDS / 60)) m $((SECONDS % 60)) s (run dist/searchapp/searchapp)"
if [[ "${1:-}" == "--check" ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  out="$(QT_QPA_PLATFORM=offscreen SEARCHAPP_SMOKE_TEST=1 SEARCHAPP_DATA_DIR="$tmp/window" timeout 120 dist/searchapp/searchapp 2>&1)"
  echo "$out" | tail -5
  grep -q "window shown: True" <<<"$out" || { echo "the bundle did not open a window" >&2; exit 1; }
  echo "ok: the bundle opens its window"
  # OCR inside the bundle: words rendered into a PNG here are read by the bundle's engine and found by a search.
  mkdir "$tmp/scans"
  "$PY" packaging/render_scan.py "$tmp/scans/invoice.png"
  export SEARCHAPP_DATA_DIR="$tmp/library" HF_HUB_OFFLINE=1
  out="$(timeout 600 dist/searchapp/searchapp index "$tmp/scans" 2>&1)" || { echo "$out" >&2; exit 1; }
  echo "$out" | tail -3
  hits="$(timeout 120 dist/searchapp/searchapp search "harbour maintenance" --mode lexical 2>&1)" || true
  echo "$hits" | head -3
  grep -q "invoice.png" <<<"$hits" || { echo "the bundle did not find the scan by its words (OCR)" >&2; exit 1; }
  echo "ok: the bundle reads a scan by OCR and finds it by its words"
  echo "bundle: $(du -sh dist/searchapp | cut -f1); largest parts:"
  du -sh dist/searchapp/_internal/* | sort -h | tail -6
fi
