#!/bin/busybox sh
# /init of the VM rig's initramfs (scripts/vm-rig): mount the pseudo file
# systems, run the tests with the console as output, power off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm /dev/mqueue
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t mqueue mqueue /dev/mqueue 2>/dev/null
export PATH=/bin:/sbin HOME=/tmp
sh /icb/vm-test.sh
echo "vm-init: tests finished, rc=$?"
sync
reboot -f
