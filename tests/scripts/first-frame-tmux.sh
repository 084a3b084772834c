#!/usr/bin/env bash
# Measurement: how long the navigator takes to put its first frame on a real terminal (tmux),
# on a library of 2,000 guides, with a cold parse cache and with a warm one.
#
# Usage: tests/scripts/first-frame-tmux.sh [GUIDES] [RUNS] [BIN]
#        (defaults: 2000 guides, 5 runs each, target/release/tsgnav built here)
#
# Needs tmux and the ARO-HCP corpus (../shared/corpus/aro-hcp beside the checkout, or
# TSGNAV_CORPUS); the library is generated as in bench-vs-cmark.sh (copies of the corpus tree).
# Each run: the shell in a 140x45 tmux pane writes the clock (ns) and starts tsgnav on the
# library; this script polls the pane (capture-pane, ~every 2 ms) until the library header
# (`tsgnav · N guides`) is on screen and reads the clock again. So a run's time includes process
# start, terminal set-up and the first draw, plus up to one poll of lag. "cold" empties the
# cache folder before each run; "warm" runs after a start that filled it. Also printed: how
# long until every guide is in (the `loading N/M` count is gone).
set -euo pipefail
cd "$(dirname "$0")/../.."

guides="${1:-2000}"
runs="${2:-5}"
bin="${3:-}"
corpus="${TSGNAV_CORPUS:-../shared/corpus/aro-hcp}"
command -v tmux >/dev/null || { echo "error: tmux not found" >&2; exit 2; }
[ -d "$corpus" ] || { echo "error: corpus not found at $corpus (set TSGNAV_CORPUS)" >&2; exit 2; }
if [ -z "$bin" ]; then
    cargo build --release --quiet --bin tsgnav
    bin="${CARGO_TARGET_DIR:-target}/release/tsgnav"
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

work="$(mktemp -d)"
session="tsgnav-ff-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
lib="$work/library"
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
echo "library: $(find "$lib" -name '*.md' | wc -l) guides; binary: $bin"

touch "$work/config.toml"
tmux new-session -d -x 140 -y 45 -s "$session" "bash --norc --noprofile"
tmux send-keys -t "$session" -l "export TSGNAV_CONFIG='$work/config.toml' TSGNAV_STATE_DIR='$work/state' TSGNAV_CACHE_DIR='$work/cache' PS1='READY\$ '; clear"
tmux send-keys -t "$session" Enter
sleep 0.5

now() { date +%s%N; }
# One start: prints "first_frame_ms all_in_ms".
one() {
    tmux send-keys -t "$session" -l "clear; date +%s%N > '$work/t0'; '$bin' '$lib' --no-evidence"
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
        sleep 0.002
    done
    local t0
    t0="$(cat "$work/t0")"
    tmux send-keys -t "$session" q
    # Wait for the shell prompt to come back (the navigator quit).
    until tmux capture-pane -p -t "$session" | grep -q '^READY\$ *$'; do sleep 0.01; done
    echo "$(( (first - t0) / 1000000 )) $(( (all - t0) / 1000000 ))"
}

report() {
    local label="$1"; shift
    python3 - "$label" "$@" <<'PY'
import statistics, sys
label, vals = sys.argv[1], [tuple(map(int, v.split())) for v in sys.argv[2:]]
ff = [v[0] for v in vals]; al = [v[1] for v in vals]
print(f"{label:5} first frame: median {statistics.median(ff)} ms (min {min(ff)}, max {max(ff)}); "
      f"every guide in: median {statistics.median(al)} ms (min {min(al)}, max {max(al)})  runs={len(vals)}")
PY
}

cold=()
for _ in $(seq "$runs"); do
    rm -rf "$work/cache"
    cold+=("$(one)")
done
one >/dev/null   # fills the cache
warm=()
for _ in $(seq "$runs"); do warm+=("$(one)"); done
report cold "${cold[@]}"
report warm "${warm[@]}"
