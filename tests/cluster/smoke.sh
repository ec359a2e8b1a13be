#!/usr/bin/env bash
# Smoke test of bench/cluster/: up -n 2 at 100 Mbit/s, a short ping-pong
# between the two hosts with netcheck, down; then 2 hosts x 2 ranks
# (--ranks-per-host 2): the ranks' placement (two per host namespace, by
# slot), a shared-memory ping-pong inside a host that leaves the host's link
# idle, and correct all-gathers (netcheck's ring, and libpat's through
# pat-minibench when given), down.  Uses its own names and subnet
# (patct-*, 10.77.1.0/24) so a cluster someone has up for benchmarks is left
# alone.  Every step is bounded so the whole test ends within ~45 s, and the
# teardown runs on every exit.  Exit 0 pass, 1 fail, 77 skip (reason printed).
#   smoke.sh PATH/TO/pat-cluster PATH/TO/netcheck [PATH/TO/pat-minibench]
set -u
CLUSTER=${1:?usage: smoke.sh pat-cluster netcheck [pat-minibench]}
NETCHECK=${2:?usage: smoke.sh pat-cluster netcheck [pat-minibench]}
MINIBENCH=${3:-}
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
else
  echo "FAIL: median rate $med Mbit/s is not within [0.70, 1.15] of $RATE"
  exit
fi

# ---- 2 hosts x 2 ranks
timeout -k 2 8 "$CLUSTER" down >/dev/null 2>&1
out=$(timeout -k 2 8 "$CLUSTER" up -n 2 --ranks-per-host 2 --rate "$RATE" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: pat-cluster up --ranks-per-host 2 exited $rc"; exit; }
grep -qx 'patct-h0 slots=2' /run/pat-cluster/patct/hostfile ||
  { echo "FAIL: the hostfile does not give patct-h0 2 slots"; exit; }
say "up 2 x 2"

# Placement: ranks 0,1 in patct-h0's namespace, 2,3 in patct-h1's (by slot),
# as the ranks themselves see it (host name and network namespace).
out=$(timeout -k 3 22 "$CLUSTER" run --timeout 18 --np-all \
        sh -c 'echo "place $OMPI_COMM_WORLD_RANK $(hostname) $(readlink /proc/self/ns/net)"' 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: run --np-all exited $rc"; exit; }
place=$(echo "$out" | awk '$1 == "place"' | sort -k2n)
[ "$(echo "$place" | awk '{print $2, $3}' | tr '\n' ' ')" = "0 patct-h0 1 patct-h0 2 patct-h1 3 patct-h1 " ] ||
  { echo "FAIL: ranks are not 0,1 on patct-h0 and 2,3 on patct-h1"; exit; }
[ "$(echo "$place" | awk '{print $3, $4}' | sort -u | wc -l)" -eq 2 ] &&
  [ "$(echo "$place" | awk '{print $4}' | sort -u | wc -l)" -eq 2 ] ||
  { echo "FAIL: the ranks of a host do not share one network namespace, or hosts share one"; exit; }
ns0=$(echo "$place" | awk '$2 == 0 {print $4}')
[ "$ns0" != "$(readlink /proc/self/ns/net)" ] || { echo "FAIL: ranks run in the root namespace"; exit; }
say "placement: 2 ranks per host namespace, PASS"

# Inside a host the ranks use shared memory: a 1 MiB ping-pong of ranks 0 and
# 1 runs far above the link's rate, and patct-h0's link carries almost
# nothing meanwhile (mpirun's control traffic: a few KB).
sent() { tc -n patct-h0 -s qdisc show dev eth0 | awk '/Sent/ {print $2; exit}'; }
before=$(sent)
out=$(timeout -k 3 22 "$CLUSTER" run --timeout 18 -np 2 "$NETCHECK" --pingpong \
        --iters 6 --warmup 1 --no-check 2>&1)
rc=$?
after=$(sent)
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: intra-host netcheck exited $rc"; exit; }
echo "$out" | grep -q "hosts: patct-h0 patct-h0" || { echo "FAIL: ranks 0, 1 not both on patct-h0"; exit; }
med=$(echo "$out" | sed -n 's/.*rate_median=\([0-9.]*\) Mbit\/s.*/\1/p')
link=$((after - before))
say "intra-host ping-pong: median $med Mbit/s; patct-h0's link sent $link bytes meanwhile"
if [ -z "$med" ] || ! awk -v m="$med" -v r="$RATE_BITS" 'BEGIN { exit !(m * 1e6 > 2 * r) }' ||
  [ "$link" -gt 1000000 ]; then
  echo "FAIL: the ping-pong inside a host did not use shared memory (rate $med Mbit/s, $link bytes on the link)"
  exit
fi

# All-gathers over all 4 ranks: netcheck's ring (MPI_Sendrecv, data checked)
# and, given pat-minibench, libpat's RING and RELAY (every element checked).
out=$(timeout -k 3 22 "$CLUSTER" run --timeout 18 --np-all "$NETCHECK" --ring --block 64K \
        --ring-iters 3 --ring-warmup 1 --no-check 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] && echo "$out" | grep -q "hosts: patct-h0 patct-h0 patct-h1 patct-h1" &&
  echo "$out" | grep -q "data=correct" || { echo "FAIL: netcheck ring on 2 x 2 (exit $rc)"; exit; }
if [ -n "$MINIBENCH" ]; then
  out=$(timeout -k 3 32 "$CLUSTER" run --timeout 28 --np-all "$MINIBENCH" -N 64K --iters 2 --warmup 1 \
          --flat-iters 0 --max-delay 2 --base-ms 2 --alg ring,relay --quiet 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 0 ] && [ "$(echo "$out" | grep -cE '^(ring|relay) +ok .* 0 +(ring|relay)=')" -eq 2 ] ||
    { echo "FAIL: pat-minibench ring,relay on 2 x 2 (exit $rc)"; exit; }
fi
say "all-gathers on 2 x 2 correct, PASS"
status=0
