#!/usr/bin/env bash
# Times the whole nova binary against the scripted model server and prints a
# Markdown report (paste it into BENCHMARKS.md). Usage: bench/run.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
go build -trimpath -o "$out/nova" ./cmd/nova
go build -o "$out/novabench" ./bench/novabench
go build -o "$out/idlebase" ./bench/idlebase
"$out/novabench" -nova "$out/nova" -idlebase "$out/idlebase" -runs "${1:-5}"
