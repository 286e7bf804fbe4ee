# Input functions of the vocabulary stage (vocab.smk, which includes this file).


def vocabulary_entry(wildcards):
    """The config entry of vocabulary ``wildcards.vocab`` (its settings)."""
    return config["vocabularies"][wildcards.vocab]


def tokenize_memory_mb(wildcards, threads):
    """Memory of the tokenising job: about 600 MB for each of its ``threads`` processes."""
    return 2000 + 600 * threads
