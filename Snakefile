# biocompact: from raw PubMed to a report comparing compact biomedical transformers.
#
#   snakemake --profile local          # run everything on this machine
#   snakemake --profile slurm          # run on a Slurm GPU cluster
#
# One config.yaml drives the DAG; see README.md for stage targets.

import os

from snakemake.utils import min_version, update_config

from biocompact.workflow.config_schema import (
    COMMAND_LINE,
    read_config_file,
    typed_command_line_values,
    validate_config,
)

min_version("9.0")

# Rule scripts import the `biocompact` package from src/: make it importable in every
# job, also inside the per-rule conda environments of `--sdm conda`, where it is not
# installed. Cluster jobs inherit this environment.
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.join(workflow.basedir, "src"), os.environ.get("PYTHONPATH")])
    )
)


# Config layering: the files given with --configfile, later over earlier, over the schema's
# defaults. config.yaml (the demo) is read only when no --configfile is given, so a user's
# own config never inherits the demo's models, tasks or files. --config KEY=VALUE applies
# on top in both cases, its lists and mappings read as YAML
# (`--config 'finetuning={seeds: [1, 2]}'`). Validation prints one line per problem, naming
# the file that set the key.
CONFIG_FILES = [os.path.relpath(path) for path in workflow.overwrite_configfiles] or ["config.yaml"]
CONFIG_SOURCES = [(path, read_config_file(path)) for path in CONFIG_FILES if os.path.exists(path)]
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


COMMAND_LINE_CONFIG = typed_command_line_values(workflow.config_settings.config)
update_config(config, COMMAND_LINE_CONFIG)
validate_config(
    config,
    read_config_file(os.path.join(workflow.basedir, "workflow/schemas/config.schema.yaml")),
    [*CONFIG_SOURCES, (COMMAND_LINE, COMMAND_LINE_CONFIG)],
)


# common.smk first: the names and input functions of every stage (its STAGE_common.smk files);
# then the stage rule files, in any order (tests/workflow/test_include_order.py).
include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/vocab.smk"
include: "workflow/rules/pretraining.smk"
include: "workflow/rules/distillation.smk"
include: "workflow/rules/finetuning.smk"
include: "workflow/rules/task_distillation.smk"
include: "workflow/rules/compression.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/release.smk"


# The whole pipeline: every model fine-tuned on every task, aggregated into the report (with
# the task-specific distillation and compression sections the config enables);
# without fine-tuning models or tasks, every corpus, vocabulary and model the config names.
# Every seed's metrics file is a target too: Snakemake re-makes a missing file only when a job
# that needs to run asks for it, and an aggregate newer than its inputs does not; so a seed
# whose metrics a cut-off run deleted (--forcerun, then kill -9) is run again, and the
# aggregate and report with it, instead of "Nothing to be done" over its old score.
rule all:
    default_target: True
    input:
        (
            [rules.report.output.html, rules.finetuning.input]
            if FINETUNE_MODELS and TASKS
            else [
                rules.corpus.input,
                rules.vocab.input,
                rules.pretraining.input,
                rules.distillation.input,
            ]
        ),
