#!/usr/bin/env bash
# Build the one-folder Linux app: dist/memdesk/ (run from anywhere).
#
#   packaging/build.sh            # uses ./.venv if present, else python3
#   PYTHON=/path/python packaging/build.sh
#
# Needs the packaging extra: pip install -e '.[packaging]'.  The result runs on
# machines with the same or a newer glibc; vectors are off in it (no torch).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: PyInstaller is missing; install it with: pip install -e '.[packaging]'" >&2
    exit 2
fi
DIST="${DIST:-$ROOT/dist}"
WORK="${WORK:-$ROOT/build/pyinstaller}"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$WORK" packaging/memdesk.spec
# The launcher and icon travel with the app; install.sh puts them in place.
install -m644 packaging/memdesk.desktop "$DIST/memdesk/memdesk.desktop"
install -m644 resources/memdesk.svg "$DIST/memdesk/memdesk.svg"
install -m755 packaging/install.sh "$DIST/memdesk/install.sh"
echo "built $DIST/memdesk ($(du -sh "$DIST/memdesk" | cut -f1)); try: $DIST/memdesk/memdesk --version"
