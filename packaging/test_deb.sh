#!/usr/bin/env bash
# Use the Debian package as a user's machine would: install it with apt, run --version and the offscreen
# walk through every step from the installed location, leave a ledger and recent files in a user's home,
# upgrade to a newer build (they must survive), and remove it (nothing may be left outside the user's
# data). Needs root or sudo, and apt. Exits non-zero at the first thing that does not work.
#   packaging/test_deb.sh OLDER.deb NEWER.deb [WORK_FOLDER]
set -euo pipefail
OLDER=$(realpath "$1"); NEWER=$(realpath "$2")
WORK=${3:-$(mktemp -d -t dp-workbench-deb-XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\033[1m[deb-test]\033[0m %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# waits for dpkg's lock: the Windows build beside it may be installing Wine (tests/background_builds.py)
apt_quiet() { as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@" -y -qq -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=900 >/dev/null; }
fail() { say "FAILED: $*"; exit 1; }

export QT_QPA_PLATFORM=offscreen HOME="$WORK/home"
unset DP_WORKBENCH_LEDGER XDG_DATA_HOME XDG_CONFIG_HOME  # the user's own ledger and settings, where a user has them
rm -rf "$HOME" && mkdir -p "$HOME"
user_data() {  # the ledger and the settings (recent files), with their checksums
  find "$HOME/.local/share/dp-workbench" "$HOME/.config/DP Workbench" -type f -print0 | sort -z | xargs -0 sha256sum
}

say "apt install $(basename "$OLDER")"
apt_quiet remove dp-workbench 2>/dev/null || true
apt_quiet install "$OLDER" || apt_quiet install --no-install-recommends "$OLDER"
[ "$(command -v dp-workbench)" = /usr/bin/dp-workbench ] || fail "dp-workbench is not on the PATH"
[ "$(command -v dp-workbench-gui)" = /usr/bin/dp-workbench-gui ] || fail "dp-workbench-gui is not on the PATH"
dp-workbench --version | tee "$WORK/version-older.txt" | grep -q OpenDP || fail "--version"
test -s /usr/share/applications/dp-workbench.desktop || fail "no menu entry"
grep -q "application/x-dp-workbench-plan" /usr/share/applications/dp-workbench.desktop || fail "plans not opened"
test -s /usr/share/icons/hicolor/256x256/apps/dp-workbench.png || fail "no icon"
test -s /usr/share/mime/packages/dp-workbench.xml || fail "no MIME type for plans"
if command -v update-mime-database >/dev/null; then
  grep -q "application/x-dp-workbench-plan" /usr/share/mime/globs2 || fail "the MIME database does not know plans"
fi

say "The installed app: the walk through every step, a release into the user's own ledger, a recent file"
dp-workbench-gui --smoke-test "$WORK/shots-older" >/dev/null
test -s "$WORK/shots-older/06-release.png" || fail "the installed app's walk through the steps"
cp /opt/dp-workbench/sample/household_survey.csv "$WORK/survey.csv"
dp-workbench release "$WORK/survey.csv" --plan /opt/dp-workbench/sample/household_survey.plan.json \
  --out "$WORK/release-older" --dataset-budget 3 1e-6 >/dev/null
test -s "$HOME/.local/share/dp-workbench/ledger.sqlite" || fail "the release did not use the user's ledger"
dp-workbench-gui "$WORK/survey.csv" --smoke-test "$WORK/shots-recent" >/dev/null  # opening a file remembers it
say "The installed package: synthetic microdata of the sample (Polars, Private-PGM and JAX), as CSV and SPSS"
python3 - /opt/dp-workbench/sample/household_survey.plan.json "$WORK/synthetic.plan.json" <<'PLAN'
import json, sys
plan = json.load(open(sys.argv[1], encoding="utf-8"))
plan.update(version=2, statistics=[{
    "type": "synthetic", "columns": ["region", "sex", "age"], "edges": {"age": [18, 65]}, "rows": 1000, "keep": [],
    "numeric_values": "uniform", "algorithm": "mst", "mechanism": "gaussian", "epsilon": 1.0, "delta": 1e-7}])
plan["dataset"]["name"] = "Household survey (synthetic microdata)"
json.dump(plan, open(sys.argv[2], "w", encoding="utf-8"))
PLAN
dp-workbench release "$WORK/survey.csv" --plan "$WORK/synthetic.plan.json" --out "$WORK/synthetic" \
  --synthetic-format sav --ledger "$WORK/synthetic.sqlite" --dataset-budget 3 1e-6 >/dev/null
[ "$(wc -l < "$WORK/synthetic/synthetic.csv")" = 1001 ] || fail "the installed package's synthetic table has not 1,000 rows"
test -s "$WORK/synthetic/synthetic.sav" || fail "the installed package wrote no synthetic.sav"
grep -q "survey.csv" "$HOME/.config/DP Workbench/DP Workbench.conf" || fail "no recent files were kept"
user_data > "$WORK/user-data-before.txt"
python3 "$ROOT/packaging/measure.py" /opt/dp-workbench "$OLDER" --json "$WORK/measurements.json" | tee "$WORK/measure.txt" >&2

say "apt install $(basename "$NEWER") (the upgrade)"
apt_quiet install "$NEWER"
[ "$(dpkg-query -W -f='${Version}' dp-workbench)" = "$(dpkg-deb -f "$NEWER" Version)" ] || fail "not upgraded"
user_data > "$WORK/user-data-after.txt"
diff "$WORK/user-data-before.txt" "$WORK/user-data-after.txt" >&2 || fail "the upgrade changed the user's data"
dp-workbench ledger verify >/dev/null || fail "the ledger does not verify after the upgrade"
dp-workbench ledger show | grep -q "1 release" || fail "the ledger lost its release in the upgrade"
dp-workbench-gui --smoke-test "$WORK/shots-newer" >/dev/null
test -s "$WORK/shots-newer/06-release.png" || fail "the upgraded app's walk through the steps"

say "apt purge (removes the package and anything it configured)"
dpkg-query -L dp-workbench > "$WORK/installed-files.txt"
user_data > "$WORK/user-data-before-removal.txt"
apt_quiet purge dp-workbench
left=$(while read -r path; do if [ -e "$path" ] && [ ! -d "$path" ]; then echo "$path"; fi; done < "$WORK/installed-files.txt")
[ -z "$left" ] || fail "files left after removal: $left"
[ ! -e /opt/dp-workbench ] || fail "/opt/dp-workbench is still there: $(find /opt/dp-workbench | head)"
hash -r; ! command -v dp-workbench >/dev/null || fail "dp-workbench is still on the PATH: $(command -v dp-workbench)"
user_data > "$WORK/user-data-removed.txt"
diff "$WORK/user-data-before-removal.txt" "$WORK/user-data-removed.txt" >&2 || fail "removing the package touched the user's data"
say "The package works: installed, upgraded and removed; the user's ledger and recent files were kept"
