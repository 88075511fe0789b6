#!/usr/bin/env bash
# Makes a Docker engine answer for kind. An engine that already answers is used as it is.
# Otherwise Debian's docker.io (20.10) is installed and dockerd started in the background
# (log: bin/docker/dockerd.log).
#
# On a machine whose capability bounding set lacks CAP_SYS_RESOURCE (this project's firecracker
# VMs), Docker 20.10 cannot start --privileged containers (it asks runc for every capability).
# dockerd then gets hack/oci-runtime-nosysresource.sh as its default OCI runtime: runc with
# CAP_SYS_RESOURCE dropped from each spec, which is what Docker >= 23 does on its own. That is
# smaller and faster than building a newer engine from the module proxy, and kind runs unchanged
# on top of it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
state="$root/bin/docker"
mkdir -p "$state"
log() { printf 'docker-up: %s\n' "$*" >&2; }

capbnd="$(awk '/^CapBnd/ {print $2}' /proc/self/status)"
nosysresource=false
if (((16#$capbnd >> 24 & 1) == 0)); then
  nosysresource=true
  # Installed even for an engine that answers: one this script started for a clone at the same
  # path runs containers through this file, which a fresh clone does not have yet.
  install -m 0755 "$root/hack/oci-runtime-nosysresource.sh" "$state/runc-nosysresource"
fi

if docker info >/dev/null 2>&1; then
  log "a Docker engine answers ($(docker version --format '{{.Server.Version}}'))"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io jq iptables >/dev/null
fi

args=(--host unix:///var/run/docker.sock)
if $nosysresource; then
  log "CAP_SYS_RESOURCE is not in the bounding set: dockerd runs containers through $state/runc-nosysresource"
  args+=(--add-runtime "flinkop-runc=$state/runc-nosysresource" --default-runtime flinkop-runc)
fi

log "starting dockerd"
nohup dockerd "${args[@]}" >"$state/dockerd.log" 2>&1 &
echo $! >"$state/dockerd.pid"
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "dockerd $(docker version --format '{{.Server.Version}}') answers (cgroup $(docker info -f '{{.CgroupVersion}}'))"
    exit 0
  fi
  sleep 1
done
log "dockerd did not answer within 60s; its log:"
tail -30 "$state/dockerd.log" >&2
exit 1
