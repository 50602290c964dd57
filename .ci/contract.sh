#!/usr/bin/env bash
# The contract of `rulekit serve`: docs/openapi.yaml checked by openapi-spec-validator, then schemathesis
# (every operation, generated and mutated inputs, a fixed seed, bounded time) against a running service on
# 127.0.0.1 with a bearer token, the shipped schemas and a postback queue: no 5xx, every answer as the
# document says, the server still up at the end. Needs the built `rulekit` (debug is enough) and python3
# with venv.
# usage: .ci/contract.sh [SECONDS]   (default 120)
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-120}
venv=.build/ci-venv
[[ -x $venv/bin/st ]] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q openapi-spec-validator schemathesis; }
"$venv/bin/openapi-spec-validator" docs/openapi.yaml
bin=$(swift build --show-bin-path)/rulekit
work=$(mktemp -d)
token=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
echo "$token" > "$work/tokens"
# With a postback queue, so that the dead-letter routes answer (without one they are 404 to every call).
"$bin" serve --listen 127.0.0.1:0 --history memory --auth-token-file "$work/tokens" --admin-token-file "$work/tokens" --schemas Schemas \
    --postbacks "$work/postbacks" --state com.adobe.module.configuration=Examples/state.json > "$work/out" 2> "$work/err" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q listening "$work/out" && break; sleep 0.1; done
url=$(sed -n 's/.*listening on //p' "$work/out")
[[ -n $url ]] || { cat "$work/err"; echo "contract: the service did not start" >&2; exit 1; }
echo "contract: rulekit serve at $url"
status=0
"$venv/bin/st" run docs/openapi.yaml --url "$url" -H "Authorization: Bearer $token" --checks all --seed 20261127 \
    --max-examples 40 --max-time "$budget" --workers 1 --request-timeout 10 --output-truncate true || status=$?
if ! kill -0 $pid 2>/dev/null; then
    echo "contract: the service died under the fuzzer" >&2
    tail -20 "$work/err" >&2
    exit 1
fi
exit $status
