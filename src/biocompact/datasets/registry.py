"""The registry of public datasets: where each is published, which archive members hold its
splits, how they convert to a harness format, its licence, citation and metric.

Source layouts follow the public distributions as their own scripts read them: BioBERT's
2020 datasets archive (``datasets/NER/<corpus>/{train,devel,test}.tsv``,
``datasets/RE/<corpus>/<fold>/{train,test}.tsv``, ``datasets/QA/BioASQ/...``; Lee et al.
2020, dmis-lab/biobert) and LinkBERT's preprocessed BLURB data (``data/tokcls/<task>_hf`` and
``data/seqcls/<task>_hf``, each ``{train,dev,test}.json``; Yasunaga et al. 2022,
michiyasunaga/LinkBERT). Neither publishes a checksum: the first download records its
SHA-256 in the checksum lock file and every later download is verified against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Source:
    """One public archive holding one or more datasets."""

    name: str
    url: str
    archive: str  # file name of the download (its suffix tells zip from tar)
    sha256: str | None
    citation: str


@dataclass(frozen=True)
class Dataset:
    """One registered dataset. ``members`` maps a split to its member path in the source
    archive (``{fold}`` replaced by each of ``folds``); ``converter`` names the conversion
    to the harness ``format``; ``task`` holds the task settings it implies (metric, labels).
    A dataset without ``source`` needs credentials: ``obtain`` says where to get it."""

    name: str
    family: str
    format: str
    licence: str
    citation: str
    metric: str
    source: str | None = None
    converter: str = "copy"
    members: Mapping[str, str] = field(default_factory=dict)
    folds: tuple[str, ...] | None = None
    task: Mapping[str, object] = field(default_factory=dict)
    blurb_type: str | None = None  # BLURB task type, for the BLURB score
    obtain: str | None = None


BIOBERT = Source(
    "biobert-datasets",
    "http://nlp.dmis.korea.edu/projects/biobert-2020-checkpoints/datasets.tar.gz",
    "datasets.tar.gz",
    None,
    "Lee et al. 2020, BioBERT: a pre-trained biomedical language representation model for "
    "biomedical text mining (Bioinformatics 36(4)); preprocessed datasets of dmis-lab/biobert",
)
LINKBERT = Source(
    "linkbert-blurb",
    "https://nlp.stanford.edu/projects/myasu/LinkBERT/data.zip",
    "data.zip",
    None,
    "Yasunaga, Leskovec, Liang 2022, LinkBERT: Pretraining Language Models with Document "
    "Links (ACL 2022); BLURB data as preprocessed in michiyasunaga/LinkBERT",
)
SOURCES = {source.name: source for source in (BIOBERT, LINKBERT)}

BLURB_CITATION = (
    "Gu et al. 2021, Domain-Specific Language Model Pretraining for Biomedical Natural "
    "Language Processing (ACM HEALTH 3(1)), the BLURB benchmark"
)
ENTITY_F1 = "f1"

_BIOBERT_NER = {
    # name: (folder in the archive, licence note, corpus citation)
    "ncbi-disease": (
        "NCBI-disease",
        "see the original corpus's terms",
        "Dogan et al. 2014, NCBI disease corpus",
    ),
    "bc5cdr-chem": (
        "BC5CDR-chem",
        "see the original corpus's terms",
        "Li et al. 2016, BioCreative V CDR task corpus",
    ),
    "bc5cdr-disease": (
        "BC5CDR-disease",
        "see the original corpus's terms",
        "Li et al. 2016, BioCreative V CDR task corpus",
    ),
    "bc2gm": (
        "BC2GM",
        "see the original corpus's terms",
        "Smith et al. 2008, Overview of BioCreative II gene mention recognition",
    ),
    "jnlpba": (
        "JNLPBA",
        "see the original corpus's terms",
        "Kim et al. 2004, Introduction to the bio-entity recognition task at JNLPBA",
    ),
    "bc4chemd": (
        "BC4CHEMD",
        "see the original corpus's terms",
        "Krallinger et al. 2015, The CHEMDNER corpus of chemicals and drugs",
    ),
    "linnaeus": (
        "linnaeus",
        "see the original corpus's terms",
        "Gerner et al. 2010, LINNAEUS: a species name identification system",
    ),
    "species-800": (
        "s800",
        "see the original corpus's terms",
        "Pafilis et al. 2013, The SPECIES and ORGANISMS resources",
    ),
}
_LINKBERT_NER = {
    # name: (folder under data/tokcls, licence note, corpus citation, metric)
    "blurb-bc5-chem": ("BC5CDR-chem_hf", *_BIOBERT_NER["bc5cdr-chem"][1:], ENTITY_F1),
    "blurb-bc5-disease": ("BC5CDR-disease_hf", *_BIOBERT_NER["bc5cdr-disease"][1:], ENTITY_F1),
    "blurb-ncbi-disease": ("NCBI-disease_hf", *_BIOBERT_NER["ncbi-disease"][1:], ENTITY_F1),
    "blurb-bc2gm": ("BC2GM_hf", *_BIOBERT_NER["bc2gm"][1:], ENTITY_F1),
    "blurb-jnlpba": ("JNLPBA_hf", *_BIOBERT_NER["jnlpba"][1:], ENTITY_F1),
    "blurb-ebm-pico": (
        "ebmnlp_hf",
        "see the original corpus's terms",
        "Nye et al. 2018, A Corpus with Multi-Level Annotations of Patients, "
        "Interventions and Outcomes (EBM-NLP)",
        "word_macro_f1",
    ),
}


def _splits(folder: str, names: Mapping[str, str], suffix: str) -> dict[str, str]:
    return {split: f"{folder}/{name}{suffix}" for split, name in names.items()}


def _registry() -> dict[str, Dataset]:
    datasets: list[Dataset] = []
    for name, (folder, licence, citation) in _BIOBERT_NER.items():
        datasets.append(
            Dataset(
                name,
                "ner",
                "biobert_tsv",
                licence,
                citation,
                ENTITY_F1,
                BIOBERT.name,
                members=_splits(
                    f"datasets/NER/{folder}",
                    {"train": "train", "dev": "devel", "test": "test"},
                    ".tsv",
                ),
            )
        )
    folds = tuple(str(fold) for fold in range(1, 11))
    for name, folder, licence, citation in (
        (
            "gad",
            "GAD",
            "see the original corpus's terms",
            "Bravo et al. 2015, Extraction of relations between genes and diseases from text",
        ),
        (
            "eu-adr",
            "euadr",
            "see the original corpus's terms",
            "van Mulligen et al. 2012, The EU-ADR corpus",
        ),
    ):
        datasets.append(
            Dataset(
                name,
                "re",
                "biobert_tsv",
                licence,
                citation,
                "binary_f1",
                BIOBERT.name,
                members=_splits(
                    f"datasets/RE/{folder}/{{fold}}", {"train": "train", "test": "test"}, ".tsv"
                ),
                folds=folds,
            )
        )
    datasets.append(
        Dataset(
            "bioasq-factoid-7b",
            "qa_factoid",
            "squad_json",
            "BioASQ terms: register at bioasq.org for use beyond research",
            "Tsatsaronis et al. 2015, An overview of the BIOASQ large-scale biomedical semantic "
            "indexing and question answering competition; BioASQ 7b as preprocessed by BioBERT",
            "mrr",
            BIOBERT.name,
            members={
                "train": "datasets/QA/BioASQ/BioASQ-train-factoid-7b.json",
                "test": "datasets/QA/BioASQ/BioASQ-test-factoid-7b.json",
                "golden": "datasets/QA/BioASQ/7B_golden.json",
            },
        )
    )
    linkbert_splits = {"train": "train", "dev": "dev", "test": "test"}
    for name, (folder, licence, citation, metric) in _LINKBERT_NER.items():
        datasets.append(
            Dataset(
                name,
                "ner",
                "biobert_tsv",
                licence,
                f"{citation}; {BLURB_CITATION}",
                metric,
                LINKBERT.name,
                "linkbert_tokens",
                members=_splits(f"data/tokcls/{folder}", linkbert_splits, ".json"),
                blurb_type="pico" if name == "blurb-ebm-pico" else "ner",
            )
        )
    for name, folder, family, fmt, converter, licence, citation, metric, task, kind in (
        (
            "blurb-chemprot",
            "chemprot_hf",
            "re",
            "blue_tsv",
            "linkbert_sentence",
            "see the original corpus's terms",
            "Krallinger et al. 2017, Overview of the BioCreative VI chemical-protein interaction "
            "track",
            "micro_f1",
            {"negative_label": "false"},
            "relation",
        ),
        (
            "blurb-ddi",
            "DDI_hf",
            "re",
            "blue_tsv",
            "linkbert_sentence",
            "see the original corpus's terms",
            "Herrero-Zazo et al. 2013, The DDI corpus",
            "micro_f1",
            {"negative_label": "DDI-false"},
            "relation",
        ),
        (
            "blurb-gad",
            "GAD_hf",
            "re",
            "blue_tsv",
            "linkbert_sentence",
            "see the original corpus's terms",
            "Bravo et al. 2015, Extraction of relations between genes and diseases from text",
            "micro_f1",
            {"negative_label": "0"},
            "relation",
        ),
        (
            "blurb-hoc",
            "HoC_hf",
            "dc",
            "hoc_tsv",
            "linkbert_hoc",
            "see the original corpus's terms",
            "Baker et al. 2016, Automatic semantic classification of scientific literature "
            "according to the hallmarks of cancer",
            "abstract_micro_f1",
            {},
            "classification",
        ),
        (
            "blurb-pubmedqa",
            "pubmedqa_hf",
            "nli",
            "mednli_jsonl",
            "linkbert_pair",
            "MIT (pubmedqa/pubmedqa LICENSE)",
            "Jin et al. 2019, PubMedQA: A Dataset for Biomedical Research Question Answering "
            "(reasoning-required setting)",
            "accuracy",
            {},
            "qa",
        ),
        (
            "blurb-bioasq",
            "bioasq_hf",
            "nli",
            "mednli_jsonl",
            "linkbert_pair",
            "BioASQ terms: register at bioasq.org for use beyond research",
            "Nentidis et al. 2019, Results of the seventh edition of the BioASQ challenge "
            "(yes/no questions)",
            "accuracy",
            {},
            "qa",
        ),
        (
            "blurb-biosses",
            "BIOSSES_hf",
            "similarity",
            "similarity_jsonl",
            "linkbert_pair",
            "see the original corpus's terms",
            "Sogancioglu et al. 2017, BIOSSES: a semantic sentence similarity estimation system "
            "for the biomedical domain",
            "pearson",
            {},
            "similarity",
        ),
    ):
        datasets.append(
            Dataset(
                name,
                family,
                fmt,
                licence,
                f"{citation}; {BLURB_CITATION}",
                metric,
                LINKBERT.name,
                converter,
                _splits(f"data/seqcls/{folder}", linkbert_splits, ".json"),
                task=task,
                blurb_type=kind,
            )
        )
    datasets += [
        Dataset(
            "mednli",
            "nli",
            "mednli_jsonl",
            "PhysioNet credentialed access (data use agreement)",
            "Romanov, Shivade 2018, Lessons from Natural Language Inference in the Clinical Domain",
            "accuracy",
            obtain="credentialed: sign the data use agreement at "
            "https://physionet.org/content/mednli/ and set the task's train/dev/test to "
            "mli_train_v1.jsonl, mli_dev_v1.jsonl, mli_test_v1.jsonl (family nli, format "
            "mednli_jsonl) instead of `dataset`",
        ),
        Dataset(
            "i2b2-2010",
            "ner",
            "conll",
            "n2c2 data use agreement",
            "Uzuner et al. 2011, 2010 i2b2/VA challenge on concepts, assertions, and relations "
            "in clinical text",
            ENTITY_F1,
            obtain="credentialed: request the 2010 i2b2/VA data from the n2c2 portal "
            "(https://portal.dbmi.hms.harvard.edu/projects/n2c2-nlp/), convert it to CoNLL "
            "columns and set the task's train/dev/test (family ner, format conll) instead of "
            "`dataset`",
        ),
    ]
    return {dataset.name: dataset for dataset in datasets}


DATASETS: dict[str, Dataset] = _registry()


def get_dataset(name: str) -> Dataset:
    """The registered dataset ``name``; an unknown name lists the known ones."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; registered: {sorted(DATASETS)}")
    return DATASETS[name]
