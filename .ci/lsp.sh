#!/usr/bin/env bash
# `rulekit lsp` driven by two real clients: pytest-lsp (a pygls client, from PyPI) runs
# Tests/LSPClients/test_rulekit_lsp.py, and Neovim (Debian's package) opens a rules file headless, waits for
# a diagnostic and asks for completion (Tests/LSPClients/nvim_smoke.lua). Needs the built `rulekit`
# (debug is enough), python3 with venv, and nvim.
# usage: .ci/lsp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/lsp-venv
[[ -x $venv/bin/pytest ]] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q pytest-lsp; }
export RULEKIT_BIN=${RULEKIT_BIN:-$(swift build --show-bin-path)/rulekit}
(cd Tests/LSPClients && "$OLDPWD/$venv/bin/python" -m pytest -q -p no:cacheprovider .)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Rules"
ln -s "$PWD/Schemas" "$work/Schemas"
WORKSPACE=$work timeout 120 nvim --headless --clean -u NONE -c "luafile Tests/LSPClients/nvim_smoke.lua"
