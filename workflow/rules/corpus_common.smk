# Input functions of the corpus stage (corpus.smk, which includes this file).


def pubmed_folder(wildcards):
    """NCBI's folder of PubMed file ``wildcards.stem``: baseline or updatefiles."""
    return "baseline" if wildcards.stem in PUBMED_BASELINE else "updatefiles"


def latest_pubmed_memory_mb(wildcards, input):
    """Memory of the job that reads every PubMed file's PMIDs: grows with the file count."""
    return 1000 + 4 * len(input.documents)


def text_source_files(wildcards):
    """The files of local text source ``wildcards.text_source``."""
    return TEXT_SOURCE_FILES[wildcards.text_source]


def text_source_format(wildcards):
    """The file format of local text source ``wildcards.text_source``."""
    return config["corpus"]["text"]["sources"][wildcards.text_source]["format"]


def text_source_text_field(wildcards):
    """The field holding a document's text in local text source ``wildcards.text_source``."""
    return config["corpus"]["text"]["sources"][wildcards.text_source]["text_field"]
