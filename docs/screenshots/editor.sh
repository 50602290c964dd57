#!/usr/bin/env bash
# Makes docs/editor.png: Neovim (Debian's package) in an xterm under Xvfb, with `rulekit lsp` attached to
# docs/screenshots/editor-shop.yaml, after its diagnostics arrived and with XDM completion open.
# Needs: apt-get install neovim xvfb xterm imagemagick; a built rulekit (RULEKIT_BIN, default debug).
# usage: docs/screenshots/editor.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export RULEKIT_BIN=${RULEKIT_BIN:-$PWD/.build/debug/rulekit}
work=$(mktemp -d)
mkdir -p "$work/Rules"
ln -s "$PWD/Schemas" "$work/Schemas"
cp docs/screenshots/editor-shop.yaml "$work/Rules/shop.yaml"
sed "s#/tmp/shot#$work#" docs/screenshots/editor-init.lua > "$work/init.lua"
Xvfb :99 -screen 0 1320x530x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
(cd "$work" && DISPLAY=:99 xterm -geometry 142x24+0+0 -fa Monospace -fs 11 -bg '#1e1e1e' -fg '#d4d4d4' \
    -e nvim -u "$work/init.lua" Rules/shop.yaml) &
sleep 10
DISPLAY=:99 import -window root "$work/shot.png"
convert "$work/shot.png" -strip -colors 64 docs/editor.png
pkill -f "nvim -u $work/init.lua" || true
