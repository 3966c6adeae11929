#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis the integration tests use, when they are not running.
set -euo pipefail
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "== starting PostgreSQL"
  SUDO=""; if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start
  for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.2; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "== starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
fi
# The tests connect as a superuser-capable role over TCP with trust auth (the CI machines' setup);
# make sure the database they use exists.
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" 2>/dev/null | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE test" >/dev/null 2>&1 || true
