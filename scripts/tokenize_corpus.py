"""Rule tokenize_corpus: tokenise and pack the sentence shards with one vocabulary."""

from biocompact.vocab.tokenized_corpus import run_tokenization
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_tokenization(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
