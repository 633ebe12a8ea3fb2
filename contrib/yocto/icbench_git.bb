# icbench: the common benchmark for inter-core communication.
#
# A recipe in the style cargo-bitbake generates (meta-rust/cargo-bitbake):
# `inherit cargo`, the sources from git, and every crate of Cargo.lock as a
# crate:// entry (icbench-crates.inc, written by contrib/yocto/crates-inc).
# Written and checked by hand against poky's cargo class; it has not been
# built with BitBake here (docs/install.md).
SUMMARY = "The common benchmark for inter-core communication"
HOMEPAGE = "https://example.invalid/icbench"
LICENSE = "MIT | Apache-2.0"
# Dual-licensed, as the workspace Cargo.toml declares; both texts ship.
LIC_FILES_CHKSUM = "file://LICENSE-MIT;md5=ed23e7354aa3b399305ac7eb4162e0ad \
                    file://LICENSE-APACHE;md5=22a53954e4e0ec258dfce4391e905dac"

inherit cargo

SRC_URI = "git://example.invalid/icbench.git;protocol=https;branch=main"
# Pin a commit for a reproducible image; AUTOREV follows the branch.
SRCREV = "${AUTOREV}"
PV = "0.1.0+git${SRCPV}"
S = "${WORKDIR}/git"

require ${BPN}-crates.inc

# The binary crate inside the workspace; Cargo.lock is at the top of ${S}.
CARGO_SRC_DIR = "crates/icbench"

# rusqlite's bundled SQLite is C: the cargo class passes the target's
# compiler to the cc crate, nothing more is needed.

# The man page and completions, generated from the command line and kept
# in the tree (contrib/man, contrib/completions; scripts/generate).
do_install:append() {
    install -d ${D}${mandir}/man1 ${D}${datadir}/bash-completion/completions \
        ${D}${datadir}/zsh/site-functions ${D}${datadir}/fish/vendor_completions.d
    install -m 0644 ${S}/contrib/man/icbench.1 ${D}${mandir}/man1/icbench.1
    install -m 0644 ${S}/contrib/completions/icbench.bash \
        ${D}${datadir}/bash-completion/completions/icbench
    install -m 0644 ${S}/contrib/completions/_icbench ${D}${datadir}/zsh/site-functions/_icbench
    install -m 0644 ${S}/contrib/completions/icbench.fish \
        ${D}${datadir}/fish/vendor_completions.d/icbench.fish
}
FILES:${PN} += "${datadir}/bash-completion ${datadir}/zsh ${datadir}/fish"
