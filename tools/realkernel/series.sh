# shellcheck shell=bash disable=SC2034	# sourced: the S_* variables are the callers'
# The kernel series tools/realkernel runs (sourced by fetch.sh and run.sh): one entry each.
#
#   series_load SERIES      sets, for that series:
#     S_SUITE     where apt finds it: "host" (the machine's own Debian 12 sources) or a
#                 Debian suite reached through a private apt configuration in the cache
#                 ("unstable": nothing from it is ever installed into the system)
#     S_FIND      a function printing the newest kernel release the archive has (empty: none)
#     S_PKGS      a function of the release printing the packages to apt-get download
#                 (arch-qualified); busybox-static:arm64 always comes from the host's suite
#     S_IMAGE     S_CONFIG  the image and its configuration, relative to the extracted root,
#                 with REL for the release
#     S_GEN       the vmaptool generation the run is compared with (--kernel=)
#     S_STRAT     the strategy: zigzag; the kernel's vfree (per page before free_pages_bulk(),
#                 which 7.2.13's mm/vmalloc.c vm_area_free_pages() calls) follows S_GEN
#     S_MAKE      extra make arguments for the probe module (compiler, cross prefix)
#     S_GLIBC     1 when the kbuild programs need the suite's own libc6 (run privately
#                 through its dynamic loader; the host's glibc is older)
#
# Generations (docs/model.md): each series is compared with its own, v6.1, v6.12 and v7.2;
# unstable with v7.2, the newest release generation.
SERIES_ALL="6.1 6.12 7.2"

host_arch() { dpkg --print-architecture; }

# newest NAME matching the extended regex $1 among the package names apt knows, version-sorted
newest_pkg() {
	{ apt-cache pkgnames 2>/dev/null | grep -E "$1" || true; } | sort -V | tail -n 1
}

find_6_12() { # the linux-image-6.12-arm64 metapackage names the newest ABI
	apt-cache depends linux-image-6.12-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(6\.12\.[^ :]*-arm64\).*/\1/p' | head -n 1
}
pkgs_6_12() {
	local abi=${1%-arm64}
	echo "linux-image-$1-unsigned:arm64 linux-headers-$1:arm64 linux-headers-$abi-common" \
		"linux-kbuild-$abi:$(host_arch)"
}
find_6_1() { # Debian 12's own kernel: linux-image-6.1.0-N-arm64-unsigned, the highest N
	newest_pkg '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' | sed 's/^linux-image-//; s/-unsigned$//'
}
pkgs_6_1() {
	local abi=${1%-arm64}
	echo "linux-image-$1-unsigned:arm64 linux-headers-$1:arm64 linux-headers-$abi-common" \
		"linux-kbuild-6.1:$(host_arch)"
}
# unstable's layout (since the linux-binary-unsigned split): linux-image-REL is a signed
# metapackage; the unsigned image is linux-binary-unsigned-REL, its config and System.map are
# in linux-base-REL, both under /usr/lib/modules/REL/
find_7_2() {
	newest_pkg '^linux-binary-unsigned-7\.2\.[0-9]+\+deb[0-9]+-arm64$' | sed 's/^linux-binary-unsigned-//'
}
find_unstable() {
	newest_pkg '^linux-binary-unsigned-[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-arm64$' | sed 's/^linux-binary-unsigned-//'
}
pkgs_unstable() {
	local abi=${1%-arm64}
	echo "linux-binary-unsigned-$1:arm64 linux-base-$1:arm64 linux-headers-$1:arm64" \
		"linux-headers-$abi-common linux-kbuild-$abi:$(host_arch) libc6:$(host_arch)"
}

series_load() {
	S_SUITE=host S_GLIBC=0 S_MAKE='' S_STRAT=zigzag
	S_IMAGE=boot/vmlinuz-REL S_CONFIG=boot/config-REL
	case "$1" in
	6.12) S_FIND=find_6_12 S_PKGS=pkgs_6_12 S_GEN=v6.12 ;;
	# built natively on arm64: its Makefile does not name the cross compiler
	6.1) S_FIND=find_6_1 S_PKGS=pkgs_6_1 S_GEN=v6.1 S_MAKE="CROSS_COMPILE=aarch64-linux-gnu-" ;;
	7.2|unstable)
		S_SUITE=unstable S_GLIBC=1 S_GEN=v7.2 S_PKGS=pkgs_unstable
		S_FIND=find_${1/./_}
		S_IMAGE=usr/lib/modules/REL/vmlinuz.unsigned S_CONFIG=usr/lib/modules/REL/config
		# built with gcc 16; Debian 12 has gcc 12, which lacks -fmin-function-alignment
		# (gcc 14): the Makefile uses it when CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT is set
		S_MAKE="CC=aarch64-linux-gnu-gcc-12 CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=" ;;
	*) return 1 ;;
	esac
}
