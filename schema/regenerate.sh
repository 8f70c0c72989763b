#!/usr/bin/env bash
# Follows a codex release in one command: moves the vendored schema to it and regenerates everything that follows.
#
#   schema/regenerate.sh 0.172.0             (or "latest": npm's latest @openai/codex)
#   schema/regenerate.sh --dry-run 0.172.0   all but the move into place: what would change; nothing moved
#
# 1. Installs @openai/codex@<version> with npm into ${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex/<version>
#    (only when it is not there yet) and exports its stable and experimental schema.
# 2. Runs the drift report of that codex against the current pin (the decisions: what it removes and reshapes),
#    into target/follow/<version>/drift.txt and drift.json.
# 3. Keeps the server requests it removed (schema/retained.json: an older server may still send them) and lists
#    the other removed methods; writes its method list (schema/methods/<version>.txt).
# 4. Runs the generator on the new schema, which also writes the version tables of docs/ (METHOD-VERSIONS.md, the
#    "since" cells), and lists what would change.
# 5. Only when every step passed: replaces schema/stable and schema/experimental, writes schema/VERSION, the method
#    list and schema/retained.json, moves the pins that must equal it (the parent pom's codex.version, the testkit's
#    CodexBinary.PINNED_VERSION), the generated protocol and the docs' tables.
# 6. Prints what a maintainer must still decide and do.
#
# Steps 3 and 4 work on a staging copy (target/follow/<version>/stage): a step that fails stops the script with exit
# status 1 and nothing of the checkout moved. --dry-run stops before step 5; on the pinned version it fails when
# anything would change (CI runs it so: regenerating what is pinned reproduces what is committed).
# MAVEN_OFFLINE=1 runs Maven offline. Nothing is committed.
set -euo pipefail

dry_run=false
if [[ "${1:-}" == --dry-run ]]; then
  dry_run=true
  shift
fi
version="${1:-}"
if [[ -z "$version" ]]; then
  echo "usage: $0 [--dry-run] <codex-version>|latest   (for example 0.172.0)" >&2
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
    echo "regenerate: codex $version did not write $flavor/codex_app_server_protocol.schemas.json; nothing was moved" >&2
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
  echo "regenerate: the drift report failed (exit $drift_status); nothing was moved" >&2
  exit 1
fi
sed -n '/^\(OK\|INCOMPATIBLE\):/,/^$/p' "$report/drift.txt"

# The staging copy: the schema's data (not the generator), the docs, and the generated protocol's place. Every step
# from here writes there; only the last one moves what it made into the checkout.
stage="$report/stage"
rm -rf "$stage"
mkdir -p "$stage/schema" "$stage/docs" "$stage/java"
(cd "$root/schema" && tar --exclude=./generator -cf - .) | (cd "$stage/schema" && tar -xf -)
cp "$root"/docs/*.md "$stage/docs/"
fail() {
  echo "regenerate: $*" >&2
  echo "regenerate: nothing was moved: schema/, the pins, the protocol and the docs are as they were" >&2
  exit 1
}

if [[ "$previous" != "$version" ]]; then
  step "methods codex $version removed"
  "${mvn_q[@]}" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
    -Dexec.mainClass=dev.codexclient.generator.Retain \
    -Dexec.args="--old $root/schema --old-version $previous --new $work --retained $stage/schema/retained.json \
--overrides $stage/schema/codegen-overrides.json --server-requests" > "$report/retain.txt" 2>&1 \
    || { cat "$report/retain.txt" >&2; fail "keeping the removed server requests failed"; }
  cat "$report/retain.txt"
fi

step "the method list of codex $version"
"${mvn_q[@]}" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
  -Dexec.mainClass=dev.codexclient.generator.MethodLists \
  -Dexec.args="--out-dir $stage/schema/methods $version=$work/experimental/codex_app_server_protocol.schemas.json" \
  || fail "the method list of codex $version failed"

step "the generated protocol and version tables of codex $version (staged)"
for flavor in stable experimental; do
  rm -rf "$stage/schema/$flavor"
  cp -r "$work/$flavor" "$stage/schema/$flavor"
done
echo "$version" > "$stage/schema/VERSION"
set +e
"${mvn_q[@]}" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
  -Dexec.mainClass=dev.codexclient.generator.Main \
  -Dexec.args="--schema-dir $stage/schema --overrides $stage/schema/codegen-overrides.json --out $stage/java \
--docs $stage/docs" > "$report/generate.txt" 2>&1
generated=$?
set -e
if [[ "$generated" -ne 0 ]]; then
  echo "  the generator stopped:" >&2
  grep "codex-client-generator:" "$report/generate.txt" | sed 's/^.*codex-client-generator: /    /' >&2 \
    || tail -20 "$report/generate.txt" >&2
  echo "  fix it (schema/codegen-overrides.json, schema/README.md), then run this again" >&2
  fail "the generator failed on codex $version's schema (log: $report/generate.txt)"
fi

step "what changes"
changes="$report/changes.txt"
: > "$changes"
for d in stable experimental methods; do
  diff -rq "$root/schema/$d" "$stage/schema/$d" >> "$changes" 2>&1 || true
done
for f in VERSION retained.json; do
  cmp -s "$root/schema/$f" "$stage/schema/$f" || echo "schema/$f differs" >> "$changes"
done
diff -rq "$root/codex-client-protocol/src/generated/java" "$stage/java" >> "$changes" 2>&1 || true
for page in "$stage"/docs/*.md; do
  cmp -s "$root/docs/$(basename "$page")" "$page" || echo "docs/$(basename "$page") differs" >> "$changes"
done
if [[ -s "$changes" ]]; then
  sed -e "s|$stage/|(staged) |g" -e "s|$root/||g" "$changes" | sed 's/^/  /'
else
  echo "  nothing: codex $version gives what is committed"
fi

if $dry_run; then
  if [[ "$version" == "$previous" && -s "$changes" ]]; then
    fail "--dry-run on the pinned $version: regenerating what is pinned must reproduce what is committed (above)"
  fi
  echo
  echo "regenerate: dry run on codex $version passed; nothing moved (staged: $stage)"
  exit 0
fi

step "schema/ to codex $version; the pins; the generated protocol and version tables"
for d in stable experimental methods; do
  rm -rf "$root/schema/$d"
  cp -r "$stage/schema/$d" "$root/schema/$d"
done
cp "$stage/schema/VERSION" "$stage/schema/retained.json" "$root/schema/"
rm -rf "$root/codex-client-protocol/src/generated/java"
cp -r "$stage/java" "$root/codex-client-protocol/src/generated/java"
cp "$stage"/docs/*.md "$root/docs/"
sed -i "s|<codex.version>[0-9][^<]*</codex.version>|<codex.version>$version</codex.version>|" "$root/pom.xml"
sed -i "s|PINNED_VERSION = \"[^\"]*\"|PINNED_VERSION = \"$version\"|" \
  "$root/codex-client-testkit/src/main/java/dev/codexclient/testkit/CodexBinary.java"

step "what a maintainer must still decide and do"
sed -n '/^To decide before moving the pin/,$p' "$report/drift.txt"
if [[ -f "$report/retain.txt" ]] && grep -q "is dropped" "$report/retain.txt"; then
  echo "  removed methods dropped from the SDK (keep one: rerun Retain with --method, see schema/README.md):"
  grep "is dropped" "$report/retain.txt" | sed 's/^retain: /    /'
fi
cat <<EOF

  Then:
    - record each break above in CHANGELOG.md with its one-line migration, and the protocol's public API with
      mvn -B -q -pl api -am verify -DskipTests -Dapi.update (docs/RELEASING.md, "The public API");
    - git diff --stat; refresh the generator's golden files (mvn -pl schema/generator test -Dgolden.update=true)
      and review them;
    - record real traffic of the new pin: see RecordRealTraffic (codex-client-testkit, test sources);
    - update the prose that names versions (README.md's compatibility table, docs/COMPATIBILITY.md);
    - run the tests on the new pin (mvn -B verify) and the matrix (.ci/compat-matrix.sh).
  The whole drift report: $report/drift.txt (JSON: drift.json).
EOF
