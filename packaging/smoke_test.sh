#!/usr/bin/env bash
# Build the bundle from a clean checkout of this repository's HEAD (what is committed, nothing else) and
# use it as a user would, offscreen: --version names the libraries inside; the bundled app walks through
# every step of the sample data and releases; the bundled command line releases the sample plan and
# writes its results and report. Exits non-zero at the first thing that does not work.
#   packaging/smoke_test.sh [WORK_FOLDER]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d -t dp-workbench-bundle-XXXXXX)}
say() { printf '\033[1m[smoke]\033[0m %s\n' "$*" >&2; }

rm -rf "$WORK/checkout"
git clone -q --depth 1 "file://$ROOT" "$WORK/checkout"
say "Building from a clean checkout in $WORK/checkout"
# the build's virtual environment is kept beside the real checkout, so that a second run is quicker
(cd "$WORK/checkout" && VENV="$ROOT/build/venv" ARCHIVE=no packaging/build.sh)

APP="$WORK/checkout/dist/dp-workbench"
export QT_QPA_PLATFORM=offscreen DP_WORKBENCH_LEDGER="$WORK/ledger.sqlite" HOME="$WORK/home"
mkdir -p "$HOME"
say "dp-workbench --version"
"$APP/dp-workbench" --version | tee "$WORK/version.txt"
grep -q "OpenDP" "$WORK/version.txt" && grep -q "dp-accounting" "$WORK/version.txt"
say "dp-workbench inspect, one file of each binary format"
"$ROOT/build/venv/bin/python" -m pip install -q "openpyxl>=3.1,<4"  # to write the workbook; not bundled
"$ROOT/build/venv/bin/python" "$WORK/checkout/packaging/write_formats.py" "$WORK/formats"
for file in "$WORK"/formats/*; do
  "$APP/dp-workbench" inspect "$file" | grep -q "annual_income\|annual_i" || { say "cannot read $file"; exit 1; }
done
say "dp-workbench-gui --smoke-test"
"$APP/dp-workbench-gui" --smoke-test "$WORK/shots"
test -s "$WORK/shots/06-release.png" && test -s "$WORK/shots/results/results.json"
say "dp-workbench release of the sample plan, with the report"
"$APP/dp-workbench" release "$APP/sample/household_survey.csv" --plan "$APP/sample/household_survey.plan.json" \
  --out "$WORK/release" --report --dataset-budget 3 1e-6
for file in results.json results.csv report.html report.pdf; do test -s "$WORK/release/$file"; done
grep -q '"libraries"' "$WORK/release/results.json"
say "dp-workbench release out of core (the bundled DuckDB reads the file)"
"$APP/dp-workbench" release "$APP/sample/household_survey.csv" --plan "$APP/sample/household_survey.plan.json" \
  --out "$WORK/release-out-of-core" --engine out-of-core --memory-limit 256MB --ledger "$WORK/out-of-core.sqlite" \
  --dataset-budget 3 1e-6
test -s "$WORK/release-out-of-core/results.json"
say "The bundle works: $APP"
