#!/usr/bin/env bash
# Sets everything up (idempotent) and starts the platform: scheduler, inference node(s) and facade
# on http://127.0.0.1:${PORT:-8080}. Ctrl-C stops it cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# exec the launcher itself (not through npm) so SIGINT/SIGTERM reach it directly.
exec node services/launcher/dist/main.js
