#!/usr/bin/env bash
# Runs the unit tests of the protocol and of core against each Jackson 2.x the SDK supports:
#   schema/jackson-matrix.sh [VERSION ...]
# Default: 2.17.2 (the oldest supported, Spring Boot 3.3's) and 2.23.0 (the newest 2.x when this was written).
# The build's own Jackson (jackson.version in the parent pom) is what every other build tests. MAVEN_OFFLINE=1 adds -o.
# The generator requires nothing of the Jackson version; the protocol checks it at first use (ProtocolJson).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  versions=(2.17.2 2.23.0)
fi

for v in "${versions[@]}"; do
  echo "=== Jackson ${v}: codex-client-protocol and codex-client-core unit tests"
  mvn -B ${MAVEN_OFFLINE:+-o} -f "$root/pom.xml" -pl codex-client-protocol,codex-client-core -am verify \
    -Djackson.version="${v}" -DexcludedGroups=real-codex
done
echo "jackson-matrix: passed with ${versions[*]}"
