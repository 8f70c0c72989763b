#!/usr/bin/env bash
# Runs the generator on the vendored schema: schema/generate.sh [OUT_DIR [DOCS_DIR]]
# OUT_DIR defaults to codex-client-protocol/src/generated/java; DOCS_DIR, where the version tables of the
# documentation are written (docs/METHOD-VERSIONS.md and the marked cells of the other pages), to docs/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/codex-client-protocol/src/generated/java}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
docs="${2:-$root/docs}"
docs="$(cd "$docs" && pwd)"

mvn -B -q ${MAVEN_OFFLINE:+-o} -f "$root/pom.xml" -pl schema/generator compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
  -Dexec.mainClass=dev.codexclient.generator.Main \
  -Dexec.args="--schema-dir $root/schema --overrides $root/schema/codegen-overrides.json --out $out --docs $docs"
