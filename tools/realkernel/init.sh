#!/bin/busybox sh
# /init of the realkernel initramfs: load the probe, run /ops through /proc/vtprobe and
# print every result on the console, prefixed "VT ".  /mode says whether ftrace records the
# run (ftrace) or not (plugin: the QEMU plugin counts instructions, so no tracing overhead).
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing
mode=$(cat /mode)
# everything for the host goes to the virtio serial port (the PL011 console is slow); where
# virtio_console is a module (6.1) there is none and the results go to the console
port=$(ls /dev/vport*p1 2>/dev/null | head -n 1)
[ -n "$port" ] && exec > "$port"
[ -z "$port" ] && echo "VT NOTE no virtio serial port: results on the console"
echo "VT BOOTED $(uname -r) mode=$mode"
if ! insmod /vtprobe.ko; then
	echo "VT FATAL insmod"
	poweroff -f
fi
echo info > /proc/vtprobe && echo "VT $(cat /proc/vtprobe)"
if [ -e /kallsyms ]; then
	# text symbols, for the plugin's vector tables and the per-function attribution
	echo "VT KALLSYMS-BEGIN"
	grep -i ' t ' /proc/kallsyms
	echo "VT KALLSYMS-END"
fi
T=/sys/kernel/tracing
if [ "$mode" = ftrace ]; then
	echo 0 > $T/tracing_on
	echo 16384 > $T/buffer_size_kb
	# one probe per write: a function this kernel lacks (or has under another name, which
	# kprobe_events lists too) fails alone and is reported
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		# the stand-ins for the vmalloc:* tracepoints, where the kernel has none (6.1)
		case "$p" in p:kp/alloc_va\ *|r:kp/alloc_va_ret\ *|p:kp/free_va\ *|r:kp/purge_ret\ *)
			[ -d $T/events/vmalloc ] && continue ;;
		esac
		echo "$p" >> $T/kprobe_events 2>/dev/null || echo "VT NOPROBE ${p%% *}"
	done < /kprobe_events
	# vmalloc:* exist since 6.2 (6.1 has the kretprobe on __purge_vmap_area_lazy instead)
	for e in vmalloc/alloc_vmap_area vmalloc/free_vmap_area_noflush \
		 vmalloc/purge_vmap_area_lazy kmem/mm_page_alloc kmem/mm_page_free kp; do
		[ -e $T/events/$e/enable ] || { echo "VT NOEVENT $e"; continue; }
		echo 1 > $T/events/$e/enable || echo "VT FATAL enable $e"
	done
	for f in __vmalloc_node_range_noprof __vmalloc_node_range __purge_vmap_area_lazy \
		__free_pages vfree alloc_pages_bulk_noprof __alloc_pages_bulk \
		__vmap_pages_range_noflush vmap_small_pages_range_noflush \
		__vunmap_range_noflush free_vmap_area_noflush __pte_alloc_kernel \
		vm_map_ram vm_unmap_ram vmap vunmap; do
		echo "$f" >> $T/set_ftrace_filter 2>/dev/null
	done
	echo function > $T/current_tracer
	echo 1 > $T/tracing_on
fi
# the plugin's baseline: empty brackets
for i in 1 2 3; do
	echo nop > /proc/vtprobe && read -r res < /proc/vtprobe && echo "VT BASE $res"
done
n=0
while read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	[ "$mode" = ftrace ] && echo "vtop $n $line" > $T/trace_marker
	echo "$line" > /proc/vtprobe 2>/dev/null
	# the shell's builtins only: a child (cat) would be reaped, and its pages freed, in the
	# next operation's bracket, among the page-allocator calls counted there
	res=
	read -r res < /proc/vtprobe
	echo "VT $n $res"
	n=$((n + 1))
done < /ops
echo "VT DONE $n"
if [ "$mode" = ftrace ]; then
	echo 0 > $T/tracing_on
	echo "VT TRACE-BEGIN"
	cat $T/trace
	echo "VT TRACE-END"
fi
poweroff -f
