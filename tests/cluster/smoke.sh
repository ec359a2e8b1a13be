#!/usr/bin/env bash
# Smoke test of bench/cluster/: up -n 2 at 100 Mbit/s, a short ping-pong
# between the two hosts with netcheck, down.  Uses its own names and subnet
# (patct-*, 10.77.1.0/24) so a cluster someone has up for benchmarks is left
# alone.  Exit 0 pass, 1 fail, 77 skip (the reason is printed).
#   smoke.sh PATH/TO/pat-cluster PATH/TO/netcheck
set -u
CLUSTER=${1:?usage: smoke.sh pat-cluster netcheck}
NETCHECK=${2:?usage: smoke.sh pat-cluster netcheck}
export PAT_CLUSTER_PREFIX=patct PAT_CLUSTER_NET=10.77.1
RATE=100mbit
t0=$(date +%s.%N)

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: not root; the emulated cluster needs root for network namespaces and tc"
  exit 77
fi

leftovers() {
  { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^patct-' || true
    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^patct-' || true
    grep -F 'pat-cluster patct' /etc/hosts || true
    [ -e /run/pat-cluster/patct ] && echo /run/pat-cluster/patct || true; } | tr '\n' ' '
}

status=1
finish() {
  trap - EXIT INT TERM
  timeout 20 "$CLUSTER" down >/dev/null 2>&1 || timeout 20 "$CLUSTER" down
  local left
  left=$(leftovers)
  if [ -n "$left" ]; then
    echo "FAIL: teardown left: $left"
    [ "$status" -eq 77 ] || status=1
  fi
  awk -v a="$t0" -v b="$(date +%s.%N)" -v s="$status" \
    'BEGIN { printf "smoke: finished in %.1f s, status %d\n", b - a, s }'
  exit "$status"
}
trap finish EXIT
trap 'echo "smoke: interrupted"; status=1; exit' INT TERM

# A cluster of ours left by an earlier run that was killed: remove it first.
timeout 20 "$CLUSTER" down >/dev/null 2>&1 || true

out=$(timeout 20 "$CLUSTER" up -n 2 --rate "$RATE" 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 77 ]; then
  echo "SKIP: $(echo "$out" | grep 'cannot build' | sed 's/^pat-cluster: //')"
  status=77
  exit
fi
[ $rc -eq 0 ] || { echo "FAIL: pat-cluster up exited $rc"; exit; }

# Ping-pong: achieved rate must be near the configured one, and not above it
# (which would mean the link is not limited).  Loose bounds: CI machines are
# shared and noisy; bench/cluster/validate holds the real targets.
out=$(timeout 45 "$CLUSTER" run --timeout 35 -np 2 "$NETCHECK" --pingpong \
        --iters 6 --warmup 1 --min-pp-ratio 0.5 --max-pp-ratio 1.15 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then echo "FAIL: netcheck exited $rc"; exit; fi
echo "$out" | grep -q "hosts: patct-h0 patct-h1" || { echo "FAIL: ranks not on patct-h0, patct-h1"; exit; }
echo "$out" | grep -q "achieved/configured=.*PASS" || { echo "FAIL: ping-pong rate check"; exit; }
status=0
