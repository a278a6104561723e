#!/usr/bin/env bash
# Build the one-folder Linux application dist/dp-workbench/ from this checkout, then print its size
# and how long the bundled app takes to show its main window. Needs Python 3.11+ and the Qt runtime
# libraries (./dev installs them). The build runs in its own virtual environment (build/venv) that
# holds only DP Workbench, its dependencies and PyInstaller: nothing from a development setup leaks in.
#   packaging/build.sh            build into dist/dp-workbench and dist/dp-workbench-linux-x86_64.tar.xz
#   PYTHON=python3.12 packaging/build.sh     build with another Python
#   ARCHIVE=no packaging/build.sh            skip the .tar.xz (the smoke test does)
#   VENV=DIR packaging/build.sh              use (or create) the build environment in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PYTHON=${PYTHON:-python3}
VENV=${VENV:-$ROOT/build/venv}
say() { printf '\033[1m[build]\033[0m %s\n' "$*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
  say "Creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
say "Installing DP Workbench and PyInstaller into $VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "$ROOT" "pyinstaller>=6.10,<7"

say "Bundling (a few minutes)"
rm -rf "$ROOT/dist/dp-workbench"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
  packaging/dp_workbench.spec

APP="$ROOT/dist/dp-workbench"
install -m 644 packaging/dp-workbench.desktop packaging/dp-workbench.png "$APP/"
install -m 755 packaging/install-desktop-entry.sh "$APP/"
mkdir -p "$APP/sample"
install -m 644 resources/sample/household_survey.csv resources/sample/household_survey.plan.json \
  resources/sample/household_survey.tables.plan.json "$APP/sample/"
ARCHIVE_PATH="$ROOT/dist/dp-workbench-linux-x86_64.tar.xz"
if [ "${ARCHIVE:-yes}" != no ]; then
  say "Packing $ARCHIVE_PATH"
  tar -C "$ROOT/dist" -cf - dp-workbench | xz -T0 -9 > "$ARCHIVE_PATH"
fi

"$VENV/bin/python" packaging/measure.py "$APP" "$ARCHIVE_PATH"
