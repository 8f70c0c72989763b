#!/usr/bin/env bash
# Writes schema/methods/VERSION.txt, the methods of a codex version, from the schema that version exports:
#
#   schema/method-lists.sh 0.171.0 [0.169.0 ...]
#
# A version already in the cache (${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/VERSION, where the testkit's
# CodexBinary installs) is used from there; any other is installed with npm into a temporary directory and removed
# afterwards (a codex takes 170–420 MB), unless KEEP_CODEX=1 keeps it in the cache. The generator reads every list
# to record, for each method, the checked versions that have it (schema/README.md, Method versions).
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 <codex-version>...   (for example 0.171.0)" >&2
  exit 64
fi
for version in "$@"; do
  if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
    echo "$0: not a codex version: $version" >&2
    exit 64
  fi
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A private HOME and CODEX_HOME for codex: the export must not read or write the user's codex configuration.
mkdir -p "$work/home" "$work/codex-home"
export_schema() {
  HOME="$work/home" CODEX_HOME="$work/codex-home" "$1" app-server generate-json-schema --out "$2" ${3:+"$3"}
}

args=()
for version in "$@"; do
  prefix="$cache_root/$version"
  if [[ ! -x "$prefix/node_modules/.bin/codex" ]]; then
    if [[ "${KEEP_CODEX:-0}" != 1 ]]; then
      prefix="$work/codex-$version"
    fi
    echo "method-lists: installing @openai/codex@$version into $prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error --cache "$work/npm-cache" \
      "@openai/codex@$version" >/dev/null
  fi
  out="$work/schema-$version"
  # --experimental is the superset; a codex that rejects the flag has no experimental surface to add.
  if ! export_schema "$prefix/node_modules/.bin/codex" "$out" --experimental >/dev/null 2>&1; then
    export_schema "$prefix/node_modules/.bin/codex" "$out" >/dev/null
  fi
  if [[ "$prefix" == "$work/"* ]]; then
    rm -rf "$prefix" "$work/npm-cache"
  fi
  args+=("$version=$out/codex_app_server_protocol.schemas.json")
done

mvn -B -q ${MAVEN_OFFLINE:+-o} -f "$root/pom.xml" -pl schema/generator compile \
  org.codehaus.mojo:exec-maven-plugin:3.5.0:java -Dexec.mainClass=dev.codexclient.generator.MethodLists \
  -Dexec.args="--out-dir $root/schema/methods ${args[*]}"
