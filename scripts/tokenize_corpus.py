"""Rule tokenize_corpus: tokenise and pack the sentence shards with one vocabulary."""

from biocompact.entries import parse_entry
from biocompact.vocab.rules import tokenize_corpus
from biocompact.vocab.settings import CorpusTokenization
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    tokenize_corpus(
        parse_entry(CorpusTokenization, named_files(snakemake.params), "rule tokenize_corpus"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
        disk_mb=snakemake.resources.disk_mb,
        tmpdir=snakemake.resources.tmpdir,
    )
