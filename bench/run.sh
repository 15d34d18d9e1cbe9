#!/usr/bin/env bash
# Times the whole nova binary against the scripted model server and prints a
# Markdown report (paste it into BENCHMARKS.md). Usage: [BENCH_OLD=rev] bench/run.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
# The release build (README): no cgo, no symbol table or DWARF. Without cgo
# the binary is linked by Go itself, statically (with cgo, go-landlock's psx
# makes it a gcc link against libc); -s -w only shrink the file (BENCHMARKS.md,
# Process size).
release=(-trimpath -ldflags="-s -w")
CGO_ENABLED=0 go build "${release[@]}" -o "$out/nova" ./cmd/nova
go build -o "$out/novabench" ./bench/novabench
# The idle baseline and nova-upstream run upstream Bubble Tea: our copy with
# its novacode.patch taken back (third_party/bubbletea/NOVACODE.md), put in
# place of the copy's files by a build overlay; the tree is not touched.
tea=third_party/bubbletea
up=$(mktemp -d)
trap 'rm -rf "$up"' EXIT
cp -R "$tea/." "$up"
(cd "$up" && GIT_CEILING_DIRECTORIES="$(dirname "$up")" git apply -R -p1 novacode.patch)
{
  echo '{"Replace": {'
  sep=
  for f in $( (cd "$tea" && ls -- *.go; cd "$up" && ls -- *.go) | sort -u); do
    [ -f "$up/$f" ] && to="\"$up/$f\"" || to='""'
    printf '%s"%s": %s' "$sep" "$PWD/$tea/$f" "$to"; sep=$',\n'
  done
  printf '\n}}\n'
} >"$up/overlay.json"
go build -overlay="$up/overlay.json" -o "$out/idlebase" ./bench/idlebase
CGO_ENABLED=0 go build -overlay="$up/overlay.json" "${release[@]}" -o "$out/nova-upstream" ./cmd/nova
# BENCH_OLD=<git revision> also builds that revision (with the same release
# flags) and measures it beside this one in the paced three-call turn.
old_args=()
if [ -n "${BENCH_OLD:-}" ]; then
  rm -rf "$out/old-src"; mkdir -p "$out/old-src"
  git archive "$BENCH_OLD" | tar -x -C "$out/old-src"
  (cd "$out/old-src" && CGO_ENABLED=0 go build "${release[@]}" -o ../nova-old ./cmd/nova)
  old_args=(-nova-old "$out/nova-old" -nova-old-label "$BENCH_OLD")
fi
"$out/novabench" -nova "$out/nova" -nova-upstream "$out/nova-upstream" -idlebase "$out/idlebase" -runs "${1:-5}" "${old_args[@]}"
