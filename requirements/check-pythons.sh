#!/usr/bin/env bash
# Check that every lock in requirements/ installs from PyPI alone for Python 3.11, 3.12 and 3.13,
# with this machine's pip configuration ignored (PIP_CONFIG_FILE=/dev/null, no find-links,
# no extra indexes, no constraints). Needs network access to PyPI; downloads about 1 GB.
#
# For each lock and version:
#   * `pip download --only-binary=:all: --python-version X.Y --require-hashes -r LOCK`: every pin
#     has a wheel for X.Y on this platform, with a hash in the lock. pip evaluates the lock's
#     environment markers for the interpreter running it, not for X.Y;
#   * so where pythonX.Y itself is on PATH (or PYTHON_X_Y names it), the same download is
#     repeated by that interpreter, which evaluates the markers for X.Y;
#   * where UV names a uv binary (make check-locks provides one), every lock is also resolved
#     wheels-only for X.Y on Linux (x86-64, ARM64), macOS (ARM64, Intel) and Windows (x86-64),
#     which evaluates the markers for each platform. Known gap: Intel Macs have no wheels of
#     jaxlib, ray and open_spiel, so there only the run lock installs (reported, not failed).
# Usage: requirements/check-pythons.sh [LOCK ...]   (default: run test research)
set -euo pipefail
cd "$(dirname "$0")"
locks=("$@")
[ ${#locks[@]} -gt 0 ] || locks=(run test research)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pypi() {
    env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_NO_INDEX -u PIP_CONSTRAINT \
        PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}
failed=0
check() {  # check LABEL LOCK PYTHON [PIP ARGS...]
    local label=$1 lock=$2 python=$3
    shift 3
    local dir="$scratch/dl"
    rm -rf "$dir"
    if pypi "$python" -m pip download --quiet --only-binary=:all: --require-hashes \
        -r "$lock.txt" -d "$dir" "$@" >"$scratch/log" 2>&1; then
        echo "ok    $lock.txt  $label  ($(find "$dir" -type f | wc -l) wheels)"
    else
        echo "FAIL  $lock.txt  $label"
        tail -5 "$scratch/log" | sed 's/^/      /'
        failed=1
    fi
}
for lock in "${locks[@]}"; do
    for version in 3.11 3.12 3.13; do
        check "--python-version $version" "$lock" python3 --python-version "$version"
        var="PYTHON_${version/./_}"
        native=${!var:-$(command -v "python$version" 2>/dev/null || true)}
        if [ -n "$native" ] && "$native" -c 'import sys' 2>/dev/null; then
            check "python$version itself ($native)" "$lock" "$native"
        fi
    done
done
if [ -n "${UV:-}" ]; then
    for lock in "${locks[@]}"; do
        for platform in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu aarch64-apple-darwin \
            x86_64-apple-darwin x86_64-pc-windows-msvc; do
            for version in 3.11 3.12 3.13; do
                if env -u PIP_FIND_LINKS "$UV" pip compile --quiet --no-config \
                    --index-url https://pypi.org/simple --python-platform "$platform" \
                    --python-version "$version" --only-binary :all: --no-deps "$lock.txt" \
                    >/dev/null 2>"$scratch/log"; then
                    echo "ok    $lock.txt  $version on $platform (wheels only)"
                elif [ "$platform" = x86_64-apple-darwin ] && [ "$lock" != run ]; then
                    echo "gap   $lock.txt  $version on $platform: $(grep -o 'Because [a-z0-9_.=-]* has no wheels' "$scratch/log" | head -1)"
                else
                    echo "FAIL  $lock.txt  $version on $platform"
                    grep -v '^ *$' "$scratch/log" | head -3 | sed 's/^/      /'
                    failed=1
                fi
            done
        done
    done
fi
exit $failed
