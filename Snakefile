# biocompact: from raw PubMed to a report comparing compact biomedical transformers.
#
#   snakemake --profile local          # run everything on this machine
#   snakemake --profile slurm          # run on a Slurm GPU cluster
#
# One config.yaml drives the DAG; see README.md for stage targets.

import os

from snakemake.utils import min_version, validate

min_version("9.0")

# Rule scripts import the `biocompact` package from src/: make it importable in every
# job, also inside the per-rule conda environments of `--sdm conda`, where it is not
# installed. Cluster jobs inherit this environment.
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.join(workflow.basedir, "src"), os.environ.get("PYTHONPATH")])
    )
)


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/datasets.smk"  # fills in tasks named by `dataset` before common.smk
include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/vocab.smk"
include: "workflow/rules/pretraining.smk"
include: "workflow/rules/distillation.smk"
include: "workflow/rules/finetuning.smk"
include: "workflow/rules/task_distillation.smk"
include: "workflow/rules/report.smk"


rule all:
    """The whole pipeline: every model fine-tuned on every task, aggregated into the report."""
    input:
        "results/report/report.html",
    default_target: True
