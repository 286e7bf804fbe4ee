# Input functions of the corpus stage (corpus.smk, which includes this file).

from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.corpus.evaluation_text import evaluation_files


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
DECONTAMINATION = DecontaminationSettings.from_entry(config["decontamination"])
DECONTAMINATION_TASKS = DECONTAMINATION.checked_tasks(TASKS)
DECONTAMINATE_CORPUS = (
    DECONTAMINATION.corpus_on(bool(PUBMED_STEMS or PMC_FILES))
    and bool(DECONTAMINATION_TASKS)
    and bool(PUBMED_STEMS or PMC_FILES or TEXT_SOURCES)
)
# task distillation's transfer sets checked against the test sets (task_distillation.smk)
GUARD_TRANSFER_SETS = DECONTAMINATION.transfer_sets and bool(DECONTAMINATION_TASKS)


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
