#!/usr/bin/env bash
# Measurement: how long the navigator takes to put its first frame on a real terminal (tmux),
# on a library of 2,000 guides, with a cold parse cache and with a warm one.
#
# Usage: tests/scripts/first-frame-tmux.sh [GUIDES] [RUNS] [BIN...]
#        (defaults: 2000 guides, 5 runs each, target/release/tsgnav built here). With several
#        binaries (a before and an after build), their runs alternate in one invocation, each
#        with its own cache folder, so the machine's load falls on both alike.
#        TSGNAV_FF_LIBRARY=DIR reuses a library made earlier (GUIDES must match its count).
#
# Needs tmux and the ARO-HCP corpus (../shared/corpus/aro-hcp beside the checkout, or
# TSGNAV_CORPUS); the library is generated as in bench-vs-cmark.sh (copies of the corpus tree).
# Each run: the shell in a 140x45 tmux pane writes the clock (ns) and starts tsgnav on the
# library; this script polls the pane (capture-pane) until the library header
# (`tsgnav · N guides`) is on screen and reads the clock again. So a run's time includes process
# start, terminal set-up and the first draw, plus up to one poll of lag (2 ms until the first
# frame, 10 ms after it). "cold" empties the
# cache folder before each run; "warm" runs after a start that filled it (that start waits
# until the parse-cache pack is on disk before it quits). Also printed: how long until every
# guide is in (the `loading N/M` count is gone), the navigator's CPU time (all threads) by
# then, and its peak RSS (VmHWM) then, against the library's size on disk.
set -euo pipefail
cd "$(dirname "$0")/../.."

guides="${1:-2000}"
runs="${2:-5}"
shift $(( $# < 2 ? $# : 2 ))
bins=("$@")
corpus="${TSGNAV_CORPUS:-../shared/corpus/aro-hcp}"
command -v tmux >/dev/null || { echo "error: tmux not found" >&2; exit 2; }
[ -d "$corpus" ] || { echo "error: corpus not found at $corpus (set TSGNAV_CORPUS)" >&2; exit 2; }
if [ "${#bins[@]}" -eq 0 ]; then
    cargo build --release --quiet --bin tsgnav
    bins=("${CARGO_TARGET_DIR:-target}/release/tsgnav")
fi
for i in "${!bins[@]}"; do
    b="${bins[$i]}"
    bins[$i]="$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
done

work="$(mktemp -d)"
session="tsgnav-ff-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
lib="${TSGNAV_FF_LIBRARY:-$work/library}"
if [ -z "${TSGNAV_FF_LIBRARY:-}" ]; then
    mapfile -d '' sources < <(cd "$corpus" && find . -name '*.md' -type f -print0 | sort -z)
    n=0
    copy=0
    while [ "$n" -lt "$guides" ]; do
        for rel in "${sources[@]}"; do
            [ "$n" -lt "$guides" ] || break
            out="$lib/copy-$(printf '%02d' "$copy")/${rel#./}"
            mkdir -p "$(dirname "$out")"
            cp "$corpus/$rel" "$out"
            n=$((n + 1))
        done
        copy=$((copy + 1))
    done
fi
bytes="$(find "$lib" -name '*.md' -printf '%s\n' | awk '{s += $1} END {print s}')"
echo "library: $(find "$lib" -name '*.md' | wc -l) guides, $((bytes / 1048576)) MiB; binaries: ${bins[*]}"

touch "$work/config.toml"
tmux new-session -d -x 140 -y 45 -s "$session" "bash --norc --noprofile"
tmux send-keys -t "$session" -l "export TSGNAV_CONFIG='$work/config.toml' TSGNAV_STATE_DIR='$work/state' PS1='READY\$ '; clear"
tmux send-keys -t "$session" Enter
sleep 0.5

now() { date +%s%N; }
# One start of binary $1 with cache folder $2: prints "first_frame_ms all_in_ms peak_rss_kib
# cpu_ms".
# With $3 = fill, waits for the cache pack to be written before quitting.
one() {
    local bin="$1" cache="$2" fill="${3:-}"
    tmux send-keys -t "$session" -l "clear; date +%s%N > '$work/t0'; TSGNAV_CACHE_DIR='$cache' '$bin' '$lib' --no-evidence"
    tmux send-keys -t "$session" Enter
    local first="" all=""
    while :; do
        local screen
        screen="$(tmux capture-pane -p -t "$session")"
        if [ -z "$first" ] && grep -q '^tsgnav · ' <<<"$screen"; then first="$(now)"; fi
        if [ -n "$first" ] && grep -q "^tsgnav · $guides guides" <<<"$screen" && ! grep -q 'loading' <<<"$screen"; then
            all="$(now)"
            break
        fi
        # Until the first frame the pane is read every 2 ms; then every 10 ms (to the wait for
        # every guide, up to 10 ms of lag): reading it every 2 ms throughout took about a fifth
        # of two cores from the navigator while it parsed (tmux, grep and the shell), and
        # showed a cold start at 20,000 guides half a second slower than it is.
        if [ -z "$first" ]; then sleep 0.002; else sleep 0.01; fi
    done
    local t0 pid rss cpu
    t0="$(cat "$work/t0")"
    pid="$(tmux list-panes -t "$session" -F '#{pane_pid}' | head -1)"
    pid="$(pgrep -P "$pid" | head -1)"
    rss="$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
    # CPU time (user + sys, every thread) until every guide is in, in ms: on a loaded machine
    # the wall times mostly measure the wait for a core, this does not.
    cpu="$(awk -v hz="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / hz)}' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    if [ -n "$fill" ]; then
        until ls "$cache"/*.pack >/dev/null 2>&1; do sleep 0.1; done
    fi
    tmux send-keys -t "$session" q
    # Wait for the shell prompt to come back (the navigator quit).
    until tmux capture-pane -p -t "$session" | grep -q '^READY\$ *$'; do sleep 0.01; done
    echo "$(( (first - t0) / 1000000 )) $(( (all - t0) / 1000000 )) ${rss:-0} ${cpu:-0}"
}

report() {
    local label="$1"; shift
    python3 - "$label" "$bytes" "$@" <<'PY'
import statistics, sys
label, size, vals = sys.argv[1], int(sys.argv[2]), [tuple(map(int, v.split())) for v in sys.argv[3:]]
ff = [v[0] for v in vals]; al = [v[1] for v in vals]; rss = [v[2] for v in vals]; cpu = [v[3] for v in vals]
print(f"{label} first frame: median {statistics.median(ff)} ms (min {min(ff)}, max {max(ff)}); "
      f"every guide in: median {statistics.median(al)} ms (min {min(al)}, max {max(al)}), "
      f"CPU then {statistics.median(cpu)} ms; "
      f"peak RSS: max {max(rss) // 1024} MiB ({max(rss) * 1024 / size:.2f}x the input)  runs={len(vals)}")
PY
}

declare -A results
for _ in $(seq "$runs"); do
    for i in "${!bins[@]}"; do
        rm -rf "$work/cache-$i"
        results[cold-$i]+="$(one "${bins[$i]}" "$work/cache-$i")"$'\n'
    done
done
for i in "${!bins[@]}"; do
    rm -rf "$work/cache-$i"
    one "${bins[$i]}" "$work/cache-$i" fill >/dev/null   # fills the cache
done
for _ in $(seq "$runs"); do
    for i in "${!bins[@]}"; do
        results[warm-$i]+="$(one "${bins[$i]}" "$work/cache-$i")"$'\n'
    done
done
for i in "${!bins[@]}"; do
    echo "${bins[$i]}:"
    for kind in cold warm; do
        mapfile -t vals < <(printf '%s' "${results[$kind-$i]}")
        report "  $kind" "${vals[@]}"
    done
done
