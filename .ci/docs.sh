#!/usr/bin/env bash
# The API documentation of the modules a host links, built with the toolchain's docc from each module's
# symbol graph and its catalog (Sources/<Module>/<Module>.docc), warnings as errors: a link to a symbol
# that does not exist, an article that is not reached, a parameter documented that the function does not
# have. Writes the archives under .build/docs (DOCS_OUT to change). Needs a debug build (swift build).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DOCS_OUT:-.build/docs}
mkdir -p "$out"
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift package dump-symbol-graph --minimum-access-level public > "$graphs/dump.log" 2>&1 || { cat "$graphs/dump.log"; exit 1; }
dir=$(sed -n 's/^Files written to //p' "$graphs/dump.log" | tail -1)
[[ -d $dir ]] || { echo "docs: no symbol graphs written" >&2; cat "$graphs/dump.log"; exit 1; }
for module in RuleKitHub RuleKitRules RuleKitExtension RuleKitXDM RuleKitHistory; do
    mkdir -p "$graphs/$module"
    cp "$dir/$module".symbols.json "$graphs/$module/"
    cp "$dir/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
    docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.rulekit.$module" \
        --output-path "$out/$module.doccarchive" --warnings-as-errors --analyze
    echo "docs: $module built"
done
# Parameters documented: required of the modules done (a regression fails), counted for the rest.
python3 .ci/param_docs.py --require RuleKitHub --require RuleKitXDM --require RuleKitExtension --require RuleKitHistory --require RuleKitRules
