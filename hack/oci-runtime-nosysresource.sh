#!/bin/sh
# An OCI runtime for dockerd that runs runc after dropping CAP_SYS_RESOURCE from the container
# spec (create: <bundle>/config.json) and from exec process specs (--process FILE).
#
# Why: on a machine whose capability bounding set lacks CAP_SYS_RESOURCE (a firecracker VM),
# Docker 20.10 gives --privileged containers every capability it knows, and runc then fails with
# "unable to apply caps: operation not permitted". Docker >= 23 grants privileged containers
# only the daemon's own capabilities; this wrapper does the same for the one capability that is
# missing, so kind's privileged node containers start unchanged. hack/docker-up.sh installs it
# with `dockerd --add-runtime ... --default-runtime ...` only when the capability is missing.
set -eu

RUNC="${FLINKOP_RUNC:-runc}"
strip='def drop: if type == "array" then map(select(. != "CAP_SYS_RESOURCE")) else . end;
  def caps: if type == "object" then with_entries(.value |= drop) else . end;
  if has("process") and (.process | type) == "object" and (.process | has("capabilities"))
  then .process.capabilities |= caps
  elif has("capabilities") then .capabilities |= caps
  else . end'

edit() { # edit FILE: rewrite the JSON file without CAP_SYS_RESOURCE
  [ -f "$1" ] || return 0
  tmp="$1.flinkop.$$"
  jq -c "$strip" "$1" >"$tmp" && mv "$tmp" "$1"
}

bundle="" process="" prev="" cmd=""
for a in "$@"; do
  case "$prev" in
  --bundle | -b) bundle="$a" ;;
  --process | -p) process="$a" ;;
  esac
  case "$a" in
  --bundle=*) bundle="${a#--bundle=}" ;;
  --process=*) process="${a#--process=}" ;;
  create | run | exec) [ -z "$cmd" ] && cmd="$a" ;;
  esac
  prev="$a"
done
case "$cmd" in
create | run) edit "${bundle:-.}/config.json" ;;
exec) [ -n "$process" ] && edit "$process" ;;
esac
exec "$RUNC" "$@"
