#!/usr/bin/env bash
# What this machine charges for the two things the targets of issues 62 and 64 are made of, with no RuleKit
# code in the way: a floor under each, measured the way those targets are (CPU from /proc/PID/stat).
#   http: wrk (C, epoll) posting a postback-sized JSON body to Benchmarks/Serve/postback_sink.py on
#     127.0.0.1, one request in flight (a postback receiver's default line: one in flight, in order), then
#     four: wrk's own CPU per request, user and system apart — the kernel's round trip a sender pays per hit;
#   postgres (given a URL): one statement per 60 records (a block of 100 events of the history workload),
#     INSERT ... SELECT from a staging table in a scratch schema, each in its own transaction, into the
#     history table as it is built step by step: the heap alone; plus the unique key index on (identity,
#     event_key) as the store keeps it (text), or with the key as uuid + ordinal; plus the question index
#     (identity, hash, ts); plus the summary trigger of schema version 5. The backend's CPU per record (its
#     /proc/self/stat, read through pg_read_file: a superuser's, as .ci/postgres.sh makes), the same rows
#     only selected taken off, and per input event at the workload's share of recorded events.
# usage: Benchmarks/Serve/floors.sh [POSTGRES_URL]   (from the repository root; wrk, python3, psql)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${RULEKIT_SHARED:-../shared}
seconds=${SECONDS_PER_FIGURE:-6}
records=${RECORDS:-300000}
pg=${1:-}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }

echo "== http: one exchange with a receiver on loopback, wrk's CPU per request"
python3 Benchmarks/Serve/postback_sink.py --until-stdin-closes < <(sleep 100000 2> /dev/null) > "$work/receiver.port" 2> /dev/null &
receiver=$!
for _ in $(seq 100); do [[ -s $work/receiver.port ]] && break; sleep 0.05; done
port=$(head -1 "$work/receiver.port")
cat > "$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"orderId":"A-1001","total":1250.5,"currency":"EUR","email":"someone@example.com"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Idempotency-Key"] = "9E86A1B2-43D8-4C1F-9A7B-123456789ABC/0"
LUA
for connections in 1 4; do
    wrk -t1 -c"$connections" -d"$((seconds + 2))s" -s "$work/post.lua" "http://127.0.0.1:$port/hit" > "$work/wrk.txt" &
    w=$!
    sleep 1
    read -r u1 s1 < <(ticks "$w")
    read -r ru1 rs1 < <(ticks "$receiver")
    sleep "$seconds"
    read -r u2 s2 < <(ticks "$w")
    read -r ru2 rs2 < <(ticks "$receiver")
    wait "$w"
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
    python3 - "$connections" "$rps" "$seconds" "$hz" "$u1" "$s1" "$u2" "$s2" "$ru1" "$rs1" "$ru2" "$rs2" <<'PY'
import sys
c, rps, secs, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
u1, s1, u2, s2, ru1, rs1, ru2, rs2 = map(int, sys.argv[5:13])
n = rps * secs
us = lambda t: t / hz * 1e6 / n
print(f"  {c} in flight: {rps:,.0f} requests/s; wrk {us(u2 - u1):.1f} µs user + {us(s2 - s1):.1f} µs system"
      f" = {us(u2 - u1 + s2 - s1):.1f} µs a request; the receiver {us(ru2 - ru1 + rs2 - rs1):.1f} µs apart")
PY
done
kill "$receiver" 2> /dev/null || true

[[ -n $pg ]] || { echo "== postgres: no URL given, skipped"; exit 0; }
echo "== postgres: the backend's CPU per record written, $records records in statements of 60"
share=$(python3 -c "
import json
lines = [l for l in open('$shared/bench/events-10k.jsonl') if l.strip()]
print(sum(json.loads(l)['type'] == 'com.adobe.eventType.edge' for l in lines) / len(lines))")
psql -q -v ON_ERROR_STOP=1 "$pg" > /dev/null 2> "$work/notice" <<SQL
DROP SCHEMA IF EXISTS rulekit_floors CASCADE;
CREATE SCHEMA rulekit_floors;
SET search_path = rulekit_floors;
-- The workload's shape: 6,039 identities of 38 digits, one hash, keys spelled as RuleKit spells them.
CREATE TABLE staging AS
SELECT n, (SELECT string_agg((abs(hashtext(i::text || 'x' || d::text)) % 10)::text, '') FROM generate_series(1, 38) d)
           COLLATE "C" AS identity,
       1234567::int8 AS hash, 1.7e12 + n * 10.0 AS ts, md5(n::text)::uuid AS cause,
       (upper(md5(n::text)::uuid::text) || '/0') COLLATE "C" AS event_key
FROM (SELECT n, (n::int8 * 7919) % 6039 AS i FROM generate_series(1, $records) n) s;
CREATE INDEX ON staging (n);
ANALYZE staging;
SQL
# measure NAME SETUP SELECTED-ONLY: the backend's ticks over every statement of 60 records.
measure() {
    local name=$1 setup=$2 only=${3:-}
    local f=$work/statements.sql
    {
        echo "SET search_path = rulekit_floors; SET client_min_messages = warning;"
        echo "DROP TABLE IF EXISTS h CASCADE; DROP TABLE IF EXISTS hs CASCADE;"
        echo "CREATE TABLE h (identity TEXT COLLATE \"C\" NOT NULL, hash BIGINT NOT NULL, ts DOUBLE PRECISION NOT NULL,"
        echo "    event_key TEXT COLLATE \"C\", cause uuid, ordinal int);"
        echo "$setup"
        if [[ -n $only ]]; then
            echo "PREPARE w(int) AS SELECT count(*) FROM (SELECT identity, hash, ts, event_key, cause, 0 FROM staging WHERE n BETWEEN \$1 AND \$1 + 59) x;"
        else
            echo "PREPARE w(int) AS INSERT INTO h SELECT identity, hash, ts, event_key, cause, 0 FROM staging WHERE n BETWEEN \$1 AND \$1 + 59;"
        fi
        echo "SELECT split_part(pg_read_file('/proc/self/stat'), ' ', 14)::int + split_part(pg_read_file('/proc/self/stat'), ' ', 15)::int AS t0 \\gset"
        for ((s = 1; s + 59 <= records; s += 60)); do echo "EXECUTE w($s);"; done
        echo "SELECT split_part(pg_read_file('/proc/self/stat'), ' ', 14)::int + split_part(pg_read_file('/proc/self/stat'), ' ', 15)::int - :t0;"
    } > "$f"
    psql -q -At -v ON_ERROR_STOP=1 "$pg" -f "$f" | tail -1
}
summary=$(cat <<'SQL'
CREATE TABLE hs (identity TEXT COLLATE "C" NOT NULL, hash BIGINT NOT NULL, n BIGINT NOT NULL, lo DOUBLE PRECISION NOT NULL,
    hi DOUBLE PRECISION NOT NULL, PRIMARY KEY (identity, hash));
CREATE FUNCTION summarize() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hs AS s (identity, hash, n, lo, hi)
        SELECT identity, hash, count(*), min(ts), max(ts) FROM added GROUP BY identity, hash ORDER BY identity, hash
    ON CONFLICT (identity, hash) DO UPDATE SET n = s.n + EXCLUDED.n, lo = least(s.lo, EXCLUDED.lo), hi = greatest(s.hi, EXCLUDED.hi);
    RETURN NULL;
END $$;
CREATE TRIGGER summarize AFTER INSERT ON h REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION summarize();
SQL
)
if ! base=$(measure "selected only" "" only 2> "$work/err"); then
    echo "  skipped: $(head -1 "$work/err") (the backend's CPU is read with pg_read_file, a superuser's)"
    exit 0
fi
text_key="CREATE UNIQUE INDEX ON h (identity, event_key);"
uuid_key="CREATE UNIQUE INDEX ON h (identity, cause, ordinal);"
question="CREATE INDEX ON h (identity, hash, ts);"
names=("the heap alone" "+ the unique key index, the key as text (as the store keeps it)"
    "+ the unique key index, the key as uuid + ordinal" "+ the text key index and the question index"
    "+ both and the summary trigger (schema version 5)")
setups=("" "$text_key" "$uuid_key" "$text_key $question" "$text_key $question $summary")
for k in "${!names[@]}"; do
    t=$(measure "${names[$k]}" "${setups[$k]}")
    python3 - "${names[$k]}" "$t" "$base" "$hz" "$records" "$share" <<'PY'
import sys
name = sys.argv[1]
t, base, hz, n, share = (float(x) for x in sys.argv[2:7])
us = (t - base) / hz * 1e6 / n
print(f"  {name:<64} {us:5.1f} µs a record, {us * share:4.1f} µs an input event")
PY
done
echo "  (the same rows only selected: $(python3 -c "print(f'{$base / $hz * 1e6 / $records:.1f}')") µs a record, taken off each line above)"
psql -q "$pg" -c "SET client_min_messages = warning; DROP SCHEMA rulekit_floors CASCADE" > /dev/null
