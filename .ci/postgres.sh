#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1 (a free port, trust authentication, database
# rulekit_test) for the tests that need one, and prints its URL. `.ci/postgres.sh stop DIR` stops it.
# Installs PostgreSQL from Debian's packages when it is missing.
set -euo pipefail

if [[ "${1:-}" == "stop" ]]; then
    dir=$2
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    else "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    exit 0
fi

if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
    if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d /tmp/rulekit-pg.XXXXXX)
as_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[[ $(id -u) -eq 0 ]] && chown postgres "$dir"
as_owner "$bin/initdb" -D "$dir/data" --auth=trust -U rulekit >"$dir/initdb.log" 2>&1
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U rulekit rulekit_test
echo "postgres://rulekit@127.0.0.1:$port/rulekit_test $dir"
