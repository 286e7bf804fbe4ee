"""What the workflow needs to build the DAG and run its jobs: the config's schema and
cross-checks' inputs, model shapes, the Slurm fit check and the jobs' logs (no torch)."""
