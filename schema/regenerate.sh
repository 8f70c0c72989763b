#!/usr/bin/env bash
# Follows a codex release in one command: moves the vendored schema to it and regenerates everything that follows.
#
#   schema/regenerate.sh 0.172.0          (or "latest": npm's latest @openai/codex)
#
# 1. Installs @openai/codex@<version> with npm into ${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/<version>
#    (only when it is not there yet) and exports its stable and experimental schema.
# 2. Runs the drift report of that codex against the current pin (the decisions: what it removes and reshapes),
#    into target/follow/<version>/drift.txt and drift.json.
# 3. Keeps the server requests it removed (schema/retained.json: an older server may still send them) and lists
#    the other removed methods; writes its method list (schema/methods/<version>.txt).
# 4. Replaces schema/stable and schema/experimental, writes schema/VERSION, moves the pins that must equal it (the
#    parent pom's codex.version, the testkit's CodexBinary.PINNED_VERSION), and runs the generator, which also
#    writes the version tables of docs/ (METHOD-VERSIONS.md, the "since" cells).
# 5. Prints what a maintainer must still decide and do.
#
# MAVEN_OFFLINE=1 runs Maven offline. Nothing is committed.
set -euo pipefail

version="${1:-}"
if [[ -z "$version" ]]; then
  echo "usage: $0 <codex-version>|latest   (for example 0.172.0)" >&2
  exit 64
fi
if [[ "$version" == latest ]]; then
  version="$(npm view @openai/codex dist-tags.latest)"
  echo "regenerate: npm's latest @openai/codex is $version"
fi
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "$0: not a codex version: $version" >&2
  exit 64
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
previous="$(cat "$root/schema/VERSION")"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/$version"
codex="$cache/node_modules/.bin/codex"
report="$root/target/follow/$version"
mvn_q=(mvn -B -q ${MAVEN_OFFLINE:+-o} -f "$root/pom.xml")
step() { printf '\n=== regenerate: %s\n' "$*"; }

if [[ ! -x "$codex" ]]; then
  step "installing @openai/codex@$version into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund "@openai/codex@$version"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/codex-home" "$work/home" "$report"
# A private HOME and CODEX_HOME: the export must not read or write the user's codex configuration.
export_schema() {
  HOME="$work/home" CODEX_HOME="$work/codex-home" "$codex" app-server generate-json-schema --out "$1" ${2:+"$2"}
}

step "exporting the schema of codex $version"
export_schema "$work/stable"
export_schema "$work/experimental" --experimental
for flavor in stable experimental; do
  if [[ ! -f "$work/$flavor/codex_app_server_protocol.schemas.json" ]]; then
    echo "codex $version did not write $flavor/codex_app_server_protocol.schemas.json" >&2
    exit 1
  fi
done

# The drift tool as built now carries the current pin's schema: it compares the new codex with it.
step "drift report: codex $version against the pinned $previous"
"${mvn_q[@]}" -pl codex-client-schema-drift -am package -Dmaven.test.skip=true \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
  -Dmdep.outputFile=target/drift.classpath -DincludeScope=runtime
mp="$(ls "$root"/codex-client-schema-drift/target/codex-client-schema-drift-*.jar | grep -v -e -sources -e -javadoc \
  | head -1):$(cat "$root/codex-client-schema-drift/target/drift.classpath")"
set +e
java -p "$mp" -m dev.codexclient.drift --codex "$codex" --details --untyped --decisions \
  --json-file "$report/drift.json" > "$report/drift.txt"
drift_status=$?
set -e
if [[ "$drift_status" -ge 2 ]]; then
  cat "$report/drift.txt" >&2
  echo "regenerate: the drift report failed (exit $drift_status)" >&2
  exit 1
fi
sed -n '/^\(OK\|INCOMPATIBLE\):/,/^$/p' "$report/drift.txt"

if [[ "$previous" != "$version" ]]; then
  step "methods codex $version removed"
  "${mvn_q[@]}" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
    -Dexec.mainClass=dev.codexclient.generator.Retain \
    -Dexec.args="--old $root/schema --old-version $previous --new $work --retained $root/schema/retained.json \
--overrides $root/schema/codegen-overrides.json --server-requests" | tee "$report/retain.txt"
fi

step "the method list of codex $version"
"${mvn_q[@]}" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
  -Dexec.mainClass=dev.codexclient.generator.MethodLists \
  -Dexec.args="--out-dir $root/schema/methods $version=$work/experimental/codex_app_server_protocol.schemas.json"

step "schema/ to codex $version; the pins; the generated protocol and version tables"
for flavor in stable experimental; do
  rm -rf "$root/schema/$flavor"
  mv "$work/$flavor" "$root/schema/$flavor"
done
echo "$version" > "$root/schema/VERSION"
sed -i "s|<codex.version>[0-9][^<]*</codex.version>|<codex.version>$version</codex.version>|" "$root/pom.xml"
sed -i "s|PINNED_VERSION = \"[^\"]*\"|PINNED_VERSION = \"$version\"|" \
  "$root/codex-client-testkit/src/main/java/dev/codexclient/testkit/CodexBinary.java"
set +e
"$root/schema/generate.sh" 2>&1 | tee "$report/generate.txt"
generated=${PIPESTATUS[0]}
set -e

step "what a maintainer must still decide and do"
if [[ "$generated" -ne 0 ]]; then
  echo "  the generator stopped (schema/ and the pins are moved; the protocol is not regenerated):"
  grep "codex-client-generator:" "$report/generate.txt" | sed 's/^.*codex-client-generator: /    /'
  echo "    fix it (schema/codegen-overrides.json, schema/README.md), then run schema/generate.sh"
fi
sed -n '/^To decide before moving the pin/,$p' "$report/drift.txt"
if [[ -f "$report/retain.txt" ]] && grep -q "is dropped" "$report/retain.txt"; then
  echo "  removed methods dropped from the SDK (keep one: rerun Retain with --method, see schema/README.md):"
  grep "is dropped" "$report/retain.txt" | sed 's/^retain: /    /'
fi
cat <<EOF

  Then:
    - record each break above in CHANGELOG.md with its one-line migration;
    - git diff --stat; refresh the generator's golden files (mvn -pl schema/generator test -Dgolden.update=true)
      and review them;
    - record real traffic of the new pin: see RecordRealTraffic (codex-client-testkit, test sources);
    - update the prose that names versions (README.md's compatibility table, docs/COMPATIBILITY.md);
    - run the tests on the new pin (mvn -B verify) and the matrix (.ci/compat-matrix.sh).
  The whole drift report: $report/drift.txt (JSON: drift.json).
EOF
