#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1 (a free port, trust authentication, database
# rulekit_test) for the tests that need one, and prints its URL and folder. `.ci/postgres.sh stop DIR`
# stops it and removes it; `pause DIR` stops it keeping its data, `resume DIR` starts it again on the same
# port (the history fault tests take a database away and bring it back).
# Installs PostgreSQL from Debian's packages when it is missing.
set -euo pipefail

as_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
start_server() {  # start_server BIN DIR PORT
    # The server keeps no descriptor of its caller but the standard ones: a caller waiting for this
    # script's output (or its end) would otherwise wait for the server too.
    (
        for fd in /proc/self/fd/*; do
            n=${fd##*/}
            if ((n > 2)); then eval "exec $n>&-" 2>/dev/null || true; fi
        done
        as_owner "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w \
            -o "-p $3 -k $2 -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
    )
}

if [[ "${1:-}" == "pause" || "${1:-}" == "resume" ]]; then
    dir=$2
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    if [[ "$1" == "pause" ]]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    else start_server "$bin" "$dir" "$(cat "$dir/port")"; fi
    exit 0
fi

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
[[ $(id -u) -eq 0 ]] && chown postgres "$dir"
echo "$port" > "$dir/port"
as_owner "$bin/initdb" -D "$dir/data" --auth=trust -U rulekit >"$dir/initdb.log" 2>&1
start_server "$bin" "$dir" "$port"
as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U rulekit rulekit_test
echo "postgres://rulekit@127.0.0.1:$port/rulekit_test $dir"
