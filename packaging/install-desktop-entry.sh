#!/usr/bin/env bash
# Add DP Workbench to the desktop's application menu for this user (no root needed), pointing at the
# folder this script is in. Run it again after moving the folder; remove with --remove.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
APPS="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
ICONS="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/256x256/apps"
if [ "${1:-}" = "--remove" ]; then
  rm -f "$APPS/dp-workbench.desktop" "$ICONS/dp-workbench.png"
  echo "Removed DP Workbench from the application menu."
  exit 0
fi
mkdir -p "$APPS" "$ICONS"
install -m 644 "$HERE/dp-workbench.png" "$ICONS/dp-workbench.png"
sed "s|^Exec=dp-workbench-gui|Exec=\"$HERE/dp-workbench-gui\"|" "$HERE/dp-workbench.desktop" > "$APPS/dp-workbench.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database "$APPS" 2>/dev/null || true
echo "DP Workbench is in the application menu (Office, Science). To start it from a terminal: $HERE/dp-workbench-gui"
