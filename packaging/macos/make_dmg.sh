#!/usr/bin/env bash
# Wrap "dist/DP Workbench.app" (PyInstaller, packaging/dp_workbench.spec on macOS) in a disk image with a
# link to /Applications, so that installing is dragging the app onto it. Signs and notarises only when the
# secrets are there (MACOS_SIGN_IDENTITY; APPLE_ID, APPLE_TEAM_ID, APPLE_APP_PASSWORD for notarisation).
#   packaging/macos/make_dmg.sh VERSION   -> dist/dp-workbench-VERSION-macos-ARCH.dmg
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=$1
APP="dist/DP Workbench.app"
DMG="dist/dp-workbench-${VERSION}-macos-$(uname -m).dmg"
STAGE=$(mktemp -d)
test -d "$APP" || { echo "no $APP: build it with PyInstaller first" >&2; exit 1; }
if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
  codesign --force --deep --options runtime --timestamp --sign "$MACOS_SIGN_IDENTITY" "$APP"
fi
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "DP Workbench" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
rm -rf "$STAGE"
if [ -n "${MACOS_SIGN_IDENTITY:-}" ] && [ -n "${APPLE_ID:-}" ]; then
  codesign --sign "$MACOS_SIGN_IDENTITY" --timestamp "$DMG"
  xcrun notarytool submit "$DMG" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
    --password "$APPLE_APP_PASSWORD" --wait
  xcrun stapler staple "$DMG"
fi
echo "$DMG"
