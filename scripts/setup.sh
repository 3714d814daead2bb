#!/usr/bin/env bash
# Installs everything floe's build and tests need on Debian 12: the Debian
# packages (only those missing) and the pinned npm test tools (npm ci).
# Idempotent: a second run installs nothing and takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git clang clang-format libclang-rt-14-dev lld
  libgtest-dev libgmock-dev libbenchmark-dev
  libzstd-dev libsnappy-dev liblz4-dev libbrotli-dev zlib1g-dev
  libssl-dev libcurl4-openssl-dev libsqlite3-dev libpq-dev libroaring-dev libcpp-httplib-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev libtomlplusplus-dev libre2-dev libutf8proc-dev libsimdjson-dev libbz2-dev
  librdkafka-dev kafkacat
  postgresql python3 python3-jsonschema python3-yaml
  chromium
  time
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from another packager (nodesource bundles npm): ask for
# Debian's only when the commands are absent.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -f tests/package-lock.json ]; then
  if [ ! -d tests/node_modules ] || [ tests/package-lock.json -nt tests/node_modules/.package-lock.json ]; then
    echo "setup: installing pinned npm test tools (npm ci)"
    (cd tests && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
echo "setup: ok"
