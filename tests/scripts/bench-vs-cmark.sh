#!/usr/bin/env bash
# Benchmark: `tsgnav tree --json` against its floor, bare pulldown-cmark, on the same 2,000
# guides, in one hyperfine run (and cmark-gfm too, when it is installed).
#
# Usage: tests/scripts/bench-vs-cmark.sh [GUIDES] [RUNS]      (defaults: 2000 guides, 10 runs)
#
# Installs nothing. Needs, besides Rust:
#   hyperfine            Debian package: apt-get install hyperfine
#   /usr/bin/time        Debian package `time` (GNU time, for -v peak RSS)
#   python3              to read hyperfine's JSON export
#   cmark-gfm            optional (Debian package cmark-gfm): timed as well when present
# The library is generated from the ARO-HCP corpus (../shared/corpus/aro-hcp beside the
# checkout, or TSGNAV_CORPUS): whole copies of the corpus tree, each in its own folder
# (copy-NN/…, so relative links between guides still resolve inside a copy) with every H1
# retitled "… (variant NN)", until GUIDES files exist. TSGNAV_LIBRARY=DIR keeps it in DIR
# (made if missing, reused if it exists) instead of a temp folder.
#
# What is compared, and why it is fair:
#   cmark-floor:   tests/benches/cmark_floor.rs, built here as a program of its own against the
#                  pulldown-cmark version of Cargo.lock: one thread walks DIR, reads each file
#                  and runs pulldown-cmark over it (the options tsgnav uses: tables, task
#                  lists, strikethrough, front matter, GFM; offsets on), counting the events
#                  and nothing else. It is the parsing that tsgnav cannot avoid: the floor.
#   tsgnav:        TSGNAV_CACHE_DIR=<none> tsgnav tree --json DIR > /dev/null, with no usable
#                  parse cache (every guide parsed): walks DIR, reads each file, parses it
#                  (pulldown-cmark + the TSG model: roles, probes, edges, links) on every core,
#                  resolves cross-guide links, classifies every probe, writes the JSON;
#   tsgnav-cold:   the same with an empty cache folder (a first start: the pack is written too);
#   tsgnav-cached: the same with the pack filled by the warm-up runs (a second start);
#   cmark-gfm:     find DIR -name '*.md' -print0 | xargs -0 cmark-gfm -e table -e tasklist,
#                  parsing and rendering HTML (one process for all files).
# All run with a warm page cache (hyperfine warm-up runs); all write their whole output.
# Goals (issue 27): tsgnav within 2x the floor in wall time and 3x in CPU time (user + sys);
# peak RSS under 4x input.
#
# Environment:
#   TSGNAV_BIN         time this binary instead of building target/release/tsgnav here
#   TSGNAV_BEFORE_BIN  also time an earlier build (e.g. one built from an older commit) in the
#                      same hyperfine run, as tsgnav-before and tsgnav-before-cold
#   ROUNDS=N           after hyperfine, N alternating rounds of the floor, tsgnav (and the
#                      earlier build), one run of each per round, with wall time and the CPU
#                      time of the process tree (wait4's rusage); medians and their ratios.
#                      hyperfine times each command in a block of its own, so a load that
#                      drifts between blocks biases its ratios; rounds see the same load.
#   INSTRUCTIONS=1     also count the instructions each one executes, once, under valgrind's
#                      callgrind (Debian package valgrind; about a minute): the floor, tsgnav
#                      (and the earlier build) and their ratio. A count does not move with the
#                      host's load as times do, so it shows a change of a few per cent that
#                      times on a shared machine hide. It leaves out the kernel's work (system
#                      calls, page faults) and the cost of cache misses, which times include.
set -euo pipefail

cd "$(dirname "$0")/../.."
repo="$(pwd)"

guides="${1:-2000}"
runs="${2:-10}"
corpus="${TSGNAV_CORPUS:-../shared/corpus/aro-hcp}"

for tool in hyperfine python3 cargo; do
    command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool not found (see the header of $0)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time not found: apt-get install time" >&2; exit 2; }
# Checked before the minutes of timing, not after them.
[ -z "${INSTRUCTIONS:-}" ] || command -v valgrind >/dev/null 2>&1 || { echo "error: INSTRUCTIONS=1 needs valgrind: apt-get install valgrind" >&2; exit 2; }
[ -d "$corpus" ] || { echo "error: corpus not found at $corpus (set TSGNAV_CORPUS)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lib="${TSGNAV_LIBRARY:-$work/library}"

# --- generate the library ---------------------------------------------------------------
if [ ! -d "$lib" ]; then
    mkdir -p "$lib"
    mapfile -d '' sources < <(cd "$corpus" && find . -name '*.md' -type f -print0 | sort -z)
    [ "${#sources[@]}" -gt 0 ] || { echo "error: no .md files under $corpus" >&2; exit 2; }
    n=0
    copy=0
    while [ "$n" -lt "$guides" ]; do
        tag=$(printf '%02d' "$copy")
        for rel in "${sources[@]}"; do
            [ "$n" -lt "$guides" ] || break
            out="$lib/copy-$tag/${rel#./}"
            mkdir -p "$(dirname "$out")"
            # Retitle H1s outside code fences so each copy's guides have their own titles.
            awk -v tag="$tag" '
                /^[ \t]*(```|~~~)/ { fence = !fence }
                !fence && /^# / { print $0 " (variant " tag ")"; next }
                { print }
            ' "$corpus/$rel" >"$out"
            n=$((n + 1))
        done
        copy=$((copy + 1))
    done
fi
files=$(find "$lib" -name '*.md' -type f | wc -l)
input_bytes=$(find "$lib" -name '*.md' -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
echo "library: $files guides, $input_bytes bytes ($(awk -v b="$input_bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }'))"

# --- build ---------------------------------------------------------------------------------
if [ -n "${TSGNAV_BIN:-}" ]; then
    bin="$TSGNAV_BIN"
else
    cargo build --release --quiet --bin tsgnav
    bin="${CARGO_TARGET_DIR:-target}/release/tsgnav"
fi
before="${TSGNAV_BEFORE_BIN:-}"
[ -z "$before" ] || [ -x "$before" ] || { echo "error: TSGNAV_BEFORE_BIN=$before is not executable" >&2; exit 2; }
[ -x "$bin" ] || { echo "error: $bin was not built" >&2; exit 2; }

# The floor: a program of its own (only pulldown-cmark, at the version tsgnav locks), so
# building it takes seconds and nothing of tsgnav runs in it. Built with tsgnav's release
# profile (one codegen unit, fat LTO), so both sides get the same optimiser.
cmark_version=$(awk '/^name = "pulldown-cmark"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
mkdir -p "$work/floor"
cat >"$work/floor/Cargo.toml" <<TOML
[package]
name = "cmark-floor"
version = "0.0.0"
edition = "2021"
[[bin]]
name = "cmark-floor"
path = "$repo/tests/benches/cmark_floor.rs"
[dependencies]
pulldown-cmark = { version = "=$cmark_version", default-features = false }
[profile.release]
debug = "line-tables-only"
lto = "fat"
codegen-units = 1
TOML
(cd "$work/floor" && { cargo build --release --quiet --offline 2>/dev/null || cargo build --release --quiet; })
floor="$work/floor/target/release/cmark-floor"
echo "floor: $("$floor" "$lib")"

# tsgnav must accept the whole library before it is timed: hyperfine would stop on a
# failure, and a run that loaded fewer guides would time less work than the floor does.
if ! "$bin" tree --json "$lib" >"$work/tree.json" 2>"$work/tree.err"; then
    echo "error: tsgnav tree failed on the generated library:" >&2
    head -n 20 "$work/tree.err" >&2
    exit 1
fi
loaded=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["guides"]))' "$work/tree.json")
if [ "$loaded" != "$files" ]; then
    echo "error: tsgnav tree loaded $loaded of $files guides; not a like-for-like comparison" >&2
    exit 1
fi
echo "tsgnav tree --json: $loaded guides, $(wc -c <"$work/tree.json") bytes of JSON"

# A cache folder that cannot be created: every guide is parsed and nothing is written.
nocache() { echo "TSGNAV_CACHE_DIR=/dev/null/no-cache '$1' tree --json '$lib' > /dev/null"; }
cold() { echo "TSGNAV_CACHE_DIR='$work/$2' '$1' tree --json '$lib' > /dev/null"; }
tsgnav_cmd=$(nocache "$bin")
# name, preparation (hyperfine wants one per command or none), command.
names=() preps=() cmds=()
add() { names+=(-n "$1"); preps+=(--prepare "$2"); cmds+=("$3"); }
add cmark-floor true "'$floor' '$lib' > /dev/null"
add tsgnav true "$tsgnav_cmd"
add tsgnav-cold "rm -rf '$work/cold'" "$(cold "$bin" cold)"
add tsgnav-cached true "TSGNAV_CACHE_DIR='$work/cache' '$bin' tree --json '$lib' > /dev/null"
if [ -n "$before" ]; then
    add tsgnav-before true "$(nocache "$before")"
    add tsgnav-before-cold "rm -rf '$work/cold-before'" "$(cold "$before" cold-before)"
fi
if command -v cmark-gfm >/dev/null 2>&1; then
    add cmark-gfm true "find '$lib' -name '*.md' -print0 | xargs -0 cmark-gfm -e table -e tasklist > /dev/null"
fi

# --- time ----------------------------------------------------------------------------------
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
hyperfine --warmup 2 --runs "$runs" --export-json "$work/times.json" "${names[@]}" "${preps[@]}" "${cmds[@]}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# --- peak memory -------------------------------------------------------------------------
# GNU time's "Maximum resident set size" (KiB) of the process (tsgnav itself).
peak_kib() {
    /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
}
tsgnav_kib=$(peak_kib "$tsgnav_cmd")
before_kib=0
[ -z "$before" ] || before_kib=$(peak_kib "$(nocache "$before")")

# --- report --------------------------------------------------------------------------------
python3 - "$work/times.json" "$tsgnav_kib" "$before_kib" "$input_bytes" "$files" <<'PY'
import json, sys
times, t_kib, b_kib, input_bytes, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = {x["command"]: x for x in json.load(open(times))["results"]}
floor = r["cmark-floor"]
cpu = lambda x: x["user"] + x["system"]
print()
print(f"input: {files} guides, {input_bytes / 2**20:.1f} MiB")
print(f"{'':20} {'wall ms':>9} {'± ms':>6} {'CPU ms':>8} {'wall/floor':>11} {'CPU/floor':>10}")
for name in ["cmark-floor", "tsgnav", "tsgnav-cold", "tsgnav-cached", "tsgnav-before", "tsgnav-before-cold", "cmark-gfm"]:
    if name not in r:
        continue
    x = r[name]
    print(f"{name:20} {x['mean']*1000:9.1f} {x['stddev']*1000:6.1f} {cpu(x)*1000:8.1f} "
          f"{x['mean']/floor['mean']:10.2f}x {cpu(x)/cpu(floor):9.2f}x")
t = r["tsgnav"]
w, c = t["mean"] / floor["mean"], cpu(t) / cpu(floor)
print(f"goal wall <= 2x floor: {w:.2f}x {'met' if w <= 2 else 'MISSED'};  CPU <= 3x floor: {c:.2f}x {'met' if c <= 3 else 'MISSED'}")
print(f"peak RSS tsgnav {t_kib/1024:.1f} MiB = {t_kib*1024/input_bytes:.2f}x input (goal <= 4x: {'met' if t_kib*1024 <= 4*input_bytes else 'MISSED'})")
if b_kib:
    print(f"peak RSS tsgnav-before {b_kib/1024:.1f} MiB = {b_kib*1024/input_bytes:.2f}x input")
PY

# --- alternating rounds (ROUNDS=N) ---------------------------------------------------------
if [ -n "${ROUNDS:-}" ]; then
    echo
    echo "alternating rounds: $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))"
    alt=(cmark-floor "'$floor' '$lib' > /dev/null" tsgnav "$tsgnav_cmd")
    [ -z "$before" ] || alt+=(tsgnav-before "$(nocache "$before")")
    python3 - "$ROUNDS" "${alt[@]}" <<'PY'
import os, statistics, subprocess, sys, time
rounds, pairs = int(sys.argv[1]), sys.argv[2:]
cmds = list(zip(pairs[0::2], pairs[1::2]))
wall = {n: [] for n, _ in cmds}
cpu = {n: [] for n, _ in cmds}
for _ in range(rounds):
    for name, cmd in cmds:
        start = time.perf_counter()
        child = subprocess.Popen(["sh", "-c", cmd])
        _, status, use = os.wait4(child.pid, 0)
        wall[name].append(time.perf_counter() - start)
        cpu[name].append(use.ru_utime + use.ru_stime)
        if status != 0:
            sys.exit(f"error: {name} failed (status {status})")
med = lambda xs: statistics.median(xs) * 1000
f_wall, f_cpu = med(wall["cmark-floor"]), med(cpu["cmark-floor"])
print(f"{'':20} {'wall ms':>9} {'CPU ms':>8} {'wall/floor':>11} {'CPU/floor':>10}   (medians)")
for name, _ in cmds:
    w, c = med(wall[name]), med(cpu[name])
    print(f"{name:20} {w:9.1f} {c:8.1f} {w / f_wall:10.2f}x {c / f_cpu:9.2f}x")
w, c = med(wall["tsgnav"]) / f_wall, med(cpu["tsgnav"]) / f_cpu
print(f"goal wall <= 2x floor: {w:.2f}x {'met' if w <= 2 else 'MISSED'};  CPU <= 3x floor: {c:.2f}x {'met' if c <= 3 else 'MISSED'}")
PY
fi

# --- instructions (INSTRUCTIONS=1) -------------------------------------------------------
if [ -n "${INSTRUCTIONS:-}" ]; then
    echo
    echo "instructions (callgrind, user space only, one run each):"
    count() {
        # The "Collected : N" line callgrind prints at exit; the profile itself is not kept.
        sh -c "$1" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }' | tail -n 1
    }
    vg="valgrind --tool=callgrind --callgrind-out-file=/dev/null"
    f_ins=$(count "$vg '$floor' '$lib'")
    t_ins=$(count "TSGNAV_CACHE_DIR=/dev/null/no-cache $vg '$bin' tree --json '$lib'")
    b_ins=0
    [ -z "$before" ] || b_ins=$(count "TSGNAV_CACHE_DIR=/dev/null/no-cache $vg '$before' tree --json '$lib'")
    python3 - "$f_ins" "$t_ins" "$b_ins" <<'PY'
import sys
f, t, b = (int(x or 0) for x in sys.argv[1:])
if not f or not t:
    sys.exit("error: callgrind printed no instruction count")
print(f"{'cmark-floor':20} {f / 1e6:10.1f} M   1.00x")
print(f"{'tsgnav':20} {t / 1e6:10.1f} M   {t / f:.2f}x")
if b:
    print(f"{'tsgnav-before':20} {b / 1e6:10.1f} M   {b / f:.2f}x   (tsgnav {100 * (t - b) / b:+.1f}%)")
PY
fi
