#!/usr/bin/env bash
# Runs the README's two set-up commands, exactly as written, in a fresh clone of this
# repository in a new directory:
#
#   cargo run --release -- demo     (in a tmux terminal: the navigator must reach the alert's
#                                    step on the simulated cluster, then quit cleanly)
#   cargo test
#
# The clone gets its own target directory, so nothing built in the checkout helps it. The
# ARO-HCP corpus the tests read sits beside the checkout (`../shared`); the new directory gets
# a link to it. Exit status: the first failing command's.
#
# Usage: tests/scripts/fresh-clone.sh [REPO]   (default: the repository this script is in)
set -euo pipefail

repo=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tsgnav-fresh.XXXXXX")
session="tsgnav-fresh-$$"
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

log() { printf '\n==> %s\n' "$*"; }

log "git clone $repo into a new directory"
git clone --quiet "$repo" "$work/tsgnav"
if [ -d "$repo/../shared" ]; then
    ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
fi
cd "$work/tsgnav"
export CARGO_TARGET_DIR="$work/tsgnav/target"

# --- 1. the run command, in a real terminal ----------------------------------------------
log "cargo run --release -- demo (in tmux)"
state="$work/state"
mkdir -p "$state"
# A tmux server that was already running would start the command with its own environment,
# so the command is a script that sets what cargo needs first.
{
    for v in PATH HOME CARGO_HOME RUSTUP_HOME; do
        if [ -n "${!v:-}" ]; then printf 'export %s=%q\n' "$v" "${!v}"; fi
    done
    printf 'cd %q\n' "$work/tsgnav"
    printf 'TSGNAV_STATE_DIR=%q TSGNAV_CONFIG=/dev/null cargo run --release -- demo\n' "$state"
    printf 'echo "DEMO-EXIT=$?"\nsleep 600\n'
} >"$work/demo.sh"
tmux new-session -d -x 120 -y 40 -s "$session" "bash '$work/demo.sh'"
screen() { tmux capture-pane -p -t "$session" 2>/dev/null || true; }
# The release build comes first: allow up to 30 minutes for it and the first screen.
deadline=$((SECONDS + 1800))
until screen | grep -q "routes here"; do
    if screen | grep -q "DEMO-EXIT="; then
        screen
        echo "error: the demo exited before showing the alert's step" >&2
        exit 1
    fi
    if [ "$SECONDS" -gt "$deadline" ]; then
        screen
        echo "error: the demo did not reach the alert's step within 30 minutes" >&2
        exit 1
    fi
    sleep 2
done
# Esc clears the start-up message; the status line then shows the demo-data label.
tmux send-keys -t "$session" Escape
deadline=$((SECONDS + 20))
until screen | grep -q "DEMO DATA"; do
    if [ "$SECONDS" -gt "$deadline" ]; then
        screen
        echo "error: the demo does not label its data" >&2
        exit 1
    fi
    sleep 1
done
echo "the demo landed on the alert's step, labelled as demo data"
# q warns that the evidence is not exported; the second q quits.
tmux send-keys -t "$session" q
sleep 1
tmux send-keys -t "$session" q
deadline=$((SECONDS + 60))
until screen | grep -q "DEMO-EXIT="; do
    if [ "$SECONDS" -gt "$deadline" ]; then
        screen
        echo "error: the demo did not quit on q q" >&2
        exit 1
    fi
    sleep 1
done
screen | grep -q "DEMO-EXIT=0" || { screen; echo "error: the demo exited with an error" >&2; exit 1; }
echo "the demo quit cleanly (exit 0)"

# --- 2. the test command ------------------------------------------------------------------
log "cargo test (in the fresh clone)"
set +e
mkdir -p "$repo/target"
cargo test 2>&1 | tee "$repo/target/fresh-clone-test.log"
status=${PIPESTATUS[0]}
set -e
exit "$status"
