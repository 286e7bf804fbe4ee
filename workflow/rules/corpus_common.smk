# Names and input functions of the corpus stage (corpus.smk); included by common.smk. The
# paths that other stages read (the pretraining shards, contamination.json) are named here,
# and the rules that write them use the same names.

from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.entries import parse_entry
from biocompact.corpus.evaluation_text import evaluation_files

PMC = config["corpus"]["pmc"]
SENTENCES = config["corpus"]["sentences"]
# Which citations of one PubMed file are their PMID's latest record: one file per PubMed
# file, all written by one job (corpus_latest_pubmed), each read by that file's job.
KEEP_LIST = "results/corpus/pubmed/latest/{stem}.keep.txt.gz"
# The sentence shards, one per PubMed file, PMC file and local text source: each path without
# its suffix, .txt.gz for the sentences, .stats.json for their statistics and (PubMed and PMC)
# .pmids.txt.gz for the PMIDs of their documents (corpus_split_sentences, _pmc, _text).
PUBMED_SHARD = "results/corpus/sentences/{stem}"
PMC_SHARD = "results/corpus/sentences/pmc/{pmc_file}"
TEXT_SHARD = "results/corpus/sentences/text/{text_source}"
# A shard without every document that holds evaluation text (corpus_decontaminate).
DECONTAMINATED_SHARD = "results/corpus/decontaminated/{shard}"
# What decontamination removed, per task (corpus_contamination).
CONTAMINATION_FILE = "results/corpus/contamination.json"


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


# Decontamination: the config's decontamination section, checked here (a task it names
# that is not in finetuning.tasks stops the run before any job).
DECONTAMINATION = parse_entry(DecontaminationSettings, config["decontamination"])
DECONTAMINATION_TASKS = DECONTAMINATION.checked_tasks(TASKS)
DECONTAMINATE_CORPUS = (
    DECONTAMINATION.corpus_on(bool(PUBMED_STEMS or PMC_FILES))
    and bool(DECONTAMINATION_TASKS)
    and bool(PUBMED_STEMS or PMC_FILES or TEXT_SOURCES)
)
# task distillation's transfer sets checked against the test sets (task_distillation.smk)
GUARD_TRANSFER_SETS = DECONTAMINATION.transfer_sets and bool(DECONTAMINATION_TASKS)

# Every PubMed file's, PMC file's and local text source's sentences.
SENTENCE_SHARDS = (
    expand(f"{PUBMED_SHARD}.txt.gz", stem=PUBMED_STEMS)
    + expand(f"{PMC_SHARD}.txt.gz", pmc_file=PMC_FILES)
    + expand(f"{TEXT_SHARD}.txt.gz", text_source=TEXT_SOURCES)
)
# Decontamination (biocompact.corpus.decontamination): the shards without every document
# that shares a PMID or an n-gram with the dev and test text of the checked tasks. Each
# shard is named by its path under sentences/ ({shard}: a PubMed stem, pmc/{file} or
# text/{source}); PubMed and PMC shards come with the PMIDs of their documents.
SHARD_PMIDS = {
    f"{shard}.txt.gz": f"{shard}.pmids.txt.gz"
    for shard in expand(PUBMED_SHARD, stem=PUBMED_STEMS) + expand(PMC_SHARD, pmc_file=PMC_FILES)
}
SHARDS = {
    os.path.relpath(path, "results/corpus/sentences").removesuffix(".txt.gz"): path
    for path in SENTENCE_SHARDS
}
# The pretraining text, read by the vocabulary and tokenising jobs: the decontaminated
# shards, or the sentence shards themselves when decontamination is off.
PRETRAINING_SHARDS = (
    expand(f"{DECONTAMINATED_SHARD}.txt.gz", shard=SHARDS)
    if DECONTAMINATE_CORPUS
    else SENTENCE_SHARDS
)
# An input of every trained language model: its model card states whether the corpus was
# decontaminated.
CONTAMINATION = CONTAMINATION_FILE if DECONTAMINATE_CORPUS else []


def decontamination_task_entries(wildcards):
    """Params: the entries (data alone) of the tasks whose evaluation text is checked."""
    return [task_data_config(task) for task in DECONTAMINATION_TASKS]


def decontamination_task_files(wildcards):
    """Input: the dev, test and golden files of the tasks whose evaluation text is checked."""
    return [
        path for task in DECONTAMINATION_TASKS for path in evaluation_files(FINETUNING_TASKS[task])
    ]


def shard_sentences(wildcards):
    """Input: sentence shard ``wildcards.shard``."""
    return SHARDS[wildcards.shard]


def shard_pmids(wildcards):
    """Input: the PMIDs of the documents of shard ``wildcards.shard`` ([] for local text)."""
    return SHARD_PMIDS.get(SHARDS[wildcards.shard], [])
