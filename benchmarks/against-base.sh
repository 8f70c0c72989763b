#!/usr/bin/env bash
# Figure 1's decode passes of this checkout side by side with another commit's, in one JMH run, paired per
# iteration (AgainstBase):
#   benchmarks/against-base.sh [COMMIT [FORKS [ITERATIONS [DATASETS [PATHS]]]]]
# COMMIT defaults to main; FORKS 3, ITERATIONS 10 (of 2 s, after 5 of warm-up); DATASETS delta,deltaNewIds,mix;
# PATHS decoder,client. COMMIT's protocol and core are built apart under benchmarks/target/base-<sha> (no install).
# MAVEN_OFFLINE=1 adds -o.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commit="${1:-main}"
sha="$(git -C "$root" rev-parse --short "$commit")"
base="$root/benchmarks/target/base-$sha"
mvn_q=(mvn -B -q ${MAVEN_OFFLINE:+-o})

if ! ls "$base"/codex-client-core/target/codex-client-core-*.jar >/dev/null 2>&1; then
  echo "against-base: building the protocol and core of $sha in $base"
  rm -rf "$base"
  mkdir -p "$base"
  git -C "$root" archive "$sha" | tar -x -C "$base"
  "${mvn_q[@]}" -f "$base/pom.xml" -pl codex-client-core -am package -DskipTests -Dmaven.javadoc.skip=true
fi
base_cp="$(ls "$base"/codex-client-protocol/target/codex-client-protocol-*.jar | grep -v -e sources -e javadoc):$(
  ls "$base"/codex-client-core/target/codex-client-core-*.jar | grep -v -e sources -e javadoc)"

echo "against-base: building this checkout's benchmarks"
"${mvn_q[@]}" -f "$root/pom.xml" -pl benchmarks -am package dependency:build-classpath -DskipTests \
  -Dmaven.javadoc.skip=true -Dmdep.outputFile=target/bench.classpath
cp="$root/benchmarks/target/classes:$(cat "$root/benchmarks/target/bench.classpath")"

cd "$root/benchmarks"
exec java -Xmx1g -Djava.io.tmpdir="$root/benchmarks/target" -Dbench.base="$base_cp" -cp "$cp" \
  dev.codexclient.benchmarks.AgainstBase "${2:-3}" "${3:-10}" "${4:-delta,deltaNewIds,mix}" "${5:-decoder,client}"
