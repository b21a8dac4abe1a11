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
#     repeated by that interpreter, which evaluates the markers for X.Y.
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
exit $failed
