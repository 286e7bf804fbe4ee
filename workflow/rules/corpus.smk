# Corpus stage: PubMed download -> parse -> latest versions -> sentences -> statistics;
# PMC Open Access download -> parse -> sentences (de-duplicated against PubMed) beside it;
# local text files (bring your own corpus) -> sentences; then decontamination against the
# dev and test text of the fine-tuning tasks. Its names (PMC, SENTENCES, the shards' paths,
# SHARDS, PRETRAINING_SHARDS, CONTAMINATION...) and input functions are in corpus_common.smk.

import re


localrules:
    corpus_download_pubmed,
    corpus_download_pmc,


wildcard_constraints:
    shard="|".join(map(re.escape, SHARDS)) or "(?!)",


rule corpus_download_pubmed:
    """Download one PubMed file (URL or folder in NCBI's layout) and verify its MD5 sidecar."""
    output:
        raw="results/corpus/pubmed/raw/{stem}.xml.gz",
    log:
        "results/logs/corpus/download_pubmed/{stem}.log",
    benchmark:
        "results/benchmarks/corpus/download_pubmed/{stem}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=60,
    params:
        source=config["corpus"]["pubmed"]["source"],
        folder=pubmed_folder,
        stem="{stem}",
        verify_md5=config["corpus"]["pubmed"]["verify_md5"],
    script:
        "../../scripts/corpus_download_pubmed.py"


rule corpus_parse_pubmed:
    """Parse one PubMed XML file into JSON-lines citations and a summary of the file."""
    input:
        raw=rules.corpus_download_pubmed.output.raw,
    output:
        documents="results/corpus/pubmed/parsed/{stem}.jsonl.gz",
        meta="results/corpus/pubmed/parsed/{stem}.json",
    log:
        "results/logs/corpus/parse_pubmed/{stem}.log",
    benchmark:
        "results/benchmarks/corpus/parse_pubmed/{stem}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        **config["data_jobs"]["corpus_parse_pubmed"],
    params:
        section_labels=config["corpus"]["parse"]["section_labels"],
        other_abstract=config["corpus"]["parse"]["other_abstract"],
    script:
        "../../scripts/corpus_parse_pubmed.py"


rule corpus_latest_pubmed:
    """Apply deletions and newer versions in NCBI order: which file holds each PMID's latest record."""
    input:
        documents=expand(rules.corpus_parse_pubmed.output.documents, stem=PUBMED_STEMS),
        metas=expand(rules.corpus_parse_pubmed.output.meta, stem=PUBMED_STEMS),
    output:
        keep=expand(KEEP_LIST, stem=PUBMED_STEMS),
        pmids="results/corpus/pubmed/latest/pmids.npy",
    log:
        "results/logs/corpus/latest_pubmed/latest_pubmed.log",
    benchmark:
        "results/benchmarks/corpus/latest_pubmed/latest_pubmed.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=latest_pubmed_memory_mb,
        runtime=120,
    script:
        "../../scripts/corpus_latest_pubmed.py"


rule corpus_split_sentences:
    """Split the latest citations of one PubMed file into sentences (pretraining text)."""
    input:
        documents=rules.corpus_parse_pubmed.output.documents,
        keep=KEEP_LIST,
    output:
        sentences=f"{PUBMED_SHARD}.txt.gz",
        stats=f"{PUBMED_SHARD}.stats.json",
        pmids=f"{PUBMED_SHARD}.pmids.txt.gz",
    log:
        "results/logs/corpus/split_sentences/{stem}.log",
    benchmark:
        "results/benchmarks/corpus/split_sentences/{stem}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        **config["data_jobs"]["corpus_split_sentences"],
    params:
        include_title=config["corpus"]["parse"]["include_title"],
        splitter=SENTENCES["splitter"],
        model=SENTENCES["model"],
    script:
        "../../scripts/corpus_split_sentences.py"


rule corpus_download_pmc:
    """Download one PMC Open Access file (bulk package or article), MD5-verified if configured."""
    output:
        raw="results/corpus/pmc/raw/{pmc_file}",
    log:
        "results/logs/corpus/download_pmc/{pmc_file}.log",
    benchmark:
        "results/benchmarks/corpus/download_pmc/{pmc_file}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=120,
    params:
        source=PMC["source"],
        pmc_file="{pmc_file}",
        verify_md5=PMC["verify_md5"],
    script:
        "../../scripts/corpus_download_pmc.py"


rule corpus_parse_pmc:
    """Stream the articles of one PMC file into JSON-lines documents (sampled, body paragraphs)."""
    input:
        raw=rules.corpus_download_pmc.output.raw,
    output:
        documents="results/corpus/pmc/parsed/{pmc_file}.jsonl.gz",
        meta="results/corpus/pmc/parsed/{pmc_file}.json",
    log:
        "results/logs/corpus/parse_pmc/{pmc_file}.log",
    benchmark:
        "results/benchmarks/corpus/parse_pmc/{pmc_file}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        **config["data_jobs"]["corpus_parse_pmc"],
    params:
        options={
            key: PMC[key]
            for key in ("captions", "tables", "references", "sample_fraction", "seed")
        },
    script:
        "../../scripts/corpus_parse_pmc.py"


rule corpus_split_pmc:
    """Split the parsed articles of one PMC file into sentences (pretraining text)."""
    input:
        **(
            {"pubmed_pmids": rules.corpus_latest_pubmed.output.pmids}
            if PMC["dedupe_pubmed"] and PUBMED_STEMS
            else {}
        ),
        documents=rules.corpus_parse_pmc.output.documents,
    output:
        sentences=f"{PMC_SHARD}.txt.gz",
        stats=f"{PMC_SHARD}.stats.json",
        pmids=f"{PMC_SHARD}.pmids.txt.gz",
    log:
        "results/logs/corpus/split_pmc/{pmc_file}.log",
    benchmark:
        "results/benchmarks/corpus/split_pmc/{pmc_file}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        **config["data_jobs"]["corpus_split_pmc"],
    params:
        include_title=config["corpus"]["parse"]["include_title"],
        splitter=SENTENCES["splitter"],
        model=SENTENCES["model"],
    script:
        "../../scripts/corpus_split_pmc.py"


rule corpus_split_text:
    """Split the documents of one local text source into sentences (pretraining text)."""
    input:
        files=text_source_files,
    output:
        sentences=f"{TEXT_SHARD}.txt.gz",
        stats=f"{TEXT_SHARD}.stats.json",
    log:
        "results/logs/corpus/split_text/{text_source}.log",
    benchmark:
        "results/benchmarks/corpus/split_text/{text_source}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        **config["data_jobs"]["corpus_split_text"],
    params:
        format=text_source_format,
        text_field=text_source_text_field,
        splitter=SENTENCES["splitter"],
        model=SENTENCES["model"],
    script:
        "../../scripts/corpus_split_text.py"


# Decontamination (biocompact.corpus.decontamination): every sentence shard (SHARDS) without
# the documents that share a PMID or an n-gram with the dev and test text of the checked tasks.
rule corpus_evaluation_text:
    """Collect the dev and test text (and PMIDs) of the checked tasks as n-gram hashes."""
    input:
        data=decontamination_task_files,
    output:
        index="results/corpus/decontamination/evaluation.npz",
    log:
        "results/logs/corpus/evaluation_text/evaluation_text.log",
    benchmark:
        "results/benchmarks/corpus/evaluation_text/evaluation_text.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        tasks=decontamination_task_entries,
        ngram=DECONTAMINATION.ngram,
    script:
        "../../scripts/corpus_evaluation_text.py"


rule corpus_decontaminate:
    """Remove from one sentence shard every document that holds evaluation text."""
    input:
        sentences=shard_sentences,
        pmids=shard_pmids,
        index=rules.corpus_evaluation_text.output.index,
    output:
        sentences=f"{DECONTAMINATED_SHARD}.txt.gz",
        matches=f"{DECONTAMINATED_SHARD}.matches.json",
    log:
        "results/logs/corpus/decontaminate/{shard}.log",
    benchmark:
        "results/benchmarks/corpus/decontaminate/{shard}.tsv"
    priority: CORPUS_PRIORITY
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    script:
        "../../scripts/corpus_decontaminate.py"


rule corpus_contamination:
    """Sum the shards' matches per task and split into contamination.json."""
    input:
        index=rules.corpus_evaluation_text.output.index,
        matches=expand(rules.corpus_decontaminate.output.matches, shard=SHARDS),
    output:
        contamination=CONTAMINATION_FILE,
    log:
        "results/logs/corpus/contamination/contamination.log",
    benchmark:
        "results/benchmarks/corpus/contamination/contamination.tsv"
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/corpus_contamination.py"


rule corpus_stats:
    """Sum the per-file corpus statistics (PubMed, PMC and local text)."""
    input:
        stats=expand(rules.corpus_split_sentences.output.stats, stem=PUBMED_STEMS),
        metas=expand(rules.corpus_parse_pubmed.output.meta, stem=PUBMED_STEMS),
        pmc_stats=expand(rules.corpus_split_pmc.output.stats, pmc_file=PMC_FILES),
        pmc_metas=expand(rules.corpus_parse_pmc.output.meta, pmc_file=PMC_FILES),
        text_stats=expand(rules.corpus_split_text.output.stats, text_source=TEXT_SOURCES),
    output:
        stats="results/corpus/stats.json",
    log:
        "results/logs/corpus/stats/stats.log",
    benchmark:
        "results/benchmarks/corpus/stats/stats.tsv"
    conda:
        "../../envs/corpus.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=10,
    params:
        stems=PUBMED_STEMS,
        pmc_files=PMC_FILES,
        text_sources=TEXT_SOURCES,
    script:
        "../../scripts/corpus_stats.py"


localrules:
    corpus,


rule corpus:
    """Target: the whole corpus stage (sentence shards and their statistics; decontaminated
    shards and contamination.json when decontamination is on)."""
    input:
        SENTENCE_SHARDS,
        rules.corpus_stats.output[0] if SENTENCE_SHARDS else [],
        PRETRAINING_SHARDS,
        CONTAMINATION,
