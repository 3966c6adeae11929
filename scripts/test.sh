#!/usr/bin/env bash
# Sets everything up (idempotent), then runs the whole test suite: type-check, lint, unit specs
# (next to the code) and integration tests (tests/), against real PostgreSQL and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --for-tests
bash scripts/services.sh

export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

echo "== type-check"
npx tsc -p tsconfig.json --noEmit
npx tsc -p web/tsconfig.json
echo "== lint"
npx eslint --max-warnings=0 .
echo "== OpenAPI lint (Redocly recommended ruleset: 0 errors, 0 warnings)"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --format=json facade/openapi/openapi.yaml 2>/dev/null \
  | node -e 'let t="";process.stdin.on("data",(d)=>(t+=d)).on("end",()=>{const r=JSON.parse(t);for(const p of r.problems)console.log(`${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ""})`);console.log(`redocly: ${r.totals.errors} errors, ${r.totals.warnings} warnings`);process.exit(r.totals.errors+r.totals.warnings>0?1:0)})'

# Every log line of the run (the components tests run in their own processes, the processes they
# start) is kept here, then scanned for secrets (tests/support/test-logs.ts, secret-scan.ts).
export TTS_TEST_LOG_DIR="${TTS_TEST_LOG_DIR:-$(mktemp -d -t tts-test-logs-XXXXXX)}"

mapfile -t files < <(find services facade tests scripts web/src -name '*.test.ts' -not -path '*/node_modules/*' | sort)
echo "== tests (${#files[@]} files; logs in $TTS_TEST_LOG_DIR)"
status=0
node --conditions=@tts/source --import tsx --import ./tests/support/test-logs.ts --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=300000 "${files[@]}" || status=$?

echo "== secrets in logs (API keys, admin keys, sessions, job tokens, passes, hub tokens, the tests' passwords)"
node --conditions=@tts/source --import tsx tests/support/secret-scan.ts "$TTS_TEST_LOG_DIR" || status=1
exit "$status"
