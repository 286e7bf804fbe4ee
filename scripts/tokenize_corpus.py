"""Rule tokenize_corpus: tokenise and pack the sentence shards with one vocabulary."""

from biocompact.vocab.rules import tokenize_corpus
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    tokenize_corpus(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
