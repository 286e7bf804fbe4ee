"""Write one deployment format (int8 or onnx) of a saved fine-tuned model."""

import torch

from biocompact.compression.formats import compress
from biocompact.runlog import job_logging

with job_logging(snakemake):
    torch.set_num_threads(snakemake.threads)
    compress(snakemake.input[0], snakemake.wildcards.format, snakemake.output[0])
