#!/usr/bin/env bash
# Fails when the committed generated sources differ from what the generator produces from the vendored
# schema (CI runs this). Fix a failure with schema/generate.sh and commit the result.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$root/schema/generate.sh" "$tmp" >/dev/null
committed="$root/codex-client-protocol/src/generated/java"
if ! diff -ru "$committed" "$tmp" > "$tmp.diff"; then
  cat "$tmp.diff"
  rm -f "$tmp.diff"
  echo "check-generated: generated sources are out of date; run schema/generate.sh and commit" >&2
  exit 1
fi
rm -f "$tmp.diff"
echo "check-generated: generated sources match the schema"
