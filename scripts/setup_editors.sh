#!/usr/bin/env bash
# setup_editors.sh -- install the real editors that tests/test_editors_*.py drive:
#   apt: neovim, chromium, ripgrep, and the build tools code-server's native modules need
#   npm: code-server@4.100.3 (newest whose engines allow node 20) and playwright-core (driver only)
# Idempotent and quiet: prints one "[editors] <step> <seconds>s" line per step.
# env: KERNELPRO_EDITORS  install prefix (default /opt/kernelpro-editors)
#      FORCE=1            reinstall the npm parts;  SKIP_APT=1  skip apt
# Never runs `playwright install`: the browser is Debian's /usr/bin/chromium.
set -euo pipefail
PREFIX="${KERNELPRO_EDITORS:-/opt/kernelpro-editors}"
CS_VERSION=4.100.3
PW_VERSION=1.65.1
CS_DIR="$PREFIX/code-server"
PW_DIR="$PREFIX/playwright"
T0=$(date +%s)
step() { echo "[editors] $1 $(( $(date +%s) - $2 ))s"; }
die() { echo "[editors] FAILED: $*" >&2; exit 1; }

command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed (node 20)"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# --- apt: only when something is missing
APT_PKGS=(neovim chromium ripgrep curl build-essential pkg-config python3 libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev)
t=$(date +%s)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${SKIP_APT:-0}" != 1 ] && [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q >/dev/null || die "apt-get update"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]}"
fi
step "apt (${#missing[@]} missing)" "$t"

mkdir -p "$PREFIX"

# --- code-server from npm, into its own prefix
t=$(date +%s)
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
if [ "${FORCE:-0}" = 1 ] || [ ! -x "$CS_BIN" ] || [ ! -f "$CS_DIR/.installed-$CS_VERSION" ]; then
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  echo '{"name":"kernelpro-editors-code-server","private":true}' > "$CS_DIR/package.json"
  # @vscode/ripgrep@1.15.11 (pinned by code-server) downloads rg from api.github.com in postinstall;
  # it first looks in $TMPDIR/vscode-ripgrep-cache-<ver>/, so seed that cache with Debian's rg.
  RG_CACHE="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$RG_CACHE"
  stage="$(mktemp -d)"; cp "$(command -v rg)" "$stage/rg"
  tar czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$stage" rg
  rm -rf "$stage"
  # npm_config_unsafe_perm: code-server's postinstall.sh refuses root without it (npm 11 dropped the flag).
  # npm_config_yes: node-pty's post-install runs `npx node-gyp`; an npmrc with yes=false cancels it.
  # Native modules build from source (prebuilt downloads from github fail): build-essential, libkrb5-dev.
  ( cd "$CS_DIR" && XDG_CONFIG_HOME="$CS_DIR/.xdg" npm_config_unsafe_perm=true npm_config_yes=true \
      npm install --no-audit --no-fund --foreground-scripts "code-server@$CS_VERSION" >"$CS_DIR/install.log" 2>&1 ) \
    || { rm -rf "$RG_CACHE"; tail -40 "$CS_DIR/install.log" >&2; die "code-server install (log: $CS_DIR/install.log)"; }
  [ -d "$CS_DIR/node_modules/code-server/lib/vscode/node_modules" ] \
    || { tail -40 "$CS_DIR/install.log" >&2; die "code-server postinstall did not run (log: $CS_DIR/install.log)"; }
  rm -rf "$RG_CACHE"  # the seed is only needed during the install
  touch "$CS_DIR/.installed-$CS_VERSION"
fi
step "code-server $CS_VERSION" "$t"

# --- playwright-core: the driver only
t=$(date +%s)
if [ "${FORCE:-0}" = 1 ] || [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"
  echo '{"name":"kernelpro-editors-playwright","private":true}' > "$PW_DIR/package.json"
  ( cd "$PW_DIR" && npm install --no-audit --no-fund "playwright-core@$PW_VERSION" >"$PW_DIR/install.log" 2>&1 ) \
    || { tail -20 "$PW_DIR/install.log" >&2; die "playwright-core install"; }
fi
step "playwright-core $PW_VERSION" "$t"

echo "[editors] ready in $(( $(date +%s) - T0 ))s: $(nvim --version | head -1), $(chromium --version 2>/dev/null | head -1), code-server=$CS_BIN"
