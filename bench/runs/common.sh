# The set-up every bench/runs/*/run.sh shares; a run sources it first:
#   source "$(dirname "$0")/../common.sh"
# A failed stage of a pipe or an unset variable stops the run (a failed command does not: the
# parts after it still run), it runs from the repository root, mpirun may run as root (the VMs
# the results come from run everything as root), and it names the tools most runs use:
#   CL     the emulated cluster (bench/cluster/pat-cluster)
#   MB     the minibench (build/bench/minibench/pat-minibench)
#   quiet  a filter that drops the cluster's and libpat's chatter from a run's output
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CL=bench/cluster/pat-cluster
MB=build/bench/minibench/pat-minibench
quiet() { grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"; }
