#!/usr/bin/env bash
# Use the Windows installer under Wine as a Windows user would, headless: install an older build silently for
# the current user (no administrator), check the Start-menu entries and the entry in Settings > Apps, run the
# installed program (--version, the app's walk through all six steps, a release into the user's own ledger in
# %LOCALAPPDATA% with the report's PDF, a file opened so that the settings remember it), install the newer
# build over it (the ledger and the settings must be unchanged, the older build's files gone), run it again,
# and uninstall it (every installed file and the Start-menu entries gone, the ledger and the settings kept).
# Run by build_under_wine.sh, which makes the Wine prefix; exits non-zero at the first thing that does not work.
#   WINEPREFIX=... LOCALAPPDATA=/unix/path/of/%LOCALAPPDATA% try_installer_under_wine.sh OLDER.exe NEWER.exe WORK
set -euo pipefail
OLDER=$(realpath "$1"); NEWER=$(realpath "$2"); WORK=$(mkdir -p "$3" && cd "$3" && pwd)
: "${WINEPREFIX:?the Wine prefix}" "${LOCALAPPDATA:?the Unix path of the Wine user\'s %LOCALAPPDATA%}"
say() { printf '\033[1m[wine-installer]\033[0m %s\n' "$*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
win() { wine "$@" </dev/null 2>&1 | cat; }  # a Windows Python's stdout must be a pipe under Wine 8
winpath() { local path; path=$(realpath -m "$1"); printf 'Z:%s' "${path//\//\\}"; }
export QT_QPA_PLATFORM=offscreen
unset DISPLAY WAYLAND_DISPLAY DP_WORKBENCH_LEDGER

INSTDIR="$LOCALAPPDATA/Programs/DP Workbench"
START_MENU="$(dirname "$LOCALAPPDATA")/Roaming/Microsoft/Windows/Start Menu/Programs"
UNINSTALL_KEY='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\DP Workbench'
SETTINGS_KEY='HKCU\Software\DP Workbench'
LEDGER="$LOCALAPPDATA/dp-workbench/ledger.sqlite"
# Wine's own diagnostics (a crash elsewhere in the prefix: "wine: Unhandled page fault ...", "0090:err:...") share
# reg.exe's output through win(); they are not the registry's (a CI run's upgrade check saw one and failed)
registry() { win reg query "$@" | tr -d '\r' | { grep -Ev '^(wine: |[0-9a-f]{4}:(err|fixme|warn|trace):)' || true; }; }
installed_version() { registry "$UNINSTALL_KEY" /v DisplayVersion | awk '/DisplayVersion/{print $3}'; }
user_data() {  # the ledger's checksum and the settings (where Qt keeps them on Windows: the registry)
  sha256sum "$LEDGER" | cut -d' ' -f1
  registry "$SETTINGS_KEY" /s
}
uninstall() {  # the uninstaller copies itself to %TEMP% and runs from there: wait until it has finished
  win "$INSTDIR/uninstall.exe" /S
  local waited=0
  while registry "$UNINSTALL_KEY" >/dev/null 2>&1 && [ -n "$(installed_version)" ]; do
    sleep 2; waited=$((waited + 2)); [ $waited -lt 300 ] || fail "the uninstaller has not finished in 5 minutes"
  done
  sleep 2
}
try_installed() {  # NAME: the installed program's checks
  local name=$1
  win "$INSTDIR/dp-workbench.exe" --version | tee "$WORK/version-$name.txt" | grep -q OpenDP \
    || fail "the installed dp-workbench.exe --version: $(cat "$WORK/version-$name.txt")"
  win "$INSTDIR/dp-workbench-gui.exe" --smoke-test "$(winpath "$WORK/shots-$name")" >/dev/null
  [ -s "$WORK/shots-$name/06-release.png" ] || fail "the installed app's walk through the six steps ($name)"
}

say "Silent install for the current user: $(basename "$OLDER")"
rm -rf "$LOCALAPPDATA/dp-workbench" "$INSTDIR" "$WORK"/shots-* "$WORK"/release-*
win reg delete "$SETTINGS_KEY" /f >/dev/null || true
win "$OLDER" /S
[ -f "$INSTDIR/dp-workbench-gui.exe" ] && [ -f "$INSTDIR/dp-workbench.exe" ] || fail "not installed into $INSTDIR"
[ -f "$INSTDIR/uninstall.exe" ] || fail "no uninstaller in $INSTDIR"
[ -s "$START_MENU/DP Workbench.lnk" ] || fail "no Start-menu entry in $START_MENU"
[ -s "$START_MENU/DP Workbench sample dataset.lnk" ] || fail "no Start-menu entry for the sample dataset"
[ "$(installed_version)" = 0.0.1 ] || fail "Settings > Apps does not list the installed build: $(registry "$UNINSTALL_KEY")"

say "The installed program: --version, the walk through the six steps, a release into the user's own ledger"
try_installed older
cp "$INSTDIR/sample/household_survey.csv" "$WORK/survey.csv"
win "$INSTDIR/dp-workbench.exe" release "$(winpath "$WORK/survey.csv")" --plan \
  "$(winpath "$INSTDIR/sample/household_survey.plan.json")" --out "$(winpath "$WORK/release-older")" --report \
  --dataset-budget 3 1e-6 > "$WORK/release-older.txt" || { cat "$WORK/release-older.txt" >&2; fail "the release"; }
[ -s "$LEDGER" ] || fail "the installed program's release charged no ledger at $LEDGER"
[ "$(head -c 5 "$WORK/release-older/report.pdf" 2>/dev/null)" = "%PDF-" ] || fail "no report.pdf from the installed program"
win "$INSTDIR/dp-workbench-gui.exe" "$(winpath "$WORK/survey.csv")" --smoke-test "$(winpath "$WORK/shots-recent")" >/dev/null
registry "$SETTINGS_KEY" /s | grep -q "survey.csv" || fail "the settings keep no recent file: $(registry "$SETTINGS_KEY" /s)"
user_data > "$WORK/user-data-before.txt"

say "The upgrade: $(basename "$NEWER") over it"
win "$NEWER" /S
[ "$(installed_version)" = "$(basename "$NEWER" | sed -n 's/^dp-workbench-\(.*\)-windows-x64-setup\.exe$/\1/p')" ] \
  || fail "not upgraded: Settings > Apps says $(installed_version)"
[ ! -e "$INSTDIR/_internal/older-build-only.txt" ] || fail "the upgrade left a file of the older build"
user_data > "$WORK/user-data-after.txt"
diff "$WORK/user-data-before.txt" "$WORK/user-data-after.txt" >&2 || fail "the upgrade changed the user's ledger or settings"
win "$INSTDIR/dp-workbench.exe" ledger verify >/dev/null || fail "the ledger does not verify after the upgrade"
win "$INSTDIR/dp-workbench.exe" ledger show | grep -q "1 release" || fail "the ledger lost its release in the upgrade"
try_installed newer

say "Uninstall"
find "$INSTDIR" -type f | sort > "$WORK/installed-files.txt"
[ "$(wc -l < "$WORK/installed-files.txt")" -gt 1000 ] || fail "only $(wc -l < "$WORK/installed-files.txt") files installed?"
user_data > "$WORK/user-data-before-removal.txt"
uninstall
left=$(while read -r path; do [ ! -e "$path" ] || echo "$path"; done < "$WORK/installed-files.txt")
[ -z "$left" ] || fail "files left after uninstalling: $(echo "$left" | head)"
[ ! -e "$INSTDIR" ] || fail "$INSTDIR is still there: $(find "$INSTDIR" | head)"
[ ! -e "$START_MENU/DP Workbench.lnk" ] && [ ! -e "$START_MENU/DP Workbench sample dataset.lnk" ] \
  || fail "the Start-menu entries are still there"
user_data > "$WORK/user-data-removed.txt"
diff "$WORK/user-data-before-removal.txt" "$WORK/user-data-removed.txt" >&2 || fail "uninstalling touched the user's ledger or settings"
say "The installer works: installed for the user, upgraded and uninstalled; the ledger and the settings were kept"
