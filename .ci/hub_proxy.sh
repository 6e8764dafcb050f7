#!/usr/bin/env bash
# Installs configurable-http-proxy (npm), which JupyterHub starts in front of the hub and
# the users' servers, for the hub tier (tests/hub): into $WINDOWMEM_HUB_HOME (default
# ~/.cache/windowmem-hub), outside the clone, so a fresh clone in CI installs it once per
# machine. Needs node >= 18 and npm (Debian's nodejs and npm). Prints the proxy's path.
set -euo pipefail
VERSION=5.3.0
HOME_DIR=${WINDOWMEM_HUB_HOME:-$HOME/.cache/windowmem-hub}
PROXY="$HOME_DIR/node_modules/.bin/configurable-http-proxy"
if [ -x "$PROXY" ] && [ "$(node -p "require('$HOME_DIR/node_modules/configurable-http-proxy/package.json').version" 2>/dev/null)" = "$VERSION" ]; then
  echo "$PROXY"
  exit 0
fi
command -v npm >/dev/null 2>&1 || {
  echo "hub_proxy.sh: npm was not found; install node and npm (apt-get install nodejs npm)" >&2
  exit 1
}
mkdir -p "$HOME_DIR"
echo "hub_proxy.sh: installing configurable-http-proxy $VERSION into $HOME_DIR" >&2
npm install --prefix "$HOME_DIR" --no-audit --no-fund --loglevel=error "configurable-http-proxy@$VERSION" >&2
echo "$PROXY"
