#!/usr/bin/env bash
# Fails when the committed generated sources, or the version tables of docs/, differ from what the generator
# produces from the vendored schema and method lists (CI runs this). Fix a failure with schema/generate.sh and commit
# the result.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/java" "$tmp/docs"
cp "$root"/docs/*.md "$tmp/docs/"
"$root/schema/generate.sh" "$tmp/java" "$tmp/docs" >/dev/null
committed="$root/codex-client-protocol/src/generated/java"
status=0
diff -ru "$committed" "$tmp/java" > "$tmp.diff" || status=1
for page in "$tmp"/docs/*.md; do
  diff -u "$root/docs/$(basename "$page")" "$page" >> "$tmp.diff" || status=1
done
if [ "$status" -ne 0 ]; then
  cat "$tmp.diff"
  rm -f "$tmp.diff"
  echo "check-generated: generated sources or docs are out of date; run schema/generate.sh and commit" >&2
  exit 1
fi
rm -f "$tmp.diff"
echo "check-generated: generated sources match the schema"
