"""Convert one split file of a registered dataset from its verified source archive and
check it against the registry; its checked counts go to a JSON file for the report."""

from biocompact.datasets.rules import prepare_dataset
from biocompact.datasets.settings import DatasetFile
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    prepare_dataset(
        parse_entry(DatasetFile, named_files(snakemake.params), "rule prepare_dataset"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
