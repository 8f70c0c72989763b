#!/usr/bin/env bash
# Moves the vendored schema to another codex release and regenerates codex-client-protocol from it.
#
#   schema/regenerate.sh 0.170.0
#
# Installs @openai/codex@<version> with npm into ${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/<version>
# (only when it is not there yet), exports the stable and the experimental schema into schema/stable and
# schema/experimental (replacing them), writes schema/VERSION and runs the generator.
set -euo pipefail

version="${1:-}"
if [[ -z "$version" || ! "$version" =~ ^[0-9A-Za-z.+-]+$ ]]; then
  echo "usage: $0 <codex-version>   (for example 0.169.0)" >&2
  exit 64
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/$version"
codex="$cache/node_modules/.bin/codex"

if [[ ! -x "$codex" ]]; then
  echo "installing @openai/codex@$version into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund "@openai/codex@$version"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A private CODEX_HOME: the export must not read or write the user's codex configuration.
export CODEX_HOME="$work/codex-home"
mkdir -p "$CODEX_HOME"

"$codex" app-server generate-json-schema --out "$work/stable"
"$codex" app-server generate-json-schema --out "$work/experimental" --experimental

for flavor in stable experimental; do
  if [[ ! -f "$work/$flavor/codex_app_server_protocol.schemas.json" ]]; then
    echo "codex $version did not write $flavor/codex_app_server_protocol.schemas.json" >&2
    exit 1
  fi
done

# Methods the old pin has and the new one lacks: removed server requests are kept in schema/retained.json (an
# older server may still send them, and the client must answer); the others are listed for the maintainer.
previous="$(cat "$root/schema/VERSION")"
if [[ "$previous" != "$version" ]]; then
  mvn -B -q ${MAVEN_OFFLINE:+-o} -f "$root/pom.xml" -pl schema/generator compile \
    org.codehaus.mojo:exec-maven-plugin:3.5.0:java -Dexec.mainClass=dev.codexclient.generator.Retain \
    -Dexec.args="--old $root/schema --old-version $previous --new $work --retained $root/schema/retained.json \
--overrides $root/schema/codegen-overrides.json --server-requests"
fi

for flavor in stable experimental; do
  rm -rf "$root/schema/$flavor"
  mv "$work/$flavor" "$root/schema/$flavor"
done
echo "$version" > "$root/schema/VERSION"

"$root/schema/generate.sh" "$root/codex-client-protocol/src/generated/java"
echo "schema/ now describes codex $version; review 'git diff' and run the tests."
