#!/usr/bin/env bash
# The search benchmark of issue 19 (BENCHMARKS.md, "Search and read"): Grep,
# Glob and Read, each a call in a process of its own with a session's path
# guard, against ripgrep on the same trees and queries, alternating, median
# of [runs] (default 5); then the peak resident size of Grep and Read calls
# on a 2 GB log. The first run generates the tree (≥ 50,000 files, ≥ 1 GB)
# and the log in the user's cache directory (~/.cache/novabench-search, about
# 3.5 GB; -search-tree elsewhere); the Go module cache is searched too when
# there is one. Run by hand; not part of CI.
# Usage: bench/search.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
command -v rg >/dev/null || { echo "ripgrep (rg) is not installed: it is the baseline" >&2; exit 1; }
release=(-trimpath -ldflags="-s -w")
CGO_ENABLED=0 go build "${release[@]}" -o "$out/searchcall" ./bench/searchcall
go build -o "$out/novabench" ./bench/novabench
"$out/novabench" -only search -searchcall "$PWD/$out/searchcall" -runs "${1:-5}"
