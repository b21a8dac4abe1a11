#!/usr/bin/env bash
# Start a local PostgreSQL for the tests on Debian and print its SQLAlchemy URL on stdout.
#
#   GONUTS_TEST_PG_URL=$(scripts/start-postgres.sh)
#
# Idempotent: installs Debian's `postgresql` package if it is missing, creates and starts the
# cluster if needed, creates the role and the database if they do not exist, and prints
#   postgresql+psycopg://gonuts:gonuts@127.0.0.1:PORT/gonuts_test
# Run as root (or with passwordless sudo). Everything but the URL goes to stderr.
# Override with GONUTS_PG_USER, GONUTS_PG_PASSWORD, GONUTS_PG_DB.
set -euo pipefail

PG_USER=${GONUTS_PG_USER:-gonuts}
PG_PASSWORD=${GONUTS_PG_PASSWORD:-gonuts}
PG_DB=${GONUTS_PG_DB:-gonuts_test}

log() { echo "start-postgres: $*" >&2; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    log "run me as root (or with passwordless sudo): I install and start PostgreSQL"
    exit 1
  fi
fi

if ! command -v pg_lsclusters >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  log "installing postgresql from Debian's packages"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi

# The newest installed major version, and its `main` cluster (created if the package did not).
VERSION=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$VERSION main"; then
  log "creating cluster $VERSION/main"
  "${SUDO[@]}" pg_createcluster "$VERSION" main >&2
fi
PORT=$(pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" {print $3}')
STATUS=$(pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" {print $4}')
if [ "$STATUS" != "online" ]; then
  log "starting cluster $VERSION/main on port $PORT"
  "${SUDO[@]}" pg_ctlcluster "$VERSION" main start >&2
fi
for _ in $(seq 1 60); do
  if pg_isready -q -h 127.0.0.1 -p "$PORT"; then break; fi
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$PORT" || { log "PostgreSQL did not come up on port $PORT"; exit 1; }

psql_su() {
  "${SUDO[@]}" runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres "$@"
}
if [ "$(psql_su -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$PG_USER'")" != "1" ]; then
  log "creating role $PG_USER"
  psql_su -c "CREATE ROLE \"$PG_USER\" LOGIN PASSWORD '$PG_PASSWORD'" >&2
fi
if [ "$(psql_su -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != "1" ]; then
  log "creating database $PG_DB"
  psql_su -c "CREATE DATABASE \"$PG_DB\" OWNER \"$PG_USER\"" >&2
fi

echo "postgresql+psycopg://$PG_USER:$PG_PASSWORD@127.0.0.1:$PORT/$PG_DB"
