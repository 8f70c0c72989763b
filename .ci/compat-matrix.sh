#!/usr/bin/env bash
# The compatibility matrix: installs each codex version into the cache, writes its drift report against the
# pinned schema (codex-client-schema-drift's command line), and runs against all of them in one Maven run every test
# that takes its codex versions from CompatVersions: the compatibility flows (CompatibilityTest), the drift tests
# (SchemaDriftRealCodexTest), the native spawn of each kind of npm launcher (RealCodexNativeSpawnTest) and the restart
# that resumes held threads without their turns, or, on a codex that cannot, with them (RealCodexResumeWithoutTurnsTest).
#
#   .ci/compat-matrix.sh                                   # 0.98.0, 0.120.0, 0.169.0 and the pinned version
#   CODEX_COMPAT_VERSIONS="0.98.0 0.150.0" .ci/compat-matrix.sh
#   CODEX_COMPAT_VERSIONS=0.172.0 CODEX_COMPAT_REQUIRED=0.172.0 CODEX_COMPAT_OUT=target/latest .ci/compat-matrix.sh
#                                                          # what .ci/latest-codex.sh runs
#
# Why these versions: 0.98.0 is the oldest supported (legacy codex/event/* notifications, an initialize result
# with only userAgent, per-session turn ids); 0.120.0 speaks the current protocol but lacks thread/revert and
# sends turn/completed without items; 0.169.0, the previous pin, still has the server request currentTime/read and
# the old shape of AgentMessageDisplay; the pinned version is what the SDK is generated from (docs/COMPATIBILITY.md).
#
# Writes target/compat/ (CODEX_COMPAT_OUT): drift-VERSION.txt and drift-VERSION.json (with the methods the SDK does
# not type), compatibility.md (the flows by version) and summary.md. Fails when a flow did not pass on every
# version (each flow × each version, read from the table the test writes: a flow that failed, or did not run, fails
# the matrix), when a test method of the other three did not run and pass once per version, when the pinned codex publishes a schema other than the vendored one, when a version of
# CODEX_COMPAT_REQUIRED lacks something the client API relies on, or when the drift tool cannot produce a report. A
# drift report that names methods an old version lacks (exit status 1) is expected and does not fail the matrix.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
PINNED="$(cat schema/VERSION)"
VERSIONS="${CODEX_COMPAT_VERSIONS:-0.98.0 0.120.0 0.169.0 ${PINNED}}"
REQUIRED="${CODEX_COMPAT_REQUIRED:-}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/codex-client/codex"
OUT="${CODEX_COMPAT_OUT:-target/compat}"
mkdir -p "${OUT}"
summary="${OUT}/summary.md"
failed=0

log() { printf '\n=== compat: %s\n' "$*"; }
elapsed() { echo "$(( $(date +%s) - started )) s"; }

for v in ${VERSIONS}; do
  if [[ ! "${v}" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
    echo "compat: not a codex version: ${v}" >&2
    exit 64
  fi
done

log "codex versions: ${VERSIONS} (cache ${CACHE})"
# The tests install each version on demand, as the testkit's CodexBinary does for users (npm with the machine's
# global configuration, progress shown, nothing left in ~/.npm), so the flows run first and the drift reports,
# which need the binaries, after them.
log "compatibility flows and drift tests ($(elapsed))"
list="$(echo ${VERSIONS} | tr ' ' ',')"
# Each of these runs every test method once per version (SchemaDriftRealCodexTest: the pinned one and the others).
PER_VERSION="SchemaDriftRealCodexTest RealCodexNativeSpawnTest RealCodexResumeWithoutTurnsTest"
for t in CompatibilityTest ${PER_VERSION}; do
  rm -f "integration-tests/target/surefire-reports/TEST-dev.codexclient.it.${t}.xml"
done
rm -f integration-tests/target/compatibility.md
set +e
mvn -B -pl integration-tests -am verify -Dtest="$(echo CompatibilityTest ${PER_VERSION} | tr ' ' ',')" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dcodex.compat.versions="${list}" > "${OUT}/flows.log" 2>&1
status=$?
set -e
grep -E 'Tests run:|FAIL' "${OUT}/flows.log" | grep -v ' -- in ' | tail -5 || true
if [ "${status}" -ne 0 ]; then
  tail -80 "${OUT}/flows.log" >&2
  echo "compat: the compatibility tests failed; see ${OUT}/flows.log" >&2
  failed=1
fi
# Every flow on every version, from the table CompatibilityTest writes (a flow × version it did not run reads "not
# run"): a filter or tag configuration that leaves combinations out must not pass as green.
table=integration-tests/target/compatibility.md
.ci/compat-table-check "${VERSIONS}" "${table}" || failed=1
report="integration-tests/target/surefire-reports/TEST-dev.codexclient.it.CompatibilityTest.xml"
ran=$(sed -n 's/.*<testsuite [^>]*tests="\([0-9]*\)".*/\1/p' "${report}" 2>/dev/null | head -1)
skipped=$(sed -n 's/.*<testsuite [^>]*skipped="\([0-9]*\)".*/\1/p' "${report}" 2>/dev/null | head -1)
if [ -z "${ran}" ] || [ "${ran}" -eq 0 ] || [ "${ran}" = "${skipped}" ]; then
  echo "compat: CompatibilityTest did not run (tests=${ran:-none}, skipped=${skipped:-none})" >&2
  failed=1
fi
versions_count=$(echo ${VERSIONS} | wc -w)
drift_count=$(printf '%s\n' "${PINNED}" ${VERSIONS} | sort -u | wc -l)
for t in ${PER_VERSION}; do
  report="integration-tests/target/surefire-reports/TEST-dev.codexclient.it.${t}.xml"
  want=${versions_count}
  [ "${t}" = SchemaDriftRealCodexTest ] && want=${drift_count}
  if [ ! -f "${report}" ]; then
    echo "compat: ${t} did not run (no report ${report})" >&2
    failed=1
    continue
  fi
  # Each method's cases (name "method(String)[N]"), and those that did not pass.
  wrong="$(awk -v want="${want}" '
    /<testcase / { name = $0; sub(/.* name="/, "", name); sub(/[("[].*/, "", name); cases[name]++; current = name }
    /<(skipped|failure|error)[ >\/]/ { failed[current]++ }
    END { for (m in cases) if (cases[m] != want || failed[m] > 0)
            printf "  %s: %d cases for %d versions, %d not passed\n", m, cases[m], want, failed[m] + 0 }' "${report}")"
  if [ -n "${wrong}" ] || ! grep -q '<testcase ' "${report}"; then
    echo "compat: ${t} did not run and pass once per version:" >&2
    echo "${wrong:-  no test case}" >&2
    failed=1
  fi
done
for v in ${VERSIONS}; do
  dir="${CACHE}/${v}"
  # The package's own version, not `codex --version`: run without a private CODEX_HOME, codex writes into ~/.codex.
  echo "codex ${v}: $(node -p "require('${dir}/node_modules/@openai/codex/package.json').version" 2>/dev/null \
    || echo 'not installed') ($(du -sh "${dir}" 2>/dev/null | cut -f1))"
done

log "drift reports ($(elapsed))"
# The command-line tool as users run it: the drift artifact's jar and its runtime dependencies, on the module path
# (which also checks that the jar names its main class and reads its schema as a module).
mvn -B -q -pl codex-client-schema-drift -am package -DskipTests \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
  -Dmdep.outputFile=target/drift.classpath -DincludeScope=runtime
MP="$(ls codex-client-schema-drift/target/codex-client-schema-drift-*.jar | grep -v -e -sources -e -javadoc | head -1)"
MP="${MP}:$(cat codex-client-schema-drift/target/drift.classpath)"
{
  echo "# Compatibility matrix"
  echo
  echo "| codex | drift report | exit |"
  echo "|---|---|---|"
} > "${summary}"
for v in ${VERSIONS}; do
  codex="${CACHE}/${v}/node_modules/.bin/codex"
  strict=()
  [ "${v}" = "${PINNED}" ] && strict=(--strict)
  set +e
  java -p "${MP}" -m dev.codexclient.drift --codex "${codex}" --untyped --json-file "${OUT}/drift-${v}.json" \
    ${strict[@]+"${strict[@]}"} > "${OUT}/drift-${v}.txt"
  status=$?
  set -e
  verdict="$(grep -m1 -E '^(OK|INCOMPATIBLE):' "${OUT}/drift-${v}.txt" || echo 'no report')"
  echo "codex ${v}: exit ${status}: ${verdict}"
  echo "| ${v} | ${verdict} | ${status} |" >> "${summary}"
  required=false
  for r in ${REQUIRED}; do [ "${r}" = "${v}" ] && required=true; done
  if [ "${status}" -ge 2 ] || { [ "${v}" = "${PINNED}" ] && [ "${status}" -ne 0 ]; } \
      || { ${required} && [ "${status}" -ne 0 ]; }; then
    echo "compat: the drift report for codex ${v} failed (exit ${status}); see ${OUT}/drift-${v}.txt" >&2
    failed=1
  fi
done

if [ -f "${table}" ]; then
  cp "${table}" "${OUT}/compatibility.md"
  { echo; cat "${OUT}/compatibility.md"; } >> "${summary}"
fi

log "done in $(elapsed)"
cat "${summary}"
exit "${failed}"
