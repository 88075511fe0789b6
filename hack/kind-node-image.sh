#!/usr/bin/env bash
# Builds the kind node image kindest/node:$K8S_VERSION-flinkop with no registry: every binary
# from the Go module proxy (Kubernetes through the same wrapper module and build cache as the
# envtest assets; kube-apiserver is taken from bin/k8s when it is already there), a Debian
# bookworm root file system from debootstrap, kind's base files from the kind module in the
# module cache, the control-plane images made with `docker import` and preloaded into the
# node's containerd, then `docker commit`. The versions are pinned below; docs/kind.md explains the adaptations.
#
# Usage: hack/kind-node-image.sh [binaries|rootfs|images|node|all]   (default all; each step
# needs the ones before it)
# Every step is cached under bin/kind (a stamp per artefact); a second run with nothing
# changed takes seconds. Needs a Docker engine for images and node (make docker-up).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.0}"
KIND_VERSION="${KIND_VERSION:-v0.33.0}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"
ETCD_TAG="${ETCD_TAG:-3.7.0-0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.14.6}"
CONTAINERD_VERSION="${CONTAINERD_VERSION:-v2.3.4}"
RUNC_VERSION="${RUNC_VERSION:-v1.4.3}"
CRICTL_VERSION="${CRICTL_VERSION:-v1.36.0}"
CNI_VERSION="${CNI_VERSION:-v1.9.1}"
NODE_IMAGE="${NODE_IMAGE:-kindest/node:$K8S_VERSION-flinkop}"

root="$(cd "$(dirname "$0")/.." && pwd)"
self="$root/hack/kind-node-image.sh" # $0 may be relative, and steps change directory
work="$root/bin/kind"
bins="$work/bin"
mkdir -p "$bins"
log() { printf 'kind-node-image: %s\n' "$*" >&2; }
# shellcheck source=hack/lib-k8s-build.sh
source "$root/hack/lib-k8s-build.sh"

# stamped NAME VALUE: true when the artefact NAME was made from VALUE.
stamped() { [[ -f "$work/.stamp-$1" && "$(cat "$work/.stamp-$1")" == "$2" ]]; }
stamp() { printf '%s' "$2" >"$work/.stamp-$1"; }

# gobuild NAME MODULE@VERSION CGO TAGS PKG...: builds packages of a module through a wrapper
# module of its own (go get + go build works where `go install M@V` does not: this proxy
# refuses some @v/list requests).
gobuild() {
  local name="$1" modver="$2" cgo="$3" tags="$4"
  shift 4
  if stamped "$name" "$modver"; then
    return
  fi
  log "building $name from $modver"
  local src="$work/src/$name"
  mkdir -p "$src"
  (
    cd "$src"
    [[ -f go.mod ]] || go mod init "flinkop.local/$name" >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "$modver" >/dev/null
    GOFLAGS=-mod=mod CGO_ENABLED="$cgo" go build -trimpath -tags "$tags" -ldflags "-s -w" -o "$bins/" "$@"
  )
  stamp "$name" "$modver"
}

binaries() {
  if ! stamped kubernetes "$K8S_VERSION"; then
    build_k8s "$bins" kubelet kubeadm kubectl kube-proxy kube-scheduler kube-controller-manager
    if [[ -x "$root/bin/k8s/kube-apiserver" ]] && "$root/bin/k8s/kube-apiserver" --version | grep -q -- "$K8S_VERSION"; then
      cp "$root/bin/k8s/kube-apiserver" "$bins/" # built once, for envtest and the node
    else
      build_k8s "$bins" kube-apiserver
    fi
    stamp kubernetes "$K8S_VERSION"
  fi
  gobuild etcd "go.etcd.io/etcd/server/v3@$ETCD_VERSION" 0 "" go.etcd.io/etcd/server/v3
  [[ -x "$bins/server" ]] && mv "$bins/server" "$bins/etcd" # go names the binary after server/v3
  gobuild coredns "github.com/coredns/coredns@$COREDNS_VERSION" 0 "" github.com/coredns/coredns
  gobuild containerd "github.com/containerd/containerd/v2@$CONTAINERD_VERSION" 0 "no_aufs no_zfs no_btrfs no_devmapper" \
    github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/ctr \
    github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2
  if ! stamped runc "$RUNC_VERSION"; then
    dpkg -s libseccomp-dev >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libseccomp-dev >/dev/null; }
  fi
  gobuild runc "github.com/opencontainers/runc@$RUNC_VERSION" 1 seccomp github.com/opencontainers/runc
  gobuild crictl "sigs.k8s.io/cri-tools@$CRICTL_VERSION" 0 "" sigs.k8s.io/cri-tools/cmd/crictl
  gobuild cni "github.com/containernetworking/plugins@$CNI_VERSION" 0 "" \
    github.com/containernetworking/plugins/plugins/main/ptp github.com/containernetworking/plugins/plugins/ipam/host-local \
    github.com/containernetworking/plugins/plugins/main/loopback github.com/containernetworking/plugins/plugins/meta/portmap
  if ! stamped pause "$K8S_VERSION"; then
    prepare_wrapper
    local k8sdir
    k8sdir="$(cd "$wrapper" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' k8s.io/kubernetes)"
    gcc -Os -static -o "$bins/pause" "$k8sdir/build/pause/linux/pause.c"
    stamp pause "$K8S_VERSION"
  fi
  log "binaries ready in $bins"
}

# debootstrap_into DIR PACKAGES: a Debian bookworm minbase root file system.
debootstrap_into() {
  command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$1"
  debootstrap --variant=minbase --include="$2" bookworm "$1" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; return 1; }
}

# rootfs assembles the node's root file system the way kind's base and node images do.
rootfs() {
  local fs="$work/rootfs" want="$KIND_VERSION/$K8S_VERSION/$(sha256sum "$self" | cut -c1-12)"
  if stamped rootfs "$want"; then
    return
  fi
  log "debootstrap of the node root file system (about a minute)"
  debootstrap_into "$fs" systemd,systemd-sysv,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,jq,procps
  local kind
  kind="$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | jq -r .Dir)/images/base/files"
  install -m 0755 "$kind"/usr/local/bin/* "$fs/usr/local/bin/"
  mkdir -p "$fs/kind/bin" "$fs/etc/containerd" "$fs/etc/systemd/system/kubelet.service.d" "$fs/opt/cni/bin" "$fs/etc/cni/net.d" "$fs/etc/kubernetes/manifests"
  install -m 0755 "$kind"/kind/bin/* "$fs/kind/bin/"
  install -m 0644 "$kind/etc/crictl.yaml" "$fs/etc/"
  install -m 0644 "$kind/etc/default/kubelet" "$fs/etc/default/"
  install -m 0644 "$kind"/etc/sysctl.d/* "$fs/etc/sysctl.d/"
  install -m 0644 "$kind"/etc/systemd/system/*.service "$kind"/etc/systemd/system/*.slice "$fs/etc/systemd/system/"
  install -m 0644 "$kind"/etc/systemd/system/kubelet.service.d/* "$fs/etc/systemd/system/kubelet.service.d/"
  # Pods cannot lower their oom_score_adj without CAP_SYS_RESOURCE.
  sed 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' "$kind/etc/containerd/config.toml" >"$fs/etc/containerd/config.toml"
  install -m 0755 "$bins/kubeadm" "$bins/kubelet" "$bins/kubectl" "$fs/usr/bin/"
  install -m 0755 "$bins/containerd" "$bins/ctr" "$bins/containerd-shim-runc-v2" "$bins/runc" "$bins/crictl" "$fs/usr/local/bin/"
  install -m 0755 "$bins/ptp" "$bins/host-local" "$bins/loopback" "$bins/portmap" "$fs/opt/cni/bin/"
  "$bins/ctr" oci spec |
    jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
    jq 'del(.process.rlimits)' >"$fs/etc/containerd/cri-base.json"
  # One node, no kindnetd: a static pod network.
  cat >"$fs/etc/cni/net.d/10-offline.conflist" <<'CNI'
{
  "cniVersion": "1.0.0",
  "name": "kind-offline",
  "plugins": [
    {"type": "ptp", "ipMasq": true, "ipam": {"type": "host-local", "dataDir": "/run/cni-ipam-state",
      "routes": [{"dst": "0.0.0.0/0"}], "ranges": [[{"subnet": "10.244.0.0/16"}]]}, "mtu": 1500},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
CNI
  printf '%s' "$K8S_VERSION" >"$fs/kind/version"
  chroot "$fs" /bin/bash -ec '
    find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete
    rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* /lib/systemd/system/local-fs.target.wants/*
    rm -f /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*
    echo ReadKMsg=no >>/etc/systemd/journald.conf
    systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
    systemctl mask systemd-binfmt.service >/dev/null 2>&1
  '
  chmod 755 "$fs/kind" "$fs/kind/bin"
  if ! stamped proxyfs bookworm; then
    log "debootstrap of the kube-proxy image's root file system"
    debootstrap_into "$work/proxyfs" iptables,nftables,conntrack
    stamp proxyfs bookworm
  fi
  stamp rootfs "$want"
  log "root file system ready in $fs"
}

# import_image REF DIR [ENTRYPOINT-JSON]: a one-layer image of DIR's files.
import_image() {
  local changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
  [[ -n "${3:-}" ]] && changes+=(--change "ENTRYPOINT $3")
  tar -C "$2" -c . | docker import "${changes[@]}" - "$1" >/dev/null
}

# one_binary DIR PATH BINARY: a directory holding just BINARY at PATH.
one_binary() {
  rm -rf "$1" && mkdir -p "$1/$(dirname "$2")" && install -m 0755 "$3" "$1/$2"
}

k="registry.k8s.io"
control_plane_images=("$k/kube-apiserver:$K8S_VERSION" "$k/kube-controller-manager:$K8S_VERSION" "$k/kube-scheduler:$K8S_VERSION"
  "$k/kube-proxy:$K8S_VERSION" "$k/etcd:$ETCD_TAG" "$k/coredns/coredns:$COREDNS_VERSION" "$k/pause:3.10.2" "$k/pause:3.10")

images() {
  local v="$K8S_VERSION" want
  want="$K8S_VERSION/$ETCD_TAG/$COREDNS_VERSION/$(cat "$work"/.stamp-{kubernetes,etcd,coredns,pause,proxyfs} "$self" | sha256sum | cut -c1-12)"
  if stamped images "$want" && [[ -f "$work/images.tar" ]]; then
    return
  fi
  log "control-plane images (docker import)"
  local d="$work/img"
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    one_binary "$d" "usr/local/bin/$b" "$bins/$b"
    import_image "$k/$b:$v" "$d"
  done
  rm -rf "$d" && cp -a "$work/proxyfs" "$d" && install -m 0755 "$bins/kube-proxy" "$d/usr/local/bin/"
  import_image "$k/kube-proxy:$v" "$d"
  one_binary "$d" usr/local/bin/etcd "$bins/etcd"
  import_image "$k/etcd:$ETCD_TAG" "$d"
  one_binary "$d" coredns "$bins/coredns"
  import_image "$k/coredns/coredns:$COREDNS_VERSION" "$d" '["/coredns"]'
  one_binary "$d" pause "$bins/pause"
  import_image "$k/pause:3.10.2" "$d" '["/pause"]'
  docker tag "$k/pause:3.10.2" "$k/pause:3.10"
  rm -rf "$d"
  docker save -o "$work/images.tar" "${control_plane_images[@]}"
  stamp images "$want"
}

# node imports the root file system, preloads the images into its containerd (as kind's own
# build does: at build time, pinned) and commits the node image.
node() {
  local want
  want="$(cat "$work/.stamp-rootfs" "$work/.stamp-images" | sha256sum | cut -c1-12)"
  if stamped node "$want" && docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then
    log "$NODE_IMAGE is up to date"
    return
  fi
  local base="flinkop/kind-node-base:$K8S_VERSION" build=flinkop-kind-node-build
  log "assembling $NODE_IMAGE"
  tar -C "$work/rootfs" -c . | docker import --change 'ENV container=docker' \
    --change 'ENTRYPOINT ["/usr/local/bin/entrypoint","/sbin/init"]' - "$base" >/dev/null
  docker rm -f "$build" >/dev/null 2>&1 || true
  docker run -d --name "$build" --entrypoint=sleep --security-opt seccomp=unconfined "$base" infinity >/dev/null
  docker exec "$build" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
  for _ in $(seq 1 30); do
    docker exec "$build" test -S /run/containerd/containerd.sock && break
    sleep 1
  done
  docker exec -i "$build" ctr -n k8s.io images import --label=io.cri-containerd.pinned=pinned \
    --all-platforms --no-unpack --digests - <"$work/images.tar" >/dev/null
  docker exec "$build" pkill containerd || true
  sleep 1
  docker commit --change 'ENV container=docker' --change 'ENTRYPOINT ["/usr/local/bin/entrypoint","/sbin/init"]' \
    "$build" "$NODE_IMAGE" >/dev/null
  docker rm -f "$build" >/dev/null
  # The base image and the control-plane images live on in the node image and images.tar: drop
  # Docker's copies, about a gigabyte on a disk that also holds the Go build cache.
  docker image rm "$base" "${control_plane_images[@]}" >/dev/null 2>&1 || true
  stamp node "$want"
  log "$NODE_IMAGE ready ($(docker image inspect -f '{{.Size}}' "$NODE_IMAGE" | numfmt --to=iec))"
}

case "${1:-all}" in
binaries) binaries ;;
rootfs) rootfs ;;
images) images ;;
node) node ;;
all)
  binaries
  rootfs
  images
  node
  ;;
*)
  echo "usage: $0 [binaries|rootfs|images|node|all]" >&2
  exit 2
  ;;
esac
