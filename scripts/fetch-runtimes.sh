#!/usr/bin/env bash
# Fetches the runtimes the runtime tests run tracewire under (test/runtimes/runtimes.test.ts): Cloudflare's workerd,
# Bun and Deno, each from its npm platform package (the binary ships in the tarball; nothing else is downloaded), into
# a cache directory, once per pinned version. Never devDependencies: they are ~150 MB and only these tests need them.
#
# Usage: scripts/fetch-runtimes.sh [cache-dir]   (default: $TRACEWIRE_RUNTIMES_DIR, else ~/.cache/tracewire-runtimes)
# Prints one `name=path-to-binary` line per runtime. Linux x64 only (the platform packages named below).
set -euo pipefail

dir="${1:-${TRACEWIRE_RUNTIMES_DIR:-$HOME/.cache/tracewire-runtimes}}"
mkdir -p "$dir"

# name  npm package@version  path of the binary inside the package
runtimes=(
  "workerd @cloudflare/workerd-linux-64@1.20261117.1 bin/workerd"
  "bun @oven/bun-linux-x64@1.4.5 bin/bun"
  "deno @deno/linux-x64-glibc@2.9.6 deno"
)

for entry in "${runtimes[@]}"; do
  read -r name spec inner <<<"$entry"
  target="$dir/$name-${spec##*@}"
  if [ ! -x "$target/package/$inner" ]; then
    tmp="$(mktemp -d "$dir/.fetch-XXXXXX")"
    (cd "$tmp" && npm pack "$spec" --silent >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz)
    rm -rf "$target"
    mv "$tmp" "$target"
    chmod +x "$target/package/$inner"
  fi
  echo "$name=$target/package/$inner"
done
