#!/usr/bin/env bash
# Run tsgnav's cargo-fuzz targets (crate in tests/fuzz) for a bounded time each.
#
# Usage: tests/scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  default 180
#   TARGET              default: every target `cargo fuzz list` reports (parse_guide, classify)
#   FUZZ_FLAGS          extra libFuzzer flags, e.g. FUZZ_FLAGS=-max_len=1024 for many small
#                       inputs (the default max_len is the largest seed, ~45 KB, which is slow)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a C++ compiler for libFuzzer. Only a stable
# toolchain exists here, so nightly-only flags (-Zsanitizer=address) are enabled with
# RUSTC_BOOTSTRAP=1. Seeds: the ARO-HCP corpus guides (../shared/corpus/aro-hcp beside the
# checkout, or TSGNAV_CORPUS) and the bundled tsg/ guides; for `classify`, the shell blocks
# fenced in them. Working corpora and crash artifacts go to tests/fuzz/{corpus,artifacts}
# (gitignored). A crash makes this script exit 1 (a build failure exits 2): copy the input
# it names into tests/fixtures/fuzz-crashes/ and add a regression test.
set -euo pipefail

cd "$(dirname "$0")/../.."

secs="${1:-180}"
shift || true

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "error: cargo-fuzz is not installed: run 'cargo install cargo-fuzz'" >&2
    exit 2
fi

fuzz_dir=tests/fuzz
export RUSTC_BOOTSTRAP=1

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list --fuzz-dir "$fuzz_dir")
fi

# Seed sources: markdown guides that exist on this machine.
seed_roots=()
corpus="${TSGNAV_CORPUS:-../shared/corpus/aro-hcp}"
[ -d "$corpus" ] && seed_roots+=("$corpus")
[ -d tsg ] && seed_roots+=(tsg)

seed() {
    local target="$1" dir="$fuzz_dir/corpus/$1"
    mkdir -p "$dir"
    # Seed only once; libFuzzer grows the corpus from there.
    [ -n "$(ls -A "$dir")" ] && return 0
    [ "${#seed_roots[@]}" -gt 0 ] || return 0
    local n=0 f
    while IFS= read -r -d '' f; do
        n=$((n + 1))
        if [ "$target" = classify ]; then
            # One seed file per fenced shell block: the lines between ```bash/```sh and ```.
            awk -v out="$dir/md$n-" '
                /^[ \t]*```[ \t]*(bash|sh|shell|console)?[ \t]*(\{.*\})?[ \t]*$/ && !inb { inb = 1; k++; next }
                /^[ \t]*```[ \t]*$/ && inb { inb = 0; close(out k); next }
                inb { print > (out k) }
            ' "$f"
        else
            cp "$f" "$dir/md$n.md"
        fi
    done < <(find "${seed_roots[@]}" -name '*.md' -type f -print0)
}

# Build all targets first (one build), so a compile error is told apart from a crash. The runs below
# start the built binaries directly (as `cargo fuzz run` does after building), so edits to
# the sources during a run do not trigger a rebuild mid-way.
if ! cargo fuzz build --fuzz-dir "$fuzz_dir"; then
    echo "error: building the fuzz targets failed (see above)" >&2
    exit 2
fi
host=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="$fuzz_dir/target/$host/release"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_odr_violation=0}"

status=0
for target in "${targets[@]}"; do
    seed "$target"
    mkdir -p "$fuzz_dir/artifacts/$target"
    echo "==> fuzzing $target for ${secs}s"
    # -rss_limit_mb bounds memory per input; -timeout flags any single input over 10 s as a hang.
    # FUZZ_FLAGS is split into words on purpose (several flags).
    # shellcheck disable=SC2086
    if ! "$bin_dir/$target" "$fuzz_dir/corpus/$target" \
        -artifact_prefix="$fuzz_dir/artifacts/$target/" \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        ${FUZZ_FLAGS:-}; then
        echo "!! $target found a failing input: see $fuzz_dir/artifacts/$target/" >&2
        status=1
    fi
done
exit "$status"
