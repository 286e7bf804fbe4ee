"""Fine-tune the teacher of task-specific distillation with the harness, save and evaluate it
(data-parallel on its GPUs)."""

from biocompact.entries import parse_entry
from biocompact.finetuning.checkpoints import Checkpointing
from biocompact.finetuning.train import FinetuneRun
from biocompact.task_distillation.rules import finetune_teacher
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    finetune_teacher(
        FinetuneRun(
            model_path=snakemake.params.model_path,
            task=parse_entry(FinetuningTask, snakemake.params.task, "rule finetune_teacher"),
            seed=int(snakemake.wildcards.seed),
            model_name=snakemake.wildcards.model,
        ),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
        gpus=snakemake.resources.gpus_per_node,
        checkpointing=Checkpointing(
            snakemake.params.checkpoint_dir,
            every=snakemake.config["task_distillation"]["checkpoint_every"],
        ),
    )
