# shellcheck shell=bash
# Dependency and build helpers, sourced by scripts/demo, scripts/test and .ci/run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-deps.sh"
#   ensure_all            # Debian packages, npm packages, TypeScript build
#
# Each step is cheap when there is nothing to do, so every script can call it on every run.
#   ensure_debian_packages  installs DEBIAN_PACKAGES that are absent (root + apt), else prints the command
#   ensure_node_modules     `npm ci` when node_modules is missing or was installed from another lock file
#   ensure_build            `tsc` and the checker's bundle when dist/ is missing or older than a .ts
#                           source or tsconfig.json
#
# Environment: DHSCHED_SKIP_APT=1 skips the Debian package check (for machines where you manage them).

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Debian packages the project needs, as "package:command-it-provides".
# redis-server: tests start their own private server on a free port (nothing is started here);
# openssl: the mutual-TLS tests make their certificates with it; espeak-ng: the avatar runtime speaks
# with it (GPL-3.0-or-later, run as a process, not linked); chromium: the console's browser test.
DEBIAN_PACKAGES=("redis-server:redis-server" "openssl:openssl" "espeak-ng:espeak-ng" "chromium:chromium" "valgrind:callgrind_control")

NODE_MODULES_STAMP="$REPO_ROOT/node_modules/.stamp"
BUILD_STAMP="$REPO_ROOT/dist/.build-stamp"
BUILD_ENTRY="$REPO_ROOT/dist/tlcts/src/cli.js"
# Folders whose .ts files tsconfig.json compiles (keep in step with its "include").
TS_SOURCE_DIRS=(tlcts/src tlcts/test spec scripts impl harness conformance gpu-worker)

log() { printf '[deps] %s\n' "$*" >&2; }
die() {
  printf '[deps] error: %s\n' "$*" >&2
  exit 1
}

# --- Debian packages ---------------------------------------------------------------------------

missing_debian_packages() {
  local entry pkg cmd
  for entry in "${DEBIAN_PACKAGES[@]}"; do
    pkg="${entry%%:*}"
    cmd="${entry#*:}"
    command -v "$cmd" >/dev/null 2>&1 || printf '%s\n' "$pkg"
  done
}

ensure_debian_packages() {
  [[ "${DHSCHED_SKIP_APT:-0}" == 1 ]] && return 0
  local missing
  mapfile -t missing < <(missing_debian_packages)
  ((${#missing[@]} == 0)) && return 0

  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; } ||
      die "apt-get could not install: ${missing[*]}"
    return 0
  fi

  printf '[deps] missing Debian packages: %s\n' "${missing[*]}" >&2
  if command -v apt-get >/dev/null 2>&1; then
    printf '[deps] install them with:\n\n    sudo apt-get update && sudo apt-get install -y %s\n\n' "${missing[*]}" >&2
  else
    printf '[deps] install them with your package manager (they provide: %s), then re-run.\n' \
      "$(printf '%s ' "${DEBIAN_PACKAGES[@]#*:}")" >&2
  fi
  exit 1
}

# --- npm packages ------------------------------------------------------------------------------

# What node_modules must have been installed from: the lock file, .npmrc, and the Node version
# (the tree-sitter grammar is a native addon built for one Node ABI).
node_modules_fingerprint() {
  {
    cat "$REPO_ROOT/package-lock.json"
    [[ -f "$REPO_ROOT/.npmrc" ]] && cat "$REPO_ROOT/.npmrc"
    node --version
  } | sha256sum | cut -d' ' -f1
}

ensure_node_modules() {
  command -v node >/dev/null 2>&1 || die "node is not installed (Node 20 or later is needed)"
  command -v npm >/dev/null 2>&1 || die "npm is not installed (it comes with Node 20 or later)"
  [[ -f "$REPO_ROOT/package-lock.json" ]] || die "package-lock.json is missing; run 'npm install' once and commit it"

  local have=""
  [[ -f "$NODE_MODULES_STAMP" ]] && have="$(cat "$NODE_MODULES_STAMP")"
  [[ -d "$REPO_ROOT/node_modules" && "$(node_modules_fingerprint)" == "$have" ]] && return 0

  if [[ -d "$REPO_ROOT/node_modules" && -z "$have" ]]; then
    log "node_modules has no install stamp (node_modules/.stamp): running npm ci"
  elif [[ -d "$REPO_ROOT/node_modules" ]]; then
    log "node_modules is stale (package-lock.json, .npmrc or Node changed): running npm ci"
  else
    log "node_modules is missing: running npm ci"
  fi
  local ci_log
  ci_log="$(mktemp)"
  if (cd "$REPO_ROOT" && npm ci --no-audit --no-fund) >"$ci_log" 2>&1; then
    cat "$ci_log" >&2
  else
    # npm ci also refuses a lock file that lacks an optional dependency the registry does not serve
    # (vite's Windows-only napi-windows-process-start-time, here); npm install accepts that lock
    # and installs the same locked versions.
    grep -m 3 -E 'npm (error|ERR!) [^ ]' "$ci_log" >&2 || true
    log "npm ci failed (first lines above); running npm install instead"
    (cd "$REPO_ROOT" && npm install --no-audit --no-fund) || {
      rm -f "$ci_log"
      die "npm install failed (errors above)"
    }
  fi
  rm -f "$ci_log"
  node_modules_fingerprint >"$NODE_MODULES_STAMP"
}

# --- TypeScript build --------------------------------------------------------------------------

# Prints the first .ts source (or tsconfig.json) newer than the last successful build, if any.
first_source_newer_than_build() {
  local dirs=() d
  for d in "${TS_SOURCE_DIRS[@]}"; do
    [[ -d "$REPO_ROOT/$d" ]] && dirs+=("$REPO_ROOT/$d")
  done
  find "$REPO_ROOT/tsconfig.json" "${dirs[@]}" \
    -name node_modules -prune -o \
    \( -name '*.ts' -o -name tsconfig.json \) -newer "$BUILD_STAMP" -print -quit
}

build_is_fresh() {
  [[ -f "$BUILD_ENTRY" && -f "$BUILD_STAMP" ]] || return 1
  [[ -z "$(first_source_newer_than_build)" ]]
}

# Compiles the TypeScript sources into dist/ and bundles the checker (scripts/bundle-tlcts.ts).
# Type errors fail the build; tsc still writes the JavaScript, so with ALLOW_TYPE_ERRORS=1 (used by
# the demo) they are reported and the run goes on (on the compiled files: the bundle is not made).
run_build() {
  local started="$BUILD_STAMP.tmp"
  mkdir -p "$REPO_ROOT/dist"
  : >"$started" # taken before tsc starts, so an edit made during the build is seen as newer
  if (cd "$REPO_ROOT" && npx --no-install tsc -p tsconfig.json && node dist/scripts/bundle-tlcts.js); then
    mv "$started" "$BUILD_STAMP"
    return 0
  fi
  rm -f "$started"
  if [[ "${ALLOW_TYPE_ERRORS:-0}" == 1 && -f "$BUILD_ENTRY" ]]; then
    log "warning: tsc reported errors (above); continuing with the JavaScript it emitted"
    return 0
  fi
  die "TypeScript build failed (errors above)"
}

ensure_build() {
  build_is_fresh && return 0
  log "building TypeScript (dist/ is missing or older than the sources)"
  run_build
}

# --- all of it ---------------------------------------------------------------------------------

ensure_all() {
  ensure_debian_packages
  ensure_node_modules
  ensure_build
}
