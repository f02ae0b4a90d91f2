#!/usr/bin/env bash
# Fetch, with apt only, what the realkernel run of one kernel series needs (series.sh):
#
#   fetch.sh SERIES CACHE
#
# host tools (qemu-system-arm, the aarch64 cross compiler, cpio), and the series' newest arm64
# kernel image, its config, headers and kbuild, and busybox-static:arm64, extracted (not
# installed) under CACHE/root.  A series from another suite (unstable) is read through a
# private apt configuration in CACHE/apt (its own sources list, lists, package cache and
# archive folders, an empty dpkg status): nothing from it is installed into the system.
# Writes CACHE/release, CACHE/image, CACHE/config (paths) and CACHE/pkgversion.
# Exit 77 when the archive is unreachable or no longer has the series, and nothing usable is
# cached (a skip, with the reason on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=series.sh
. "$here/series.sh"
series=$1
cache=$2
series_load "$series" || { echo "fetch.sh: unknown series $series (known: $SERIES_ALL unstable)" >&2; exit 2; }
mkdir -p "$cache"
log() { echo "realkernel[$series]: $*" >&2; }
export DEBIAN_FRONTEND=noninteractive

need=()
command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
command -v aarch64-linux-gnu-gcc-12 >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v cpio >/dev/null || need+=(cpio)
command -v make >/dev/null || need+=(make)
command -v bc >/dev/null || need+=(bc)
updated=0
update() { # the host's own sources (Debian 12)
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

# the private apt configuration of a suite the host does not use
papt() {
	local d=$cache/apt
	mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/cache" "$d/etc/sources.list.d" \
		"$d/etc/preferences.d"
	: >"$d/status"
	echo "deb [arch=arm64,$(host_arch) signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/debian $S_SUITE main" >"$d/etc/sources.list"
	cat >"$d/apt.conf" <<CONF
Dir::Etc::SourceList "$d/etc/sources.list";
Dir::Etc::SourceParts "$d/etc/sources.list.d";
Dir::Etc::Preferences "$d/etc/preferences";
Dir::Etc::PreferencesParts "$d/etc/preferences.d";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
Dir::Cache::Archives "$d/archives";
APT::Architectures { "$(host_arch)"; "arm64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
CONF
	APT_CONFIG=$d/apt.conf apt-get update -qq >"$cache/apt-update.log" 2>&1 &&
		! grep -qE '^(W|E): (Failed to fetch|Some index files failed)' "$cache/apt-update.log"
}
suite_update() {
	if [ "$S_SUITE" = host ]; then update; else papt && export APT_CONFIG=$cache/apt/apt.conf; fi
}

complete() { # REL: prints REL when the extraction under root has all of it
	local r=$1
	[ -n "$r" ] && [ -e "$cache/root/${S_IMAGE//REL/$r}" ] && [ -e "$cache/root/${S_CONFIG//REL/$r}" ] &&
		[ -e "$cache/root/usr/src/linux-headers-$r/Makefile" ] && [ -x "$cache/root/bin/busybox" ] &&
		echo "$r"
	return 0
}
cached() { complete "$(cat "$cache/release" 2>/dev/null)"; }
rel=
if suite_update; then
	rel=$($S_FIND)
	if [ -z "$rel" ]; then
		rel=$(cached)
		[ -n "$rel" ] || { log "SKIP: the $S_SUITE archive no longer has a $series kernel and nothing is cached"; exit 77; }
		log "the $S_SUITE archive no longer has a $series kernel: using the cached $rel"
	fi
else
	rel=$(cached)
	[ -n "$rel" ] || { log "SKIP: the Debian package archive ($S_SUITE) is unreachable and nothing is cached"; exit 77; }
	log "archive unreachable: using the cached $rel"
fi

if [ "$(complete "$rel")" != "$rel" ]; then
	log "downloading $rel ($S_SUITE: image, config, headers, kbuild) and busybox-static:arm64"
	rm -rf "$cache/root" "$cache/debs"
	mkdir -p "$cache/debs" "$cache/root"
	# shellcheck disable=SC2046	# a list of package names
	(cd "$cache/debs" && apt-get download -q $($S_PKGS "$rel") &&
		env -u APT_CONFIG apt-get download -q busybox-static:arm64) >"$cache/apt-download.log" 2>&1 ||
		{ cat "$cache/apt-download.log" >&2; exit 3; }
	for img in "$cache"/debs/linux-image-*-unsigned_*.deb "$cache"/debs/linux-binary-unsigned-*.deb; do
		[ -e "$img" ] && dpkg-deb -f "$img" Version >"$cache/pkgversion"
	done
	for d in "$cache"/debs/*.deb; do
		dpkg-deb -x "$d" "$cache/root"
	done
	[ -x "$cache/root/bin/busybox" ] || { mkdir -p "$cache/root/bin" && ln -sf ../usr/bin/busybox "$cache/root/bin/busybox"; }
	# the headers' Makefile names the common tree (and, since 6.13, its output) by the
	# installed path: point it at the extraction
	sed -i -e "s#^include /usr/src/#include $cache/root/usr/src/#" \
		-e "s#^KBUILD_OUTPUT=/usr/src/#KBUILD_OUTPUT=$cache/root/usr/src/#" \
		"$cache/root/usr/src/linux-headers-$rel/Makefile"
	if [ "$S_GLIBC" = 1 ]; then
		# the suite's kbuild programs need a newer glibc than the host's: each ELF program
		# that asks for a GLIBC version the host lacks runs through the suite's own dynamic
		# loader and libc, extracted under root (never installed)
		lib=$cache/root/usr/lib/$(gcc -print-multiarch)
		ldso=$(find "$lib" -maxdepth 1 -name 'ld-linux-*.so.*' | head -n 1)
		hostv=$(ldd --version | sed -n '1s/.* \([0-9]*\.[0-9]*\)$/\1/p')
		kb=$(ls -d "$cache"/root/usr/lib/linux-kbuild-*)
		find "$kb" -type f -perm -u+x | while read -r p; do
			file -b "$p" | grep -q '^ELF' || continue
			want=$(objdump -p "$p" 2>/dev/null | sed -n 's/.*GLIBC_\([0-9][0-9.]*\)$/\1/p' | sort -V | tail -n 1)
			[ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "$hostv" | sort -V | tail -n 1)" != "$hostv" ] || continue
			mv "$p" "$p.glibc"
			printf '#!/bin/sh\nexec %s --library-path %s "$0.glibc" "$@"\n' "$ldso" "$lib" >"$p"
			chmod +x "$p"
		done
	fi
	rm -rf "$cache/debs"
	[ "$(complete "$rel")" = "$rel" ] || { log "the packages of $rel lack the image, config, headers or busybox"; exit 3; }
fi
echo "$rel" >"$cache/release"
echo "$cache/root/${S_IMAGE//REL/$rel}" >"$cache/image"
echo "$cache/root/${S_CONFIG//REL/$rel}" >"$cache/config"
