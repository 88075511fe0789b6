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
wrapper="$root/bin/k8s-wrapper"
mkdir -p "$out"

log() { printf 'envtest-assets: %s\n' "$*" >&2; }

staging_minor() { # v1.37.0 -> v0.37.0
  local v="${K8S_VERSION#v}"
  printf 'v0.%s.%s' "$(cut -d. -f2 <<<"$v")" "$(cut -d. -f3 <<<"$v")"
}

prepare_wrapper() {
  mkdir -p "$wrapper"
  cd "$wrapper"
  if [[ -f go.mod ]] && grep -q "k8s.io/kubernetes $K8S_VERSION" go.mod; then
    return
  fi
  rm -f go.mod go.sum
  go mod init flinkop.local/k8sbins >/dev/null 2>&1
  go mod edit -require="k8s.io/kubernetes@$K8S_VERSION"
  local modfile
  GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
  modfile="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod"
  local staging
  staging="$(staging_minor)"
  local n=0
  for m in $(sed -n 's#^[[:space:]]*k8s.io/\([a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile"); do
    go mod edit -replace="k8s.io/$m=k8s.io/$m@$staging"
    n=$((n + 1))
  done
  log "wrapper module pins $n staging modules at $staging"
}

build_k8s() { # build_k8s <binary>...
  prepare_wrapper
  cd "$wrapper"
  local v="${K8S_VERSION#v}" ld=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=$(cut -d. -f1 <<<"$v") -X $p.gitMinor=$(cut -d. -f2 <<<"$v") -X $p.gitTreeState=clean"
  done
  local pkgs=()
  for b in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  log "building $* $K8S_VERSION (about 10 minutes on 2 cores when the build cache is cold)"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ld" -o "$out/" "${pkgs[@]}"
}

have_version() { # have_version <binary> <expected-substring>
  [[ -x "$out/$1" ]] && "$out/$1" --version 2>/dev/null | grep -q -- "$2"
}

if have_version kube-apiserver "$K8S_VERSION"; then
  log "kube-apiserver $K8S_VERSION present"
else
  build_k8s kube-apiserver
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
