#!/usr/bin/env bash
# Measurement: tsgnav's own CPU time on top of its probes in a fleet run, and its peak RSS.
#
# Usage: tests/scripts/jail-cost.sh [-b BEFORE] [-a AFTER] [-r RUNS] [COUNT...]
#        (defaults: AFTER = target/release/tsgnav built here, no BEFORE, 1 run, 60 and 300)
#
# Each run: `tsgnav sim serve --scenario maestro --clusters COUNT` (always the AFTER binary, started fresh per
# run so every run starts from the same state), then
#   tsgnav run tests/fixtures/waves/pause-agent.md#strategy-scale-the-agent-down
#       --contexts 'mc-*' --waves 1,5%,20%,rest --parallel 32 --write
# (prior state captured, `kubectl scale` in the jail, the validation probe in the jail, per
# context; nobody is seeded to fail, so every wave runs). With -b, the BEFORE binary runs the
# same waves right after the AFTER one, alternated run by run, so both see the same machine.
#
# How tsgnav's own time is separated from its probes': the run is recorded with `perf record`
# (cpu-clock, ~1 kHz, children followed) and the samples are summed per command name. tsgnav's
# own names: `tsgnav`, its threads (`tokio-*`, `tsgnav-*`), `exe` (the jail's launcher, which
# tsgnav starts as /proc/self/exe) and `time`; a second line splits them into the main thread
# (and its children before their exec), tokio's workers (none since a wave run uses a
# current-thread runtime: its main thread does that work) and the launchers. Everything else
# (bash, kubectl, test, …) is the probes. A forked child of tsgnav before its exec keeps the forking thread's name, so the old
# fork path's cost counts as tsgnav's, as it should. Sampling: a few ms of error per second.
# Also printed: user+sys of the whole tree from /usr/bin/time (so the split can be checked
# against a total), and peak RSS: tsgnav's own VmHWM (read from /proc every 0.1 s; it only
# grows, the last read is kept) and the largest process of the tree (often kubectl).
#
# Needs perf, /usr/bin/time and kubectl. Writes only in a temporary folder (and, with KEEP=DIR
# set, each run's perf.data in DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."

before="" after="" runs=1
while getopts "b:a:r:" o; do
    case "$o" in
        b) before="$OPTARG" ;;
        a) after="$OPTARG" ;;
        r) runs="$OPTARG" ;;
        *) echo "usage: $0 [-b BEFORE] [-a AFTER] [-r RUNS] [COUNT...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(60 300)
for tool in perf /usr/bin/time kubectl; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found" >&2; exit 2; }
done
if [ -z "$after" ]; then
    cargo build --release --quiet --bin tsgnav
    after="${CARGO_TARGET_DIR:-target}/release/tsgnav"
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
after="$(abs "$after")"
[ -z "$before" ] || before="$(abs "$before")"

work="$(mktemp -d)"
sim_pid=""
trap '[ -z "$sim_pid" ] || kill -INT "$sim_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
printf '' > "$work/config.toml"

start_sim() {
    local n="$1"
    rm -f "$work/kc" "$work/sim.out"
    "$after" sim serve --scenario maestro --clusters "$n" --kubeconfig "$work/kc" > "$work/sim.out" 2>&1 &
    sim_pid=$!
    for _ in $(seq 600); do
        grep -q "press Ctrl-C" "$work/sim.out" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "error: the simulator did not start:" >&2; cat "$work/sim.out" >&2; exit 1
}

stop_sim() {
    kill -INT "$sim_pid" 2>/dev/null || true
    wait "$sim_pid" 2>/dev/null || true
    sim_pid=""
}

# One waves run of binary $1 over $2 contexts; prints one line of figures.
measure() {
    local bin="$1" n="$2" label="$3"
    start_sim "$n"
    local state="$work/state-$label-$n"
    rm -rf "$state" "$work/home"; mkdir -p "$state" "$work/home"
    rm -f "$work/pid" "$work/hwm"
    (
        while [ ! -s "$work/pid" ]; do sleep 0.01; done
        pid="$(cat "$work/pid")"
        while hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" && [ -n "$hwm" ]; do
            echo "$hwm" > "$work/hwm"
            sleep 0.1
        done
    ) &
    local sampler=$!
    local rc=0
    TSGNAV_CONFIG="$work/config.toml" TSGNAV_STATE_DIR="$state" HOME="$work/home" \
        perf record -q ${CALLGRAPH:+-g} -F 997 -e cpu-clock -o "$work/perf.data" -- \
        /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
        bash -c 'echo $$ > "$0"; exec "$@"' "$work/pid" "$bin" run \
        "tests/fixtures/waves/pause-agent.md#strategy-scale-the-agent-down" \
        --contexts 'mc-*' --kubeconfig "$work/kc" --waves 1,5%,20%,rest --parallel 32 \
        --write --confirm-target "mc-* · $n contexts" \
        > "$work/run.out" 2> "$work/run.err" || rc=$?
    wait "$sampler" 2>/dev/null || true
    stop_sim
    # KEEP=DIR keeps each run's perf.data there, to look into (perf report --sort comm,sym);
    # CALLGRAPH=1 records call graphs too (perf record -g).
    [ -z "${KEEP:-}" ] || cp "$work/perf.data" "$KEEP/perf-$label-$n.data"
    if [ "$rc" -ne 0 ]; then
        echo "error: $label over $n contexts ended with $rc:" >&2
        tail -20 "$work/run.err" >&2
        exit 1
    fi
    # The run's own summary (getrusage: SELF, and CHILDREN, which counts a forked child's
    # work before its exec as the probes').
    local says
    says="$(grep -o "tsgnav's own CPU.*" "$work/run.err" || echo "no summary line")"
    perf report -i "$work/perf.data" --sort comm --stdio -F comm,period 2>/dev/null \
        | awk -v label="$label" -v n="$n" -v t="$(cat "$work/time")" -v hwm="$(cat "$work/hwm" 2>/dev/null || echo 0)" -v says="$says" '
            /^#/ || NF < 2 { next }
            {
                comm = $1; ns = $2
                if (comm == "tsgnav" || comm == "exe" || comm == "time" || comm ~ /^tokio-/ || comm ~ /^tsgnav-/) own += ns
                else probes += ns
                if (comm == "exe") launcher += ns
                else if (comm ~ /^tokio-/) workers += ns
                else if (comm == "tsgnav" || comm ~ /^tsgnav-/) main += ns
                if (!(comm in seen)) { seen[comm] = 1; order[++k] = comm }
                by[comm] += ns
            }
            END {
                split(t, f, " ")
                top = ""
                for (i = 1; i <= k; i++)
                    for (j = i + 1; j <= k; j++)
                        if (by[order[j]] > by[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
                for (i = 1; i <= k && i <= 6; i++) top = top sprintf(" %s=%.2fs", order[i], by[order[i]] / 1e9)
                printf "%-6s %4d contexts: tsgnav own %6.2f s, probes %6.2f s (perf); tree user+sys %6.2f s, wall %6.1f s; peak RSS tsgnav %5.1f MiB, largest in tree %5.1f MiB;%s\n",
                    label, n, own / 1e9, probes / 1e9, f[2] + f[3], f[1], hwm / 1024, f[4] / 1024, top
                printf "       tsgnav own, split: main thread %.2f s, tokio workers %.2f s, jail launchers %.2f s\n", main / 1e9, workers / 1e9, launcher / 1e9
                printf "       the run itself says: %s\n", says
            }'
}

echo "tsgnav run --waves 1,5%,20%,rest --parallel 32 on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${counts[@]}"; do
    for r in $(seq "$runs"); do
        measure "$after" "$n" "after"
        [ -z "$before" ] || measure "$before" "$n" "before"
    done
done
