#!/bin/busybox sh
# The guest's PID 1: mount the cgroup v2 tree, share the host's files read-only over 9p,
# make the few places the tests write to private tmpfs folders, then switch to the host's
# files as the root and run $TIER_SCRIPT (verify/cgroup2/in_guest.sh) there. It powers
# the guest off at the end; the script's exit status is in the results share's exit-code.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
. /tier.env
say() { echo "cgroup2-init: $*"; }
for module in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci \
    netfs fscache 9pnet 9pnet_virtio 9p; do
  insmod "/modules/$module.ko" || say "could not load $module"
done
mkdir -p /host /results
# cache=loose: the guest keeps what it has read of the host's files (read-only to it) instead
# of asking 9p again at every open and stat: `import pytest` 86 s -> 14 s, a run's set-up
# minutes -> seconds. The results share stays uncached: the host reads what the guest writes.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host || say "no host share"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /results || say "no results share"
say "up after $(cut -d' ' -f1 /proc/uptime) s"
echo "$(cut -d' ' -f1 /proc/uptime)" > /results/boot-seconds

# Where the tests write: fresh tmpfs folders over the read-only share.
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t cgroup2 cgroup2 /host/sys/fs/cgroup
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
# The repository or its Python may live under one of them (a clone in /home or /tmp): each
# such folder (TIER_KEEP_FOLDERS, from guest.py's kept_folders) is bound aside first and back
# over the fresh tmpfs, so the guest sees it as the host does.
for folder in $TIER_KEEP_FOLDERS; do
  mkdir -p "/kept$folder" && mount --bind "/host$folder" "/kept$folder" || say "could not keep $folder"
done
for folder in $TIER_COVERED; do  # guest.py's COVERED
  mount -t tmpfs -o mode=1777 tmpfs "/host$folder"
done
for folder in $TIER_KEEP_FOLDERS; do
  mkdir -p "/host$folder" && mount --bind "/kept$folder" "/host$folder" || say "could not keep $folder"
done
mount --bind /results /host/mnt  # (a 9p channel mounts once)
# /root is 0700 on the host: a non-root user could not reach a Python installed under it.
# Show the folders the tier needs there (TIER_ROOT_FOLDERS) on a traversable tmpfs.
if [ -n "$TIER_ROOT_FOLDERS" ]; then
  for folder in $TIER_ROOT_FOLDERS; do
    mkdir -p "/keep$folder" && mount --bind "/host$folder" "/keep$folder"
  done
  mount -t tmpfs -o mode=0755 tmpfs /host/root
  for folder in $TIER_ROOT_FOLDERS; do
    mkdir -p "/host$folder" && mount --bind "/keep$folder" "/host$folder"
  done
fi
# The unprivileged user of the delegated runs, added to copies of passwd and group.
mkdir -p /etc-guest
mount -t tmpfs tmpfs /etc-guest  # not the initramfs: switch_root empties that
cp /host/etc/passwd /host/etc/group /etc-guest/
echo "$TIER_USER:x:$TIER_UID:$TIER_UID:grading TA:/home/$TIER_USER:/bin/sh" >> /etc-guest/passwd
echo "$TIER_USER:x:$TIER_UID:" >> /etc-guest/group
mount --bind /etc-guest/passwd /host/etc/passwd
mount --bind /etc-guest/group /host/etc/group
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

say "running $TIER_SCRIPT"
# switch_root, not chroot: the kernel refuses new user namespaces to a chrooted process,
# and bubblewrap without root needs one. PID 1 then powers the guest off itself.
exec switch_root /host /bin/bash -c '
  bash "$TIER_SCRIPT"
  echo $? > /mnt/exit-code
  echo "cgroup2-init: done after $(cut -d" " -f1 /proc/uptime) s"
  sync
  echo o > /proc/sysrq-trigger
  sleep 60'
