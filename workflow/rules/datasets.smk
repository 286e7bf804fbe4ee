# Public datasets by name: a task with `dataset: NAME` gets the registry's family, format,
# folds and metric, and split files under results/data/NAME/ that these rules download
# (once per source archive), verify and convert. Its names and input functions are in
# datasets_common.smk (included by common.smk).


localrules:
    download_dataset,


rule download_dataset:
    """Download one source archive and verify its SHA-256 (registry, else the checksum lock file)."""
    output:
        archive=f"{CACHE}/archives/{{source}}/{{archive}}",
    log:
        "results/logs/datasets/download/{source}/{archive}.log",
    wildcard_constraints:
        source=_alternatives(DATASET_SOURCES),
        archive=_alternatives(SOURCES[s].archive for s in DATASET_SOURCES),
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=120,
    params:
        source="{source}",
        url=source_url,
        lock_file=config["datasets"]["checksum_lock"],
        retries=config["datasets"]["retries"],
    script:
        "../../scripts/download_dataset.py"


rule prepare_dataset:
    """Convert one split file of a dataset from its source archive to the harness format and check it against the registry."""
    input:
        archive=dataset_archive,
    output:
        file=f"{CACHE}/{{dataset}}/{{file}}",
        counts=f"{CACHE}/counts/{{dataset}}/{{file}}.json",
    log:
        "results/logs/datasets/prepare/{dataset}/{file}.log",
    wildcard_constraints:
        dataset=_alternatives(DATASETS_USED),
        file=_alternatives(f for d in DATASETS_USED for f in prepared_files(get_dataset(d))),
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        dataset="{dataset}",
        file="{file}",
        url=dataset_url,
    script:
        "../../scripts/prepare_dataset.py"
