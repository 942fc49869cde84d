# Sourced by .ci/run (as root) before the tests; also usable by hand: `source .ci/services.sh`.
# Starts a throw-away PostgreSQL server (initdb in a temp dir, as the postgres user, trust auth on loopback only) and a
# redis-server on loopback, and exports VIGIL_TEST_PG_URL and VIGIL_TEST_REDIS_URL for the Web API suite
# (`npm run test:pg` and the two-instance test). Both stop when the shell that sourced this file exits.

# First port from $1 upwards that nothing on 127.0.0.1 listens on.
vigil_free_port() {
  local port="$1"
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

vigil_services_start() {
  local pg_bin="" v
  for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
    if [ -x "/usr/lib/postgresql/$v/bin/initdb" ]; then pg_bin="/usr/lib/postgresql/$v/bin"; break; fi
  done
  if [ -z "$pg_bin" ]; then
    echo "services: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
    return 1
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "services: redis-server not found (apt-get install redis-server)" >&2
    return 1
  fi

  local run_as=()
  if [ "$(id -u)" = "0" ]; then run_as=(runuser -u postgres --); fi

  VIGIL_SERVICES_DIR="$(mktemp -d /tmp/vigil-services.XXXXXX)"
  chmod 755 "$VIGIL_SERVICES_DIR"
  local pgdata="$VIGIL_SERVICES_DIR/pgdata" pg_port redis_port
  pg_port="$(vigil_free_port "${VIGIL_TEST_PG_PORT:-55432}")"
  redis_port="$(vigil_free_port "${VIGIL_TEST_REDIS_PORT:-56379}")"
  mkdir -p "$pgdata" "$VIGIL_SERVICES_DIR/redis"
  if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$pgdata"; fi

  "${run_as[@]}" "$pg_bin/initdb" -D "$pgdata" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$VIGIL_SERVICES_DIR/initdb.log" 2>&1 \
    || { cat "$VIGIL_SERVICES_DIR/initdb.log" >&2; return 1; }
  "${run_as[@]}" "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$pgdata -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$pgdata/server.log" >&2; return 1; }
  VIGIL_SERVICES_PG="$pg_bin/pg_ctl -D $pgdata"

  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --dir "$VIGIL_SERVICES_DIR/redis" \
    --daemonize yes --pidfile "$VIGIL_SERVICES_DIR/redis/redis.pid" --logfile "$VIGIL_SERVICES_DIR/redis/redis.log"
  local i
  for i in $(seq 1 50); do
    if redis-cli -p "$redis_port" ping >/dev/null 2>&1; then break; fi
    sleep 0.1
  done

  export VIGIL_TEST_PG_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
  export VIGIL_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
  export VIGIL_SERVICES_DIR
  echo "services: PostgreSQL ($("$pg_bin/postgres" --version | awk '{print $3}')) at $VIGIL_TEST_PG_URL, Redis at $VIGIL_TEST_REDIS_URL"
}

vigil_services_stop() {
  if [ -n "${VIGIL_SERVICES_DIR:-}" ] && [ -d "$VIGIL_SERVICES_DIR" ]; then
    if [ -f "$VIGIL_SERVICES_DIR/redis/redis.pid" ]; then kill "$(cat "$VIGIL_SERVICES_DIR/redis/redis.pid")" 2>/dev/null || true; fi
    if [ -n "${VIGIL_SERVICES_PG:-}" ]; then
      if [ "$(id -u)" = "0" ]; then runuser -u postgres -- $VIGIL_SERVICES_PG -m fast stop >/dev/null 2>&1 || true
      else $VIGIL_SERVICES_PG -m fast stop >/dev/null 2>&1 || true; fi
    fi
    rm -rf "$VIGIL_SERVICES_DIR"
  fi
}

vigil_services_start
trap vigil_services_stop EXIT
