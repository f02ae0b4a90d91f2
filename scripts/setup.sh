#!/usr/bin/env bash
# Install what vmaptool needs on a fresh Debian 12 machine (run as root).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libjansson-dev python3-yaml python3-jsonschema
      libtraceevent-dev libtracecmd-dev libtracefs-dev liblzma-dev
      libelf-dev zlib1g-dev	# inspect, --vmlinux: kernel images
      xz-utils python3
      time	# /usr/bin/time: tests/cli/test-import-flat-memory.sh, bench/
      librsvg2-bin	# rsvg-convert: tests/cli/test-human-report.sh renders --svg
      qemu-system-arm	# qemu-system-aarch64 --version: tests/cli/test-realkernel-tools.sh
      clang libclang-rt-14-dev)	# the 'fuzz' preset: libFuzzer harnesses
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
