#!/usr/bin/env bash
# Wrap the bundle (dist/dp-workbench, from build.sh) in a Debian package: it installs into /opt/dp-workbench,
# puts dp-workbench and dp-workbench-gui on the PATH, and adds the menu entry, the icon and the MIME type of
# plan files (*.plan.json), so that a double-click on a plan opens it. Needs dpkg-deb (Debian, Ubuntu).
#   packaging/build_deb.sh [BUNDLE [REVISION]]   -> dist/dp-workbench_VERSION-REVISION_ARCH.deb
# The user's ledger, settings and recent files live in their home folder: the package never touches them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUNDLE=$(cd "${1:-$ROOT/dist/dp-workbench}" && pwd)
REVISION=${2:-1}
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' workbench/__init__.py)
ARCH=$(dpkg --print-architecture)
STAGE="$ROOT/build/deb/dp-workbench"
OUT="$ROOT/dist/dp-workbench_${VERSION}-${REVISION}_${ARCH}.deb"
say() { printf '\033[1m[deb]\033[0m %s\n' "$*" >&2; }

say "Staging $BUNDLE as /opt/dp-workbench"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
  "$STAGE/usr/share/icons/hicolor/256x256/apps" "$STAGE/usr/share/mime/packages" "$STAGE/usr/share/doc/dp-workbench"
cp -a "$BUNDLE" "$STAGE/opt/dp-workbench"
rm -f "$STAGE/opt/dp-workbench/install-desktop-entry.sh"  # the tarball's way into the menu; the package has its own
for program in dp-workbench dp-workbench-gui; do
  printf '#!/bin/sh\nexec /opt/dp-workbench/%s "$@"\n' "$program" > "$STAGE/usr/bin/$program"
  chmod 755 "$STAGE/usr/bin/$program"
done
sed 's|^MimeType=|MimeType=application/x-dp-workbench-plan;|' packaging/dp-workbench.desktop \
  > "$STAGE/usr/share/applications/dp-workbench.desktop"
install -m 644 packaging/dp-workbench.png "$STAGE/usr/share/icons/hicolor/256x256/apps/dp-workbench.png"
install -m 644 packaging/dp-workbench-mime.xml "$STAGE/usr/share/mime/packages/dp-workbench.xml"
printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: dp-workbench\n\nFiles: *\nCopyright: DP Workbench developers\nLicense: Apache-2.0\n' \
  > "$STAGE/usr/share/doc/dp-workbench/copyright"

cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: dp-workbench
Version: ${VERSION}-${REVISION}
Section: science
Priority: optional
Architecture: ${ARCH}
Maintainer: DP Workbench developers <dp-workbench@users.noreply.github.com>
Installed-Size: $(du -sk "$STAGE" | cut -f1)
Depends: libc6, libgl1, libegl1, libopengl0, libfontconfig1, libfreetype6, libxkbcommon0, libxkbcommon-x11-0,
 libglib2.0-0t64 | libglib2.0-0, libdbus-1-3, libxcb-cursor0, libxcb-icccm4, libxcb-image0, libxcb-keysyms1,
 libxcb-randr0, libxcb-render-util0, libxcb-shape0, libxcb-xinerama0, libxcb-xfixes0, libxcb-xkb1, libx11-xcb1,
 libxrender1, fonts-dejavu-core
Recommends: shared-mime-info, desktop-file-utils
Description: differentially private releases of tables, offline
 DP Workbench helps statisticians prepare differentially private releases of their tables
 (counts, sums, means, quantiles, histograms, cross-tabulations) on their own computer,
 with a persistent privacy ledger and a report that states each number's error.
 Nothing it opens leaves the computer.
CONTROL
# the menu, the MIME database and the icon cache are refreshed by the triggers of desktop-file-utils,
# shared-mime-info and the icon theme, where installed: no maintainer scripts are needed

say "Packing $OUT"
mkdir -p "$ROOT/dist"
# DEB_THREADS: the compressor's threads at most (dpkg 1.21.9 or later; by default as many as dpkg-deb likes)
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" -z"${DEB_LEVEL:-9}" ${DEB_THREADS:+--threads-max="$DEB_THREADS"} \
  --build "$STAGE" "$OUT" >/dev/null
rm -rf "$STAGE"
say "$(du -m "$OUT" | cut -f1) MB: $OUT"
echo "$OUT"
