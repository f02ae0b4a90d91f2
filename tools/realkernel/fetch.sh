#!/usr/bin/env bash
# Fetch, with apt only, what the realkernel run needs, into CACHE (argument 1):
# host tools (qemu-system-arm, the aarch64 cross compiler, cpio), and Debian's newest 6.12
# arm64 kernel image, its headers and kbuild, and busybox-static:arm64, extracted (not
# installed) under CACHE/root.  Writes the kernel release to CACHE/release.
# Exit 77 when the archive is unreachable and nothing usable is cached.
set -euo pipefail
cache=$1
mkdir -p "$cache/debs"
log() { echo "realkernel: $*" >&2; }
export DEBIAN_FRONTEND=noninteractive

need=()
command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
command -v aarch64-linux-gnu-gcc-12 >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v cpio >/dev/null || need+=(cpio)
command -v make >/dev/null || need+=(make)
command -v bc >/dev/null || need+=(bc)
updated=0
update() {
	[ $updated = 1 ] && return 0
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	if ! apt-get update -qq >"$cache/apt-update.log" 2>&1 ||
	   grep -qE '^(W|E): (Failed to fetch|Some index files failed)' "$cache/apt-update.log"; then
		return 1
	fi
	updated=1
}
if [ ${#need[@]} -gt 0 ]; then
	update || { log "SKIP: the Debian package archive is unreachable (apt-get update failed)"; exit 77; }
	log "installing ${need[*]}"
	apt-get install -y -qq --no-install-recommends "${need[@]}" >"$cache/apt-install.log" 2>&1 ||
		{ cat "$cache/apt-install.log" >&2; exit 3; }
fi

# the newest 6.12 arm64 kernel the archive has (the linux-image-6.12-arm64 metapackage)
if update; then
	pkg=$(apt-cache depends linux-image-6.12-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.12\.[^ :]*-arm64\).*/\1/p' | head -n 1)
	[ -n "$pkg" ] || { log "no linux-image-6.12-arm64 in the archive"; exit 3; }
	rel=${pkg#linux-image-}
elif [ -s "$cache/release" ] && [ -e "$cache/root/boot/vmlinuz-$(cat "$cache/release")" ]; then
	rel=$(cat "$cache/release")
	log "archive unreachable: using the cached $rel"
else
	log "SKIP: the Debian package archive is unreachable and nothing is cached"
	exit 77
fi
abi=${rel%-arm64}
if [ ! -e "$cache/root/usr/src/linux-headers-$rel/Makefile" ] || [ ! -e "$cache/root/boot/vmlinuz-$rel" ] ||
   [ ! -x "$cache/root/bin/busybox" ]; then
	log "downloading $rel (image, headers, kbuild) and busybox-static:arm64"
	rm -rf "$cache/root" "$cache/debs"
	mkdir -p "$cache/debs" "$cache/root"
	(cd "$cache/debs" && apt-get download -q "linux-image-$rel-unsigned:arm64" \
		"linux-headers-$rel:arm64" "linux-headers-$abi-common" "linux-kbuild-$abi:$(dpkg --print-architecture)" \
		busybox-static:arm64) >"$cache/apt-download.log" 2>&1 ||
		{ cat "$cache/apt-download.log" >&2; exit 3; }
	dpkg-deb -f "$cache"/debs/linux-image-*.deb Version >"$cache/pkgversion"
	for d in "$cache"/debs/*.deb; do
		dpkg-deb -x "$d" "$cache/root"
	done
	# the headers' Makefile includes the common tree by its installed path: point it here
	sed -i "s#^include /usr/src/#include $cache/root/usr/src/#" \
		"$cache/root/usr/src/linux-headers-$rel/Makefile"
	rm -rf "$cache/debs"
fi
echo "$rel" >"$cache/release"
