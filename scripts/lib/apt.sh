# Sourced by .ci/run, scripts/vm-rig and scripts/rt-compare: apt-get update
# that a half-synced mirror does not stop.
#
# apt-get update exits 100 when any one index fails, and keeps the others
# (and any older copy of the failed one). On 2026-11-28 deb.debian.org
# served bookworm-security's armhf Packages.xz with the wrong size ("Mirror
# sync in progress?") for hours, so adding armhf for the rig's busybox
# ended a cold CI run before its first suite — though busybox-static:armhf
# comes from bookworm's main index, which had arrived. The update is tried
# three times; after that the run goes on with the lists apt has, and an
# install or download that needs a package none of them names fails on its
# own, naming it.

# icb_apt_update WHO: WHO prefixes the one warning line.
icb_apt_update() {
    local who=$1 try
    for try in 1 2 3; do
        apt-get update -qq && return 0
        [ "$try" = 3 ] || sleep $((try * 3))
    done
    printf '%s: apt-get update failed 3 times (errors above); going on with the package lists apt has\n' \
        "$who" >&2
    return 0
}
