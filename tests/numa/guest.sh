#!/bin/sh
# The two-node guest of `make check-numa`, made from Debian's packages
# only, inside the build tree (the host's /boot is never touched):
#
#   guest.sh kernel DIR        Debian's current kernel package, fetched with
#                              apt-get download and unpacked with dpkg -x:
#                              DIR/vmlinuz
#   guest.sh initrd DIR CDT AGENT FILE...
#                              an initramfs of busybox (busybox-static), cdt,
#                              the libraries cdt and its agent load, the
#                              files given (workloads) and tests/numa/init
#                              as /init: DIR/initrd.gz
set -eu
what=$1 dir=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"

case $what in
kernel)
	# linux-image-amd64 depends on the kernel of the day.
	pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "guest.sh: apt-cache knows no linux-image-amd64 (apt-get update?)" >&2; exit 1; }
	rm -rf "$dir/kernel" "$dir"/*.deb
	(cd "$dir" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	deb=$(ls "$dir"/"$pkg"_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || { echo "guest.sh: apt-get download $pkg failed" >&2; exit 1; }
	dpkg -x "$deb" "$dir/kernel"
	cp "$dir"/kernel/boot/vmlinuz-* "$dir/vmlinuz.new"
	rm -rf "$dir/kernel" "$deb"
	mv "$dir/vmlinuz.new" "$dir/vmlinuz"
	;;
initrd)
	cdt=$1 agent=$2
	shift 2
	root=$dir/root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/cdt" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
	cp /bin/busybox "$root/bin/busybox"
	cp "$cdt" "$root/cdt/cdt"
	for f in "$@"; do cp "$f" "$root/cdt/"; done
	cp "$top/tests/numa/init" "$root/init"
	chmod 755 "$root/init"
	# The loader and every library cdt, its agent and the workloads load.
	for lib in $(ldd "$cdt" "$agent" "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$dir/initrd.gz.new"
	mv "$dir/initrd.gz.new" "$dir/initrd.gz"
	rm -rf "$root"
	;;
*)
	echo "usage: guest.sh kernel DIR | initrd DIR CDT AGENT FILE..." >&2
	exit 2
	;;
esac
