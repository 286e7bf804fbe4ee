# Vocabulary stage: subword vocabularies trained with `tokenizers`, and the tokenised corpus,
# both from PRETRAINING_SHARDS (corpus_common.smk). Its input functions are in vocab_common.smk.


rule train_vocabulary:
    """Train one vocabulary on the training documents; measure it on held-out ones."""
    input:
        shards=PRETRAINING_SHARDS,
    output:
        tokenizer=directory("results/vocab/{vocab}/tokenizer"),
        stats="results/vocab/{vocab}/stats.json",
    log:
        "results/logs/vocab/train_vocabulary/{vocab}.log",
    benchmark:
        "results/benchmarks/vocab/train_vocabulary/{vocab}.tsv"
    priority: vocabulary_priority
    conda:
        "../../envs/torch.yaml"
    # tokenizers' thread pool is capped at the job's threads (vocab.rules.train_vocabulary)
    threads: 2
    resources:
        mem_mb=vocabulary_memory_mb,
        runtime=config["data_jobs"]["train_vocabulary"]["runtime"],
    params:
        name="{vocab}",
        settings=vocabulary_entry,
        heldout_fraction=config["pretraining_data"]["heldout_fraction"],
        max_heldout_sentences=config["pretraining_data"]["max_heldout_sentences"],
    script:
        "../../scripts/train_vocabulary.py"


rule tokenize_corpus:
    """Tokenise the sentence shards once and pack them into sequences (Arrow, on disk)."""
    input:
        shards=PRETRAINING_SHARDS,
        tokenizer=rules.train_vocabulary.output.tokenizer,
    output:
        corpus=directory("results/pretraining_data/{vocab}"),
        record="results/pretraining_data/{vocab}.json",
    log:
        "results/logs/vocab/tokenize_corpus/{vocab}.log",
    benchmark:
        "results/benchmarks/vocab/tokenize_corpus/{vocab}.tsv"
    priority: vocabulary_priority
    conda:
        "../../envs/torch.yaml"
    # Every pass runs in `threads` processes (their memory: docs/speed.md, section "Figures
    # behind code choices"); configs/pubmed-full.yaml sizes them for all of PubMed on one
    # 32-core node (benchmarks/data_scale.py, docs/slurm.md).
    threads: config["data_jobs"]["tokenize_corpus"]["threads"]
    # disk_mb: the peak of its scratch (in tmpdir) and output together; the job checks that
    # much is free before it starts (biocompact.vocab.disk).
    resources:
        mem_mb=tokenize_memory_mb,
        disk_mb=tokenize_disk_mb,
        runtime=config["data_jobs"]["tokenize_corpus"]["runtime"],
    params:
        max_seq_length=config["pretraining_data"]["max_seq_length"],
        heldout_fraction=config["pretraining_data"]["heldout_fraction"],
        packing=config["pretraining_data"]["packing"],
    script:
        "../../scripts/tokenize_corpus.py"


localrules:
    vocab,


rule vocab:
    """Target: every vocabulary with its statistics and tokenised corpus."""
    input:
        expand(rules.train_vocabulary.output.stats, vocab=VOCABS),
        expand(rules.tokenize_corpus.output.corpus, vocab=VOCABS),
