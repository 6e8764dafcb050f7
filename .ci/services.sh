#!/usr/bin/env bash
# Private PostgreSQL and Redis servers for the storage tests, on free ports of 127.0.0.1.
#
#   eval "$(bash .ci/services.sh)"        # or: services.sh start  -> prints two export lines
#   bash .ci/services.sh env               # the export lines again, if both are running
#   bash .ci/services.sh stop              # stops both and removes their data
#
# Only the export lines go to stdout; every diagnostic goes to stderr, so `eval` is safe.
# Idempotent: a second `start` reuses servers that still answer and restarts any that died.
# On Debian 12 as root it installs postgresql and redis-server when they are missing
# (running `apt-get update` only if the package lists are absent or an install fails).
# Nothing is written outside $WINDOWMEM_SERVICES_DIR (default /tmp/windowmem-services-$UID):
# no system cluster is created or touched, Redis keeps no dump file and no append log.
set -euo pipefail

STATE=${WINDOWMEM_SERVICES_DIR:-/tmp/windowmem-services-$(id -u)}
PG_DATA=$STATE/pg/data
PG_SOCKETS=$STATE/pg/sockets
PG_LOG=$STATE/pg/server.log
REDIS_DIR=$STATE/redis
DB_NAME=windowmem
DB_USER=windowmem
DB_PASSWORD=windowmem
WAIT_SECONDS=${WINDOWMEM_SERVICES_WAIT:-30}

say() { echo "services.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# --- packages ------------------------------------------------------------------------

pg_bin_dir() {
  # The newest installed server version's binaries (Debian installs them side by side).
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

apt_lists_present() {
  compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null
}

install_missing_packages() {
  local need=()
  [ -n "$(pg_bin_dir)" ] && [ -x "$(pg_bin_dir)/initdb" ] || need+=(postgresql)
  command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || need+=(redis-server)
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages: ${need[*]}; install them as root: apt-get install ${need[*]}"
  fi
  export DEBIAN_FRONTEND=noninteractive
  say "installing ${need[*]}"
  if ! apt_lists_present; then
    say "no apt package lists yet: running apt-get update"
    apt-get update -qq >&2
  fi
  if ! apt-get install -y -qq --no-install-recommends "${need[@]}" >&2; then
    say "install failed; refreshing the package lists and trying once more"
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  fi
  # The Debian package creates and starts a system cluster and a system Redis on the
  # default ports; the tests never use them, and they are left as the package set them up.
}

# --- helpers -------------------------------------------------------------------------

free_port() {
  # Ask the kernel for a free port, then release it for the server to take.
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    return
  fi
  local port
  for port in $(seq 25432 25999); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  die "no free port found between 25432 and 25999"
}

# PostgreSQL refuses to run as root, so as root its commands run as the `postgres` user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pid_alive() { [ -f "$1" ] && kill -0 "$(head -n 1 "$1")" 2>/dev/null; }

wait_until() {
  local what=$1; shift
  local deadline=$((SECONDS + WAIT_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then die "$what did not answer within ${WAIT_SECONDS}s"; fi
    sleep 0.2
  done
}

pg_port() { cat "$STATE/pg/port" 2>/dev/null; }
redis_port() { cat "$REDIS_DIR/port" 2>/dev/null; }

pg_answers() {
  local port; port=$(pg_port) || return 1
  [ -n "$port" ] && "$(pg_bin_dir)/pg_isready" -q -h 127.0.0.1 -p "$port" -d "$DB_NAME" -U "$DB_USER"
}

redis_answers() {
  local port; port=$(redis_port) || return 1
  [ -n "$port" ] && [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]
}

print_env() {
  echo "export WINDOWMEM_POSTGRES_URL=postgresql://$DB_USER:$DB_PASSWORD@127.0.0.1:$(pg_port)/$DB_NAME"
  echo "export WINDOWMEM_REDIS_URL=redis://127.0.0.1:$(redis_port)/0"
}

# --- PostgreSQL ----------------------------------------------------------------------

start_postgres() {
  local bin; bin=$(pg_bin_dir)
  if pg_answers; then say "PostgreSQL already answers on port $(pg_port)"; return; fi
  mkdir -p "$PG_SOCKETS"
  [ "$(id -u)" = 0 ] && chown -R postgres: "$STATE/pg"
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    say "creating a private PostgreSQL cluster in $PG_DATA"
    rm -rf "$PG_DATA"
    as_pg "$bin/initdb" -D "$PG_DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  local port; port=$(free_port)
  echo "$port" >"$STATE/pg/port"
  # A leftover postmaster.pid from a killed server would block the start; pg_ctl checks it.
  # 9>&-: the server must not inherit (and so hold forever) this script's lock.
  as_pg "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t "$WAIT_SECONDS" start \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $PG_SOCKETS" >&2 9>&- \
    || { tail -n 20 "$PG_LOG" >&2 || true; die "PostgreSQL did not start"; }
  local psql=("$bin/psql" -v ON_ERROR_STOP=1 -q -h "$PG_SOCKETS" -p "$port" -U postgres -d postgres)
  if [ -z "$(as_pg "${psql[@]}" -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")" ]; then
    as_pg "${psql[@]}" -c "CREATE ROLE $DB_USER LOGIN PASSWORD '$DB_PASSWORD'" >&2
  fi
  if [ -z "$(as_pg "${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" ]; then
    as_pg "${psql[@]}" -c "CREATE DATABASE $DB_NAME OWNER $DB_USER" >&2
  fi
  wait_until "PostgreSQL" pg_answers
  # A real password login over TCP, the way the tests connect.
  PGPASSWORD=$DB_PASSWORD "$bin/psql" -q -h 127.0.0.1 -p "$port" -U "$DB_USER" -d "$DB_NAME" \
    -tAc "SELECT 1" >/dev/null || die "PostgreSQL is up but $DB_USER cannot log in"
  say "PostgreSQL ready on 127.0.0.1:$port"
}

stop_postgres() {
  local bin; bin=$(pg_bin_dir)
  if [ -n "$bin" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
    as_pg "$bin/pg_ctl" -D "$PG_DATA" -m fast -w stop >&2 || say "PostgreSQL was not running"
  fi
}

# --- Redis ---------------------------------------------------------------------------

start_redis() {
  if redis_answers; then say "Redis already answers on port $(redis_port)"; return; fi
  mkdir -p "$REDIS_DIR"
  local port; port=$(free_port)
  echo "$port" >"$REDIS_DIR/port"
  # No RDB snapshots, no AOF: the tests' data is disposable and must not land in odd places.
  redis-server --bind 127.0.0.1 --port "$port" --daemonize yes \
    --pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log" --dir "$REDIS_DIR" \
    --save "" --appendonly no --protected-mode yes >&2 9>&-
  wait_until "Redis" redis_answers
  say "Redis ready on 127.0.0.1:$port"
}

stop_redis() {
  local port; port=$(redis_port || true)
  if [ -n "$port" ] && redis_answers; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  fi
  if pid_alive "$REDIS_DIR/redis.pid"; then kill "$(head -n 1 "$REDIS_DIR/redis.pid")" 2>/dev/null || true; fi
}

# --- main ----------------------------------------------------------------------------

command=${1:-start}
mkdir -p "$STATE"
chmod 755 "$STATE"
exec 9>"$STATE/.lock"
flock -w 120 9 || die "another services.sh holds $STATE/.lock"

case $command in
  start)
    install_missing_packages
    start_postgres
    start_redis
    print_env
    ;;
  env)
    pg_answers || die "PostgreSQL is not running: run '$0 start'"
    redis_answers || die "Redis is not running: run '$0 start'"
    print_env
    ;;
  stop)
    stop_redis
    stop_postgres
    rm -rf "$PG_DATA" "$PG_SOCKETS" "$REDIS_DIR" "$STATE/pg"
    say "stopped; removed $STATE"
    ;;
  *)
    die "unknown command '$command': use start (the default), env or stop"
    ;;
esac
