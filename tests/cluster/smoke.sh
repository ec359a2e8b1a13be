#!/usr/bin/env bash
# Smoke test of bench/cluster/: up -n 2 at 100 Mbit/s, a short ping-pong
# between the two hosts with netcheck, down.  Uses its own names and subnet
# (patct-*, 10.77.1.0/24) so a cluster someone has up for benchmarks is left
# alone.  Every step is bounded so the whole test ends within ~45 s, and the
# teardown runs on every exit.  Exit 0 pass, 1 fail, 77 skip (reason printed).
#   smoke.sh PATH/TO/pat-cluster PATH/TO/netcheck
set -u
CLUSTER=${1:?usage: smoke.sh pat-cluster netcheck}
NETCHECK=${2:?usage: smoke.sh pat-cluster netcheck}
export PAT_CLUSTER_PREFIX=patct PAT_CLUSTER_NET=10.77.1
RATE=100mbit RATE_BITS=100000000
t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "smoke [$(elapsed) s]: $*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: not root; the emulated cluster needs root for network namespaces and tc"
  exit 77
fi

leftovers() {
  { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^patct-' || true
    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^patct-' || true
    grep -F 'pat-cluster patct' /etc/hosts || true
    if [ -e /run/pat-cluster/patct ]; then echo /run/pat-cluster/patct; fi; } | tr '\n' ' '
}

status=1
finish() {
  trap - EXIT INT TERM
  local left
  timeout -k 2 8 "$CLUSTER" down >/dev/null 2>&1
  left=$(leftovers)
  if [ -n "$left" ]; then
    say "first teardown left: $left; trying again"
    timeout -k 2 10 "$CLUSTER" down
    left=$(leftovers)
  fi
  if [ -n "$left" ]; then
    echo "FAIL: teardown left: $left"
    [ "$status" -eq 77 ] || status=1
  fi
  say "finished, status $status"
  exit "$status"
}
trap finish EXIT
trap 'echo "smoke: interrupted"; status=1; exit' INT TERM

# A cluster of ours left by an earlier run that was killed: remove it first.
timeout -k 2 6 "$CLUSTER" down >/dev/null 2>&1 || true

out=$(timeout -k 2 8 "$CLUSTER" up -n 2 --rate "$RATE" 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 77 ]; then
  echo "SKIP: $(echo "$out" | grep 'cannot build' | sed 's/^pat-cluster: //')"
  status=77
  exit
fi
[ $rc -eq 0 ] || { echo "FAIL: pat-cluster up exited $rc"; exit; }
say "up"

# Ping-pong across the two hosts.  The check uses the median round trip: a
# shared CI machine can starve a rank for a second, which says nothing about
# the scripts.  The median must be near the configured rate and not above it
# (above would mean the link is not limited).  bench/cluster/validate holds
# the real targets.
out=$(timeout -k 3 22 "$CLUSTER" run --timeout 18 -np 2 "$NETCHECK" --pingpong \
        --iters 6 --warmup 1 --no-check 2>&1)
rc=$?
echo "$out"
say "ping-pong done"
if [ $rc -ne 0 ]; then echo "FAIL: netcheck exited $rc"; exit; fi
echo "$out" | grep -q "hosts: patct-h0 patct-h1" || { echo "FAIL: ranks not on patct-h0, patct-h1"; exit; }
med=$(echo "$out" | sed -n 's/.*rate_median=\([0-9.]*\) Mbit\/s.*/\1/p')
[ -n "$med" ] || { echo "FAIL: no ping-pong rate in the output"; exit; }
if awk -v m="$med" -v r="$RATE_BITS" 'BEGIN { x = m * 1e6 / r; exit !(x >= 0.7 && x <= 1.15) }'; then
  say "median rate $med Mbit/s of $RATE: within [0.70, 1.15], PASS"
  status=0
else
  echo "FAIL: median rate $med Mbit/s is not within [0.70, 1.15] of $RATE"
fi
