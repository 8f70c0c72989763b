#!/usr/bin/env bash
# The codex users install today: runs the drift report and the compatibility flows on npm's latest @openai/codex.
# Fails when that codex lacks a method the client API relies on, or when a flow does not pass on it; reports,
# without failing, the methods it has that this SDK does not type yet (a release to follow: schema/regenerate.sh).
# Writes target/latest/ (drift-VERSION.txt, .json, compatibility.md, summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."

latest="$(npm view @openai/codex dist-tags.latest)"
# An empty answer would leave the matrix its default versions, and a green run on them would pass for npm's latest.
if [[ ! "${latest}" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "latest-codex: npm named no latest @openai/codex version (it said '${latest}')" >&2
  exit 1
fi
pinned="$(cat schema/VERSION)"
echo "latest codex on npm: ${latest} (the SDK is generated from ${pinned})"
status=0
CODEX_COMPAT_VERSIONS="${latest}" CODEX_COMPAT_REQUIRED="${latest}" CODEX_COMPAT_OUT=target/latest \
  .ci/compat-matrix.sh || status=$?
sed -n '/^Methods this SDK does not type/,/^$/p' "target/latest/drift-${latest}.txt" 2>/dev/null || true
echo "ran on codex ${latest}: $([ "${status}" -eq 0 ] && echo passed || echo FAILED)"
exit "${status}"
