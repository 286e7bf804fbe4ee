#!/usr/bin/env bash
# Try the slurm profile on this machine: start the two-node Slurm cluster of the tests
# (tests/slurm/cluster.sh: needs root; installs Debian's slurm-wlm and munge when missing),
# run the demo through `snakemake --profile slurm` with the job sizes of a small cluster
# (configs/small-cluster.yaml), then stop the cluster. From the repository root:
#
#   slurm/demo-on-this-machine.sh [TARGET ...]      (make slurm-demo: the whole demo)
#
# The cluster's state and logs go to $SLURM_DEMO_STATE (default: a new temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
STATE=${SLURM_DEMO_STATE:-$(mktemp -d)}
CLUSTER=tests/slurm/cluster.sh

# Exit status 3: Slurm cannot be set up here (the reason is on stderr); else it failed.
bash "$CLUSTER" start "$STATE" || { status=$?; echo "no test cluster (its files: $STATE)" >&2; exit $status; }
trap 'bash "$CLUSTER" stop "$STATE"' EXIT
# No accounting database on the test cluster: job states come from squeue (docs/slurm.md).
BIOCOMPACT_CPU_PARTITION=cpu BIOCOMPACT_GPU_PARTITION=gpu BIOCOMPACT_SLURM_ACCOUNT= \
BIOCOMPACT_SLURM_STATUS_COMMAND=squeue HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false \
    .venv/bin/snakemake "$@" --profile slurm --slurm-no-account --max-threads "$(nproc)" \
    --slurm-init-seconds-before-status-checks 5 --configfile config.yaml configs/small-cluster.yaml
