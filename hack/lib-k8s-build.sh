# Shared by hack/envtest-assets.sh and hack/kind-node-image.sh: the wrapper module that builds
# Kubernetes binaries from k8s.io/kubernetes at K8S_VERSION through the Go module proxy, in one
# place (bin/k8s-wrapper), so both share the module and build caches. Source it with root and
# K8S_VERSION set and a log function defined.

wrapper="$root/bin/k8s-wrapper"

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

build_k8s() { # build_k8s <outdir> <binary>...: version-stamped, static, stripped
  local dir="$1"
  shift
  prepare_wrapper
  cd "$wrapper"
  local v="${K8S_VERSION#v}" ld=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=$(cut -d. -f1 <<<"$v") -X $p.gitMinor=$(cut -d. -f2 <<<"$v") -X $p.gitTreeState=clean"
  done
  local pkgs=()
  for b in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  log "building $* $K8S_VERSION (minutes on 2 cores when the build cache is cold)"
  mkdir -p "$dir"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ld" -o "$dir/" "${pkgs[@]}"
}
