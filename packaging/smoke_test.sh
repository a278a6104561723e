#!/usr/bin/env bash
# Build the bundle (and, for the hosted workflow, its .tar.xz) from a clean checkout of this repository's HEAD (what is committed, nothing
# else) and use it as a user would, offscreen (try_bundle.py, the same checks on every platform); then, where
# root and apt are at hand, build the Debian package and install, upgrade and remove it (test_deb.sh).
# Exits non-zero at the first thing that does not work.
#   packaging/smoke_test.sh [WORK_FOLDER]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d -t dp-workbench-bundle-XXXXXX)}
say() { printf '\033[1m[smoke]\033[0m %s\n' "$*" >&2; }
# each stage's time, kept in WORK/linux-build-times.txt (shown in the test run's summary: tests/build_report.py)
STAGE=$SECONDS
timed() { printf '%-46s %4d s\n' "$1" $((SECONDS - STAGE)) >> "$WORK/linux-build-times.txt"; STAGE=$SECONDS; }

rm -rf "$WORK/checkout" "$WORK/linux-build-times.txt"
git clone -q --depth 1 "file://$ROOT" "$WORK/checkout"
say "Building from a clean checkout in $WORK/checkout"
# the build's virtual environment is kept beside the real checkout, so that a second run is quicker
# the .tar.xz (minutes of xz) only when the downloads are kept (the hosted workflow); the .deb is always made
ARCHIVE=$([ -n "${DP_WORKBENCH_ARTIFACTS:-}" ] && echo yes || echo no)
(cd "$WORK/checkout" && VENV="$ROOT/build/venv" ARCHIVE=$ARCHIVE packaging/build.sh)
timed "the bundle (packaging/build.sh)"

APP="$WORK/checkout/dist/dp-workbench"
"$ROOT/build/venv/bin/python" -m pip install -q "openpyxl>=3.1,<4"  # to write the workbook; not bundled
"$ROOT/build/venv/bin/python" "$WORK/checkout/packaging/try_bundle.py" "$APP" "$WORK"
say "The bundle works: $APP"
timed "the bundle tried (try_bundle.py)"

if command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }; then
  say "The Debian package: an older and a newer build, installed, upgraded and removed"
  # xz -9 of the whole bundle is the build's longest stage (over 20 minutes in CI): on one core, so that the test
  # suite running beside it keeps the other (two threads took both, and 1.9 GB)
  THREADS=$(dpkg-deb --help 2>/dev/null | grep -q threads-max && echo 1 || echo "")
  (cd "$WORK/checkout" && DEB_THREADS=$THREADS packaging/build_deb.sh "$APP" 1 >/dev/null && DEB_COMPRESSION=gzip DEB_LEVEL=1 packaging/build_deb.sh "$APP" 2 >/dev/null)
  timed "the .deb packages (xz -9, and gzip -1)"
  "$WORK/checkout/packaging/test_deb.sh" "$WORK"/checkout/dist/dp-workbench_*-1_*.deb "$WORK"/checkout/dist/dp-workbench_*-2_*.deb \
    "$WORK/deb"
  timed "the .deb installed, upgraded and removed"
else
  say "Not trying the Debian package: that needs dpkg-deb, apt and root (or sudo without a password)"
fi

if [ -n "${DP_WORKBENCH_ARTIFACTS:-}" ]; then  # the hosted build's downloads (.github/workflows/installers.yml)
  mkdir -p "$DP_WORKBENCH_ARTIFACTS"
  cp "$WORK"/checkout/dist/*.tar.xz "$WORK"/checkout/dist/dp-workbench_*-1_*.deb "$DP_WORKBENCH_ARTIFACTS"/ 2>/dev/null || true
  say "Downloads copied to $DP_WORKBENCH_ARTIFACTS: $(ls "$DP_WORKBENCH_ARTIFACTS" | tr '\n' ' ')"
fi
