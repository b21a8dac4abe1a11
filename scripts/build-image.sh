#!/usr/bin/env bash
# Build the gonuts image from the Containerfile with buildah (docs/deploy.md, "Run the container").
#
#   scripts/build-image.sh [--local-base] [--tag IMAGE]
#
# --local-base   build the base locally instead of pulling the official Python image: Debian
#                bookworm (minbase, python3, python3-venv) made by debootstrap, `buildah from
#                scratch`, committed as $GONUTS_BASE_IMAGE (default localhost/gonuts-base:bookworm;
#                kept and reused once made). The Debian mirror is $DEBIAN_MIRROR, else the first
#                Debian mirror in this machine's apt sources. This is what CI does: it can pull
#                from no registry.
# --tag IMAGE    the image's name (default $GONUTS_IMAGE, else localhost/gonuts:latest).
# BASE_IMAGE     the base without --local-base (default: the Containerfile's, the official
#                python:3.11-slim-bookworm).
#
# pip inside the build sees no host configuration (no local wheel folders or extra indexes):
# the image installs from PyPI alone, with the lock's hashes. Where this machine reaches PyPI
# through a CA of its own (pip's `cert` setting, $PIP_CERT), that bundle is handed to the build
# as the secret `pip-cert`, mounted for the pip steps only and stored in no layer.
# DEBIAN_MIRROR  the mirror for --local-base (default: the apt sources' first Debian archive,
#                read from ${GONUTS_APT_ETC:-/etc/apt}); --print-mirror prints it and stops.
# Prints the image's size (its layers compressed with gzip, as a registry would store them).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/container-env.sh
. scripts/container-env.sh

local_base=""
print_mirror=""
tag="${GONUTS_IMAGE:-localhost/gonuts:latest}"
while [ $# -gt 0 ]; do
    case "$1" in
        --local-base) local_base=1 ;;
        --tag) tag="$2"; shift ;;
        --print-mirror) print_mirror=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-image.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

say() { printf '==> [%(%H:%M:%S)T] %s\n' -1 "$*"; }

# The first Debian archive in the apt sources (one-line or deb822 format), or $DEBIAN_MIRROR.
debian_mirror() {
    if [ -n "${DEBIAN_MIRROR:-}" ]; then
        echo "$DEBIAN_MIRROR"
        return
    fi
    local etc="${GONUTS_APT_ETC:-/etc/apt}"
    local files=("$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources)
    local f
    for f in "${files[@]}"; do
        [ -r "$f" ] || continue
        awk '
            /^[[:space:]]*#/ { next }
            $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }
            tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }
        ' "$f"
    done | { grep -v -- '-security' || true; } | head -n 1
}

# The CA bundle pip is configured with on this machine, if any ($PIP_CERT, else pip's setting).
pip_cert() {
    if [ -n "${PIP_CERT:-}" ]; then
        echo "$PIP_CERT"
        return
    fi
    local py
    for py in python3 python; do
        if command -v "$py" >/dev/null 2>&1; then
            "$py" -m pip config list 2>/dev/null \
                | sed -n "s/^[a-z:]*\.cert='\{0,1\}\([^']*\)'\{0,1\}$/\1/p" | tail -n 1
            return
        fi
    done
}

make_local_base() {
    local base="$1"
    if "$BUILDAH" inspect --type image "$base" >/dev/null 2>&1; then
        say "base $base: already built"
        return
    fi
    local mirror
    mirror=$(debian_mirror)
    if [ -z "$mirror" ]; then
        echo "build-image.sh: no Debian mirror in the apt sources; set DEBIAN_MIRROR" >&2
        exit 2
    fi
    command -v debootstrap >/dev/null || { echo "build-image.sh: needs debootstrap" >&2; exit 2; }
    local root
    root=$(mktemp -d "${TMPDIR:-/var/tmp}/gonuts-base.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$root'" EXIT
    say "base $base: debootstrap --variant=minbase --include=python3,python3-venv bookworm (apt sources' mirror)"
    debootstrap --variant=minbase --include=python3,python3-venv bookworm "$root" "$mirror" \
        >"$root.log" 2>&1 || { tail -n 30 "$root.log" >&2; exit 1; }
    rm -f "$root.log"
    # What slim images leave out: package caches, documentation, manual pages, translations.
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
        "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
        "$root"/usr/share/locale/*
    local ctr
    ctr=$("$BUILDAH" from scratch)
    "$BUILDAH" copy --quiet "$ctr" "$root" / >/dev/null
    "$BUILDAH" config --env LANG=C.UTF-8 --cmd /bin/bash "$ctr"
    "$BUILDAH" commit --quiet --format docker "$ctr" "$base" >/dev/null
    "$BUILDAH" rm "$ctr" >/dev/null
    rm -rf "$root"
    trap - EXIT
    say "base $base: committed"
}

if [ -n "$print_mirror" ]; then
    debian_mirror
    exit 0
fi

start=$SECONDS
build_args=()
if [ -n "$local_base" ]; then
    base="${GONUTS_BASE_IMAGE:-localhost/gonuts-base:bookworm}"
    make_local_base "$base"
    build_args+=(--build-arg "BASE_IMAGE=$base" --pull=false)
elif [ -n "${BASE_IMAGE:-}" ]; then
    build_args+=(--build-arg "BASE_IMAGE=$BASE_IMAGE")
fi
cert=$(pip_cert)
if [ -n "$cert" ] && [ -s "$cert" ]; then
    say "pip's CA bundle on this machine goes to the build as the secret pip-cert"
    build_args+=(--secret "id=pip-cert,src=$cert")
fi
say "buildah bud -f Containerfile -t $tag"
"$BUILDAH" bud --format docker --network host -f Containerfile -t "$tag" \
    "${build_args[@]}" .
say "built $tag in $((SECONDS - start)) s"

# The size a registry would store: every layer gzip-compressed (an OCI archive's blobs).
out=$(mktemp -d "${TMPDIR:-/var/tmp}/gonuts-image.XXXXXX")
"$BUILDAH" push --quiet "$tag" "oci-archive:$out/image.tar" >/dev/null
compressed=$(stat -c %s "$out/image.tar")
rm -rf "$out"
unpacked=$("$BUILDAH" images --noheading --format '{{.Size}}' "$tag" 2>/dev/null | head -n 1)
say "image $tag: $((compressed / 1000000)) MB compressed layers (OCI archive), ${unpacked:-?} unpacked"
