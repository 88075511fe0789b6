#!/usr/bin/env bash
# Puts kube-apiserver and etcd into ./bin/k8s for envtest (KUBEBUILDER_ASSETS=./bin/k8s).
#
# kube-apiserver is built from the Go module proxy: k8s.io/kubernetes cannot be `go install`ed
# because its go.mod replaces the staging modules with ./staging/..., so a small wrapper module
# requires k8s.io/kubernetes and points every staging module at its published v0.X.Y tag.
# The wrapper lives in ./bin/k8s-wrapper so the kind node-image build can reuse the same
# module and build cache. etcd comes from Debian's etcd-server package when it is installed,
# otherwise it is built from go.etcd.io the same way.
#
# Re-running is cheap: a binary whose version already matches is kept.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.0}"
ETCD_VERSION="${ETCD_VERSION:-v3.5.21}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${ENVTEST_ASSETS_DIR:-$root/bin/k8s}"
mkdir -p "$out"

log() { printf 'envtest-assets: %s\n' "$*" >&2; }

# shellcheck source=hack/lib-k8s-build.sh
source "$root/hack/lib-k8s-build.sh"

have_version() { # have_version <binary> <expected-substring>
  [[ -x "$out/$1" ]] && "$out/$1" --version 2>/dev/null | grep -q -- "$2"
}

if have_version kube-apiserver "$K8S_VERSION"; then
  log "kube-apiserver $K8S_VERSION present"
else
  build_k8s "$out" kube-apiserver
fi

if [[ -x "$out/etcd" ]] && "$out/etcd" --version >/dev/null 2>&1; then
  log "etcd present ($("$out/etcd" --version | head -1))"
elif [[ -x /usr/bin/etcd ]]; then
  ln -sf /usr/bin/etcd "$out/etcd"
  log "etcd linked from Debian's etcd-server"
else
  log "no /usr/bin/etcd (apt-get install etcd-server); building etcd $ETCD_VERSION from the module proxy"
  tmp="$root/bin/etcd-wrapper"
  mkdir -p "$tmp" && cd "$tmp"
  [[ -f go.mod ]] || go mod init flinkop.local/etcdbin >/dev/null 2>&1
  GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
fi

log "assets ready in $out"
"$out/kube-apiserver" --version >&2
