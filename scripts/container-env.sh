# shellcheck shell=bash
# Sourced by scripts/build-image.sh and scripts/smoke-image.sh: the settings buildah and podman
# need on a machine like CI's (root in a VM or container without overlayfs, cgroup delegation
# or raisable rlimits). Each is a default only: set the variable yourself to change it.
#   STORAGE_DRIVER=vfs         no overlay mounts
#   BUILDAH_ISOLATION=chroot   RUN steps without new namespaces
#   CONTAINERS_CONF            a containers.conf with `default_ulimits = []` (podman's default
#                              nofile ulimit cannot be set here)
#   PODMAN                     podman with runc (crun fails on rlimits and cgroups here) and
#                              cgroupfs (no systemd)
# On a desktop with rootless Podman none of this is needed: GONUTS_PLAIN_PODMAN=1 skips it.
if [ -z "${GONUTS_PLAIN_PODMAN:-}" ]; then
    export STORAGE_DRIVER="${STORAGE_DRIVER:-vfs}"
    export BUILDAH_ISOLATION="${BUILDAH_ISOLATION:-chroot}"
    if [ -z "${CONTAINERS_CONF:-}" ]; then
        CONTAINERS_CONF="${TMPDIR:-/tmp}/gonuts-containers.conf"
        printf '[containers]\ndefault_ulimits = []\n' >"$CONTAINERS_CONF"
        export CONTAINERS_CONF
    fi
    PODMAN="${PODMAN:-podman --runtime runc --cgroup-manager cgroupfs}"
else
    PODMAN="${PODMAN:-podman}"
fi
BUILDAH="${BUILDAH:-buildah}"
