#!/usr/bin/env bash
# Benchmark: `tsgnav tree --json` against cmark-gfm on the same 2,000 guides.
#
# Usage: tests/scripts/bench-vs-cmark.sh [GUIDES] [RUNS]      (defaults: 2000 guides, 10 runs)
#
# Installs nothing. Needs, besides Rust:
#   cmark-gfm, hyperfine   Debian packages: apt-get install cmark-gfm hyperfine
#   /usr/bin/time          Debian package `time` (GNU time, for -v peak RSS)
#   python3                to read hyperfine's JSON export
# The library is generated from the ARO-HCP corpus (../shared/corpus/aro-hcp beside the
# checkout, or TSGNAV_CORPUS): whole copies of the corpus tree, each in its own folder
# (copy-NN/…, so relative links between guides still resolve inside a copy) with every H1
# retitled "… (variant NN)", until GUIDES files exist.
#
# What is compared, and why it is fair:
#   tsgnav:    TSGNAV_CACHE_DIR=<none> tsgnav tree --json DIR > /dev/null
#              with no usable parse cache (every guide parsed, as on a first start);
#   tsgnav-cached: the same with a parse cache filled by the warm-up runs (a second start);
#              one process: walks DIR, reads each file, parses it (pulldown-cmark + the TSG
#              model: roles, probes, edges, links), resolves cross-guide links, writes JSON.
#   cmark-gfm: find DIR -name '*.md' -print0 | xargs -0 cmark-gfm -e table -e tasklist > /dev/null
#              the same walk and the same bytes, parsed as GFM (tables, task lists) and
#              rendered to HTML. xargs passes as many files per process as the argument limit
#              allows (one process for 2,000 files here), so process start-up does not count
#              against cmark-gfm; it parses the files as one concatenated document, which is
#              the cheapest way to make it read them all, so the ratio is conservative.
# Both run with a warm page cache (hyperfine warm-up runs); both write their whole output.
# Goals: tsgnav no slower than cmark-gfm, without the cache; tsgnav peak RSS under 10x input size.
#
# Environment:
#   TSGNAV_BIN         time this binary instead of building target/release/tsgnav here
#   TSGNAV_BEFORE_BIN  also time an earlier build (e.g. one built from an older commit) in the
#                      same hyperfine run, without the cache, as tsgnav-before
set -euo pipefail

cd "$(dirname "$0")/../.."

guides="${1:-2000}"
runs="${2:-10}"
corpus="${TSGNAV_CORPUS:-../shared/corpus/aro-hcp}"

for tool in cmark-gfm hyperfine python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool not found (see the header of $0)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time not found: apt-get install time" >&2; exit 2; }
[ -d "$corpus" ] || { echo "error: corpus not found at $corpus (set TSGNAV_CORPUS)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lib="$work/library"
mkdir -p "$lib"

# --- generate the library ---------------------------------------------------------------
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

# tsgnav must accept the whole library before it is timed: hyperfine would stop on a
# failure, and a run that loaded fewer guides would time less work than cmark-gfm does.
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
tsgnav_cmd="TSGNAV_CACHE_DIR=/dev/null/no-cache '$bin' tree --json '$lib' > /dev/null"
tsgnav_cached_cmd="TSGNAV_CACHE_DIR='$work/cache' '$bin' tree --json '$lib' > /dev/null"
cmark_cmd="find '$lib' -name '*.md' -print0 | xargs -0 cmark-gfm -e table -e tasklist > /dev/null"

# --- time ----------------------------------------------------------------------------------
before_args=()
if [ -n "$before" ]; then
    before_args=(-n tsgnav-before "TSGNAV_CACHE_DIR=/dev/null/no-cache '$before' tree --json '$lib' > /dev/null")
fi
hyperfine --warmup 2 --runs "$runs" --export-json "$work/times.json" \
    "${before_args[@]}" \
    -n tsgnav "$tsgnav_cmd" \
    -n tsgnav-cached "$tsgnav_cached_cmd" \
    -n cmark-gfm "$cmark_cmd"

# --- peak memory -------------------------------------------------------------------------
# GNU time's "Maximum resident set size" (KiB) is the largest of the process tree's members,
# i.e. tsgnav itself, or the cmark-gfm process (not find/xargs/sh, which are smaller).
peak_kib() {
    /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
}
tsgnav_kib=$(peak_kib "$tsgnav_cmd")
cmark_kib=$(peak_kib "$cmark_cmd")

# --- report --------------------------------------------------------------------------------
python3 - "$work/times.json" "$tsgnav_kib" "$cmark_kib" "$input_bytes" "$files" <<'PY'
import json, sys
times, t_kib, c_kib, input_bytes, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = {x["command"]: x for x in json.load(open(times))["results"]}
t, tc, c = r["tsgnav"], r["tsgnav-cached"], r["cmark-gfm"]
ratio = t["mean"] / c["mean"]
mib = 1024 * 1024
input_mib = input_bytes / mib
print()
print(f"input: {files} guides, {input_mib:.1f} MiB")
print(f"time   tsgnav    {t['mean']*1000:8.1f} ms ± {t['stddev']*1000:.1f}   (min {t['min']*1000:.1f})")
print(f"time   tsgnav (cached) {tc['mean']*1000:8.1f} ms ± {tc['stddev']*1000:.1f}   (min {tc['min']*1000:.1f})")
print(f"time   cmark-gfm {c['mean']*1000:8.1f} ms ± {c['stddev']*1000:.1f}   (min {c['min']*1000:.1f})")
print(f"time ratio tsgnav (cached)/cmark-gfm: {tc['mean'] / c['mean']:.2f}x")
if "tsgnav-before" in r:
    b = r["tsgnav-before"]
    print(f"time   tsgnav-before {b['mean']*1000:8.1f} ms ± {b['stddev']*1000:.1f}   (min {b['min']*1000:.1f})")
    print(f"time ratio tsgnav-before/cmark-gfm: {b['mean'] / c['mean']:.2f}x   tsgnav/tsgnav-before: {t['mean'] / b['mean']:.2f}x")
print(f"time ratio tsgnav/cmark-gfm: {ratio:.2f}x   goal <= 1x (no slower): {'met' if ratio <= 1 else 'MISSED'}")
print(f"peak RSS tsgnav    {t_kib/1024:8.1f} MiB = {t_kib*1024/input_bytes:.2f}x input   goal < 10x: {'met' if t_kib*1024 < 10*input_bytes else 'MISSED'}")
print(f"peak RSS cmark-gfm {c_kib/1024:8.1f} MiB = {c_kib*1024/input_bytes:.2f}x input")
print(f"memory ratio tsgnav/cmark-gfm: {t_kib/c_kib:.2f}x")
PY
