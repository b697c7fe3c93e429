#!/bin/sh
# Runs a command in an image's root file system the way a container runtime with a read-only root
# would (podman's --read-only, Kubernetes' readOnlyRootFilesystem), for `npm run image:check` on
# machines where no runtime works (crun refuses this sandbox's hybrid cgroups). Called inside
# `unshare --mount --pid --fork`, so its mounts vanish with it and the command is PID 1:
#   run-contained.sh ROOTFS DATA_DIR -- env -i VAR=value... chroot --userspec=UID:GID ROOTFS COMMAND...
# ROOTFS becomes read-only; /tmp is a fresh tmpfs; DATA_DIR (or "-" for none) is mounted writable
# at /var/lib/allot; /proc, a minimal /dev, and the host's /etc/hosts and /etc/resolv.conf
# (read-only) are provided as runtimes do. The network is the host's.
set -eu
root=$1
data=$2
shift 3

mount --make-rprivate /
mount --bind "$root" "$root"
for f in hosts resolv.conf; do
  [ -e "$root/etc/$f" ] || : >"$root/etc/$f"
  mount --bind -o ro "/etc/$f" "$root/etc/$f"
done
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
if [ "$data" != "-" ]; then mount --bind "$data" "$root/var/lib/allot"; fi
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for d in null zero full random urandom tty; do
  : >"$root/dev/$d"
  mount --bind "/dev/$d" "$root/dev/$d"
done
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -o remount,bind,ro "$root"
exec "$@"
