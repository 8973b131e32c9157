#!/usr/bin/env bash
# Install a built memdesk folder for the current user (or under PREFIX):
#   ./install.sh                 # ~/.local: lib/memdesk, bin/memdesk, launcher, icon
#   PREFIX=/opt/memdesk ./install.sh
# Run it from inside the built folder (dist/memdesk/).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PREFIX="${PREFIX:-$HOME/.local}"
[ -x "$HERE/memdesk" ] || { echo "install.sh: run me from the built memdesk folder" >&2; exit 2; }
mkdir -p "$PREFIX/lib" "$PREFIX/bin"
rm -rf "$PREFIX/lib/memdesk"
cp -a "$HERE" "$PREFIX/lib/memdesk"
ln -sf "$PREFIX/lib/memdesk/memdesk" "$PREFIX/bin/memdesk"
APPS="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
ICONS="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/scalable/apps"
mkdir -p "$APPS" "$ICONS"
# The launcher names the installed binary by its full path: desktop sessions often do
# not have ~/.local/bin on their PATH.
sed "s|^Exec=memdesk |Exec=$PREFIX/lib/memdesk/memdesk |" "$HERE/memdesk.desktop" \
    > "$APPS/memdesk.desktop"
install -m644 "$HERE/memdesk.svg" "$ICONS/memdesk.svg"
echo "installed: $PREFIX/bin/memdesk and the memdesk launcher"
