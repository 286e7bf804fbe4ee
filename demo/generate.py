"""Synthetic demo data: a PubMed-style corpus plus NER and RE tasks, and general-domain text.

Every word comes from the small hand-written lexicons and sentence templates in this
module, so the demo ships no third-party text. The output is a pure function of the
seed: ``python demo/generate.py --out demo`` rewrites the committed ``demo/`` folder
byte for byte (this script aside).

The corpus and the tasks draw on the same lexicons, so pretraining on the corpus helps
the tasks. Disease names are built from shared morphemes ("nephr" + "itis", "renal" +
"dystrophy", "Varden syndrome"); about a third of them never occur in NER training, so
recognising them needs context and subwords rather than lookup.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

from biocompact.files.atomic import atomic_path

DEFAULT_SEED = 2025
BASELINE_FILES = ("demo25n0001", "demo25n0002")
UPDATE_FILE = "demo25n0003"
ARTICLES_PER_BASELINE = 1500
REVISED, NEW_IN_UPDATE, DELETED = 100, 200, 40
NO_ABSTRACT_SHARE = 0.02
FIRST_PMID = 90_000_001  # far above real PMIDs
LAST_BASELINE_DAY = date(2024, 12, 15)
NER_SPLITS = {"train": 800, "devel": 200, "test": 300}
RE_SPLITS = {"train": 600, "dev": 200, "test": 300}
HELDOUT_DISEASE_SHARE = 0.3  # disease names never used in NER training
HELDOUT_MENTION_SHARE = 0.35  # share of devel/test mentions drawn from held-out names
RE_POSITIVE_SHARE = 0.4
RE_HELDOUT_TEMPLATE_SHARE = 0.25  # dev/test sentences phrased in ways train never shows
GENERAL_PASSAGES = 400  # general-domain passages (transfer data of task-specific distillation)
DOCTYPE = (
    '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" '
    '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">'
)

# --------------------------------------------------------------------------- lexicons

ROOTS = (
    "nephr",
    "hepat",
    "gastr",
    "arthr",
    "derm",
    "neur",
    "card",
    "mening",
    "myel",
    "encephal",
    "pancreat",
    "splen",
    "retin",
    "lymph",
    "thyr",
    "aden",
    "cyst",
    "laryng",
    "bronch",
    "col",
    "quor",
    "velt",
    "zyth",
    "pral",
    "norv",
    "tesc",
    "brav",
    "khel",
    "ostr",
    "fasc",
    "dulc",
    "marn",
    "sibr",
    "torq",
    "yend",
    "cerv",
)
SUFFIXES = ("itis", "oma", "opathy", "osis")
ORGAN_ADJECTIVES = (
    "renal",
    "hepatic",
    "cardiac",
    "neural",
    "gastric",
    "pulmonary",
    "cutaneous",
    "ocular",
    "vascular",
    "muscular",
    "biliary",
    "velteric",
    "quorial",
    "zythic",
)
HEADS = (
    "syndrome",
    "dystrophy",
    "fibrosis",
    "carcinoma",
    "insufficiency",
    "atrophy",
    "dysplasia",
    "sclerosis",
)
NAME_MODIFIERS = (
    "chronic",
    "acute",
    "familial",
    "juvenile",
    "hereditary",
    "idiopathic",
    "congenital",
    "progressive",
    "recurrent",
)
SURNAMES = (
    "Varden",
    "Holstrom",
    "Kessick",
    "Marlowe",
    "Tennby",
    "Orvik",
    "Draskin",
    "Pellan",
    "Wexford",
    "Quillon",
    "Saberg",
    "Brannock",
    "Fjelder",
    "Castell",
    "Ambrel",
    "Ostrand",
    "Neyra",
    "Tavik",
    "Lomberg",
    "Ruskell",
)
EPONYM_HEADS = ("syndrome", "disease", "anomaly")
FORENAMES = (
    "Aren",
    "Belka",
    "Corin",
    "Dalia",
    "Evrim",
    "Fenna",
    "Goran",
    "Hilde",
    "Imre",
    "Jovan",
    "Kaia",
    "Lior",
    "Mira",
    "Nilo",
    "Oskar",
    "Petra",
    "Quilla",
    "Rune",
    "Saskia",
    "Tomas",
    "Ulla",
    "Vesna",
    "Wren",
    "Yara",
    "Zeno",
)
AUTHOR_SYLLABLES = (
    "Ka",
    "Vel",
    "Mor",
    "Tan",
    "Ris",
    "Lo",
    "Ben",
    "Dra",
    "Sel",
    "Quin",
    "Har",
    "Ost",
)
AUTHOR_ENDINGS = ("berg", "son", "ani", "ova", "ez", "ler", "ström", "ard", "enko", "uchi")
GENE_LETTERS = "ABCDEFGHKLMNPRSTVWXZ"
GENE_DESCRIPTORS = (
    "kinase",
    "receptor",
    "phosphatase",
    "ligase",
    "transporter",
    "channel",
    "binding protein",
    "oxidase",
    "reductase",
    "synthase",
)
DRUG_STEMS = (
    "ventra",
    "lorim",
    "cefo",
    "prazo",
    "tadu",
    "zolmi",
    "bexa",
    "orlen",
    "quita",
    "dapro",
    "nivo",
    "halo",
)
DRUG_SUFFIXES = ("mab", "nib", "pril", "statin", "azole", "mycin", "olol", "sartan", "parin", "vir")
COMMON_CHEMICALS = (
    "glucose",
    "insulin",
    "ethanol",
    "cisplatin",
    "lipopolysaccharide",
    "hydrogen peroxide",
    "doxycycline",
    "retinoic acid",
    "vitamin D",
    "sodium chloride",
)
CELLS = (
    "macrophages",
    "T cells",
    "B cells",
    "fibroblasts",
    "hepatocytes",
    "keratinocytes",
    "cardiomyocytes",
    "neurons",
    "astrocytes",
    "endothelial cells",
    "epithelial cells",
    "podocytes",
    "osteoblasts",
    "monocytes",
    "stem cells",
)
BACTERIA = ("E. coli", "S. aureus", "P. veltaris", "B. quorensis", "S. cerevisiae")
MODEL_ORGANISMS = ("C. elegans", "D. melanogaster", "M. musculus", "D. rerio")
ANIMALS = ("mice", "rats", "zebrafish", "rabbits", "transgenic mice")
TISSUES = (
    "kidney",
    "liver",
    "lung",
    "skin",
    "retina",
    "bone marrow",
    "spleen",
    "heart",
    "brain",
    "colon",
)
PROCESSES = (
    "apoptosis",
    "autophagy",
    "cell migration",
    "inflammation",
    "angiogenesis",
    "oxidative stress",
    "lipid metabolism",
    "DNA repair",
    "insulin signalling",
    "T cell activation",
    "mitochondrial biogenesis",
)
FEATURES = (
    "progressive degeneration",
    "chronic inflammation",
    "fibrotic remodelling",
    "aberrant proliferation",
    "impaired regeneration",
    "recurrent infections",
)
FREQUENCIES = ("rare", "common", "heterogeneous", "poorly understood", "life-threatening")
POPULATIONS = (
    "Han Chinese",
    "Caucasian",
    "Japanese",
    "Brazilian",
    "Finnish",
    "Korean",
    "Iranian",
    "Turkish",
    "Mexican",
)
VERBS = (  # (third person, past)
    ("inhibits", "inhibited"),
    ("upregulates", "upregulated"),
    ("downregulates", "downregulated"),
    ("activates", "activated"),
    ("suppresses", "suppressed"),
    ("phosphorylates", "phosphorylated"),
    ("stabilizes", "stabilized"),
    ("promotes", "promoted"),
    ("attenuates", "attenuated"),
)
MEASURES = (
    ("body weight", "kg"),
    ("systolic blood pressure", "mmHg"),
    ("serum creatinine", "mg/dL"),
    ("fasting glucose", "mmol/L"),
    ("ejection fraction", "%"),
    ("tumour volume", "mm3"),
)
STAT_TESTS = (
    "Student's t-test",
    "the Mann-Whitney U test",
    "Fisher's exact test",
    "the log-rank test",
)
AMINO_ACIDS = (
    "Ala",
    "Arg",
    "Asn",
    "Asp",
    "Cys",
    "Gln",
    "Glu",
    "Gly",
    "His",
    "Ile",
    "Leu",
    "Lys",
    "Met",
    "Pro",
    "Ser",
    "Thr",
    "Val",
)
HISTORY_DAYS_BEFORE_COMPLETION = (
    ("received", 150),
    ("accepted", 60),
    ("entrez", 20),
    ("pubmed", 20),
    ("medline", 0),
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
JOURNALS = (  # (title, ISO abbreviation, country)
    ("Journal of Synthetic Molecular Medicine", "J Synth Mol Med", "United States"),
    ("Annals of Invented Nephrology", "Ann Invent Nephrol", "England"),
    ("Demo Reports in Cell Biology", "Demo Rep Cell Biol", "Netherlands"),
    ("Archives of Imaginary Pathology", "Arch Imag Pathol", "Germany"),
    ("Fictional Genetics Letters", "Fict Genet Lett", "United States"),
    ("International Journal of Placeholder Oncology", "Int J Placeholder Oncol", "Switzerland"),
    ("Mock Clinical Investigation", "Mock Clin Invest", "United States"),
    ("Hypothetical Immunology", "Hypothet Immunol", "Japan"),
    ("Translational Sandbox Research", "Transl Sandbox Res", "England"),
    (
        "Proceedings of the Nonexistent Society of Medicine",
        "Proc Nonexist Soc Med",
        "United States",
    ),
)
OTHER_LANGUAGES = ("ger", "fre", "spa", "jpn")
PUBLICATION_TYPES = {
    "Journal Article": "D900101",
    "Review": "D900102",
    "Randomized Controlled Trial": "D900103",
    "Case Reports": "D900104",
    "Comment": "D900105",
    "Letter": "D900106",
    "Editorial": "D900107",
}
MESH_CHECK_TAGS = (
    "Humans",
    "Animals",
    "Mice",
    "Female",
    "Male",
    "Adult",
    "Middle Aged",
    "Signal Transduction",
)

# --------------------------------------------------------------------------- templates
# Slots: {disease} {disease_abbr} {gene} {protein} {chem} {cell} {bacterium} {organism}
# {animal} {tissue} {process} {feature} {freq} {pop} {verb} {verbed} {measure} {unit}
# {test} {variant} {surname} {year} {n} {age} {dec} {pct} {fold} {p} {p_ns} {odds}
# {fig} {dose} {hours}. In RE templates {GENE} and {DISEASE} are the masked pair.

SECTIONS: dict[str, tuple[str, ...]] = {
    "BACKGROUND": (
        "{disease} is a {freq} disorder characterized by {feature} of the {tissue}.",
        "Previous studies (e.g. {surname} et al., {year}) have shown that {gene} is involved in {disease}.",
        "{protein} {verb} {gene} signalling in {cell}, but its role in {disease} remains unclear.",
        "Mutations in {gene} have been reported in patients with {disease} and {disease}.",
        "The {gene} pathway, i.e. the {protein} cascade, regulates {process} in {cell}.",
        "{disease_abbr} affects approximately {pct}% of adults over {age} years of age.",
        "Despite advances in treatment, the prognosis of {disease} remains poor.",
        "Recent work in {organism} and {animal} suggests a conserved function of {gene} in {process}.",
        "Elevated levels of {chem} have been linked to {disease} in several cohorts ({surname} et al., {year}; {surname} and {surname}, {year}).",
        "{gene} is expressed in {cell} of the {tissue} and {verb} {process}.",
    ),
    "OBJECTIVE": (
        "Here, we investigated the role of {gene} in {disease}.",
        "The aim of this study was to evaluate whether {chem} attenuates {disease} in {animal}.",
        "We aimed to identify novel regulators of {process} in {cell} derived from patients with {disease}.",
        "This study examined the association between {gene} expression and clinical outcome in {disease_abbr}.",
    ),
    "METHODS": (
        "We enrolled {n} patients with {disease_abbr} and {n} healthy controls.",
        "{cell} were treated with {chem} ({dose}) for {hours} h and analysed by western blotting.",
        "{gene} knockout {animal} were generated and compared with wild-type littermates.",
        "Expression of {gene} and {gene} was measured by quantitative PCR in {tissue} biopsies.",
        "Recombinant {protein} was expressed in {bacterium} and purified by affinity chromatography.",
        "Differences between groups were assessed with {test} (approx. {n} samples per group).",
        "Genotyping of {gene} variants was performed in {n} cases of {disease} and {n} controls.",
    ),
    "RESULTS": (
        "{gene} expression was increased {fold}-fold in {tissue} from patients with {disease} ({p}).",
        "Treatment with {chem} reduced the severity of {disease} by {pct}% (n = {n}; {p}).",
        "Knockdown of {gene} in {cell} {verbed} {gene} phosphorylation and increased apoptosis (Fig. {fig}).",
        "Mean {measure} was {dec} ± {dec} {unit} in patients vs. {dec} ± {dec} {unit} in controls ({p}).",
        "{protein} {verbed} the proliferation of {cell}, whereas {chem} had no effect (Fig. {fig}).",
        "In {animal}, loss of {gene} resulted in {disease} by {age} weeks of age.",
        "Patients with {disease} had higher serum {chem} concentrations than those with {disease} ({p}).",
        "No significant difference in {gene} levels was observed between groups (p = {p_ns}).",
        "Similar results were obtained in {bacterium} (Fig. {fig}).",
        "The incidence of {disease} was {pct}% in the {chem} group vs. {pct}% in the placebo group.",
    ),
    "CONCLUSIONS": (
        "These findings suggest that {gene} is a potential therapeutic target in {disease}.",
        "Our results indicate that {chem} may be beneficial for patients with {disease}, i.e. those with {feature}.",
        "{gene} {verb} {gene} and thereby contributes to {disease}.",
        "Further studies are needed to clarify the role of {protein} in {disease}.",
        "Taken together, {gene} promotes {process} and may accelerate {disease}.",
    ),
}
TITLES = (
    "{gene} {verb} {process} in {disease}.",
    "Role of {protein} in the pathogenesis of {disease}.",
    "{chem} attenuates {disease} in {animal} via {gene}-dependent signalling.",
    "Association of {gene} polymorphisms with {disease} in {pop} patients.",
    "Loss of {gene} promotes {disease} through {protein} activation.",
    "{disease}: clinical features and outcome in {n} patients.",
)
LABEL_VARIANTS = {  # structured-abstract label -> NlmCategory
    "BACKGROUND": ("BACKGROUND", "INTRODUCTION"),
    "OBJECTIVE": ("OBJECTIVE", "AIMS"),
    "METHODS": ("METHODS", "MATERIALS AND METHODS"),
    "RESULTS": ("RESULTS",),
    "CONCLUSIONS": ("CONCLUSIONS", "CONCLUSION"),
}
RE_PREFIXES = (
    "",
    "",
    "",
    "In this case-control study, ",
    "In a cohort of {n} {pop} subjects, ",
    "Interestingly, ",
    "Overall, ",
    "In the replication sample, ",
)
RE_TEMPLATES: dict[int, tuple[str, ...]] = {
    1: (
        "{GENE} polymorphisms were associated with increased risk of {DISEASE}.",
        "the {variant} allele of {GENE} was significantly associated with {DISEASE} ({odds}; {p}).",
        "our results suggest that {GENE} may contribute to susceptibility to {DISEASE} in the {pop} population.",
        "carriers of the {GENE} {variant} variant had a higher frequency of {DISEASE} than non-carriers ({p}).",
        "{GENE} genotype was an independent predictor of {DISEASE} after adjustment for age and sex.",
        "a significant association between {GENE} and {DISEASE} was observed in {n} cases and {n} controls.",
        "these data indicate that variation in {GENE} is a risk factor for {DISEASE}.",
        "although {GENE} was not previously implicated, the {variant} polymorphism conferred susceptibility to {DISEASE}.",
        "no association was found for {gene}, whereas {GENE} was strongly associated with {DISEASE}.",
        "the {GENE} {variant} polymorphism may play a role in the pathogenesis of {DISEASE}.",
        "{GENE} was associated with {DISEASE}, but not with {disease}.",
        "{DISEASE} risk was significantly higher among homozygous carriers of the {GENE} {variant} genotype.",
        "we did not observe heterogeneity between studies, and {GENE} remained associated with {DISEASE} ({p}).",
        "{DISEASE} was linked to the {GENE} {variant} variant in both cohorts.",
    ),
    0: (
        "{GENE} polymorphisms were not associated with {DISEASE} risk.",
        "no significant association was found between the {GENE} {variant} polymorphism and {DISEASE} (p = {p_ns}).",
        "we investigated whether {GENE} variants are associated with susceptibility to {DISEASE}.",
        "the aim of this study was to examine the role of {GENE} in {DISEASE}.",
        "our data do not support a role for {GENE} in the development of {DISEASE}.",
        "although {GENE} has been linked to {DISEASE} in earlier reports, we found no evidence of an association in our cohort.",
        "{GENE} expression was measured in {n} patients with {DISEASE} using quantitative PCR.",
        "genotyping of {GENE} was performed in {n} patients with {DISEASE} and {n} controls.",
        "the frequency of the {variant} variant of {GENE} did not differ between {DISEASE} cases and controls.",
        "after correction for multiple testing, the association between {GENE} and {DISEASE} was no longer significant.",
        "neither {GENE} nor {gene} genotypes showed any association with {DISEASE}.",
        "it remains unclear whether {GENE} contributes to {DISEASE}.",
        "{GENE} was associated with {disease}, but not with {DISEASE}.",
        "{DISEASE} patients were genotyped for the {GENE} {variant} polymorphism, which was not related to disease severity.",
    ),
}
RE_HELDOUT_TEMPLATES: dict[int, tuple[str, ...]] = {  # paraphrases seen only in dev/test
    1: (
        "{GENE} variants conferred a {fold}-fold increased risk of {DISEASE}.",
        "the risk of {DISEASE} was elevated in subjects carrying the {GENE} {variant} allele ({p}).",
        "we provide evidence that {GENE} is a susceptibility gene for {DISEASE}.",
    ),
    0: (
        "there was no evidence that {GENE} variants influence the risk of {DISEASE}.",
        "we genotyped {n} {pop} subjects with {DISEASE} for {GENE} polymorphisms.",
        "the {GENE} {variant} polymorphism is unlikely to be a major risk factor for {DISEASE}.",
    ),
}
SLOT = re.compile(r"\{(\w+)\}")
TOKEN = re.compile(r"\w+|[^\w\s]")

Segment = tuple[str, bool]  # (text, is a disease mention)
Tagged = list[tuple[str, str]]  # (token, B/I/O tag) per token


# --------------------------------------------------------------------------- lexicon


@dataclass(frozen=True)
class Lexicon:
    """Generated names shared by the corpus and the tasks."""

    diseases: tuple[str, ...]
    heldout: tuple[str, ...]  # disease names kept out of NER training
    genes: tuple[str, ...]
    chemicals: tuple[str, ...]

    @property
    def seen(self) -> tuple[str, ...]:
        held = set(self.heldout)
        return tuple(name for name in self.diseases if name not in held)


def _gene_symbol(rng: random.Random) -> str:
    letters = "".join(rng.choice(GENE_LETTERS) for _ in range(rng.randint(2, 4)))
    separator = "-" if rng.random() < 0.25 else ""
    return f"{letters}{separator}{rng.randint(1, 19)}{rng.choice(('', '', '', 'A', 'B'))}"


def _disease_name(rng: random.Random, genes: Sequence[str]) -> str:
    single = rng.choice(ROOTS) + rng.choice(SUFFIXES)
    organ = f"{rng.choice(ORGAN_ADJECTIVES)} {rng.choice(HEADS)}"
    forms = (
        lambda: single,
        lambda: f"{rng.choice(NAME_MODIFIERS)} {single}",
        lambda: organ,
        lambda: f"{rng.choice(NAME_MODIFIERS)} {organ}",
        lambda: f"{rng.choice(SURNAMES)} {rng.choice(EPONYM_HEADS)}",
        lambda: f"{rng.choice(SURNAMES)}-{rng.choice(SURNAMES)} syndrome",
        lambda: f"{rng.choice([g for g in genes if '-' not in g])} deficiency",
        lambda: f"{rng.choice(SURNAMES)} syndrome type {rng.randint(1, 4)}",
    )
    return rng.choices(forms, weights=(5, 3, 4, 2, 2, 1, 1, 1))[0]()


def _unique(draw: Callable[[], str], count: int, max_tokens: int = 4) -> tuple[str, ...]:
    """``count`` distinct names of at most ``max_tokens`` BioBERT tokens, in drawing order."""
    names: dict[str, None] = {}
    while len(names) < count:
        name = draw()
        if len(TOKEN.findall(name)) <= max_tokens:
            names[name] = None
    return tuple(names)


def build_lexicon(rng: random.Random) -> Lexicon:
    """Draw gene, chemical and disease names; hold out a share of the diseases."""
    genes = _unique(lambda: _gene_symbol(rng), 160)
    drugs = _unique(lambda: rng.choice(DRUG_STEMS) + rng.choice(DRUG_SUFFIXES), 40)
    diseases = _unique(lambda: _disease_name(rng, genes), 600)
    heldout = tuple(rng.sample(diseases, round(HELDOUT_DISEASE_SHARE * len(diseases))))
    return Lexicon(diseases, heldout, genes, drugs + COMMON_CHEMICALS)


def abbreviation(name: str) -> str:
    """Initials of a multi-word name, e.g. "familial renal dystrophy" -> "FRD"."""
    return "".join(word[0].upper() for word in re.findall(r"[A-Za-z]\w*", name))


# --------------------------------------------------------------------------- rendering


class Filler:
    """Fills template slots from the lexicon; disease names come from the given pools."""

    def __init__(
        self,
        rng: random.Random,
        lexicon: Lexicon,
        diseases: Sequence[str],
        rare_diseases: Sequence[str] = (),
        rare_share: float = 0.0,
        masks: bool = False,
    ) -> None:
        self.rng, self.lexicon, self.masks = rng, lexicon, masks
        self.diseases, self.rare_diseases, self.rare_share = diseases, rare_diseases, rare_share

    def disease(self) -> str:
        pool = self.rare_diseases if self.rng.random() < self.rare_share else self.diseases
        return self.rng.choice(pool)

    def __call__(self, slot: str) -> list[Segment]:
        if slot == "disease":
            return [(self.disease(), True)]
        if slot == "disease_abbr":
            name = self.disease()
            short = abbreviation(name)
            if len(short) < 2 or " " not in name:
                return [(name, True)]
            return [(name, True), (" (", False), (short, True), (")", False)]
        if slot == "DISEASE":
            return [("@DISEASE$", False)] if self.masks else [(self.disease(), True)]
        if slot == "GENE" and self.masks:
            return [("@GENE$", False)]
        return [(self.value(slot), False)]

    def value(self, slot: str) -> str:
        rng, lexicon = self.rng, self.lexicon
        simple = {
            "chem": lexicon.chemicals,
            "cell": CELLS,
            "bacterium": BACTERIA,
            "organism": MODEL_ORGANISMS,
            "animal": ANIMALS,
            "tissue": TISSUES,
            "process": PROCESSES,
            "feature": FEATURES,
            "freq": FREQUENCIES,
            "pop": POPULATIONS,
            "test": STAT_TESTS,
            "surname": SURNAMES,
            "gene": lexicon.genes,
            "GENE": lexicon.genes,
        }
        if slot in simple:
            return rng.choice(simple[slot])
        makers: dict[str, Callable[[], str]] = {
            "protein": lambda: f"{rng.choice(lexicon.genes)} {rng.choice(GENE_DESCRIPTORS)}",
            "verb": lambda: rng.choice(VERBS)[0],
            "verbed": lambda: rng.choice(VERBS)[1],
            "measure": lambda: rng.choice(MEASURES)[0],
            "unit": lambda: rng.choice(MEASURES)[1],
            "variant": lambda: self.variant(),
            "year": lambda: str(rng.randint(1995, 2014)),
            "n": lambda: str(rng.randint(12, 2400)),
            "age": lambda: str(rng.randint(4, 70)),
            "dec": lambda: f"{rng.uniform(0.1, 150):.{rng.randint(1, 2)}f}",
            "pct": lambda: f"{rng.uniform(1, 80):.1f}",
            "fold": lambda: f"{rng.uniform(1.5, 12):.1f}",
            "p": lambda: rng.choice(("p < 0.05", "p < 0.01", "p < 0.001", "P = 0.03", "p = 0.002")),
            "p_ns": lambda: f"0.{rng.randint(12, 94)}",
            "odds": lambda: self.odds_ratio(),
            "fig": lambda: f"{rng.randint(1, 6)}{rng.choice(('', 'A', 'B', 'C'))}",
            "dose": lambda: (
                f"{rng.choice((1, 5, 10, 25, 50, 100))} {rng.choice(('mg/kg', 'nM', 'mM'))}"
            ),
            "hours": lambda: str(rng.choice((6, 12, 24, 48, 72))),
        }
        return makers[slot]()

    def odds_ratio(self) -> str:
        ratio = self.rng.uniform(1.1, 3.5)
        low, high = ratio * self.rng.uniform(0.5, 0.9), ratio * self.rng.uniform(1.1, 1.8)
        return f"OR = {ratio:.2f}; 95% CI, {low:.2f}-{high:.2f}"

    def variant(self) -> str:
        rng = self.rng
        forms = (
            lambda: f"rs{rng.randint(1_000_000, 99_999_999)}",
            lambda: f"{rng.choice(AMINO_ACIDS)}{rng.randint(10, 900)}{rng.choice(AMINO_ACIDS)}",
            lambda: f"-{rng.randint(100, 2000)}{rng.choice('ACGT')}>{rng.choice('ACGT')}",
        )
        return rng.choice(forms)()


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def render(template: str, fill: Callable[[str], list[Segment]]) -> list[Segment]:
    """Expand a template into segments; the sentence starts with a capital letter."""
    segments: list[Segment] = []
    for index, part in enumerate(SLOT.split(template)):
        if index % 2:
            segments.extend(fill(part))
        elif part:
            segments.append((part, False))
    text, is_disease = segments[0]
    segments[0] = (_capitalised(text), is_disease)
    return segments


def plain(segments: Iterable[Segment]) -> str:
    return "".join(text for text, _ in segments)


def tagged(segments: Iterable[Segment]) -> Tagged:
    """BioBERT-style tokens (punctuation split off) with B/I/O disease tags."""
    pairs: Tagged = []
    for text, is_disease in segments:
        tokens = TOKEN.findall(text)
        tags = ["B"] + ["I"] * (len(tokens) - 1) if is_disease else ["O"] * len(tokens)
        pairs.extend(zip(tokens, tags))
    return pairs


def re_template(rng: random.Random, label: int, heldout_share: float = 0.0) -> str:
    """An RE template for ``label``; a share of them from the dev/test-only paraphrases."""
    pool = RE_HELDOUT_TEMPLATES if rng.random() < heldout_share else RE_TEMPLATES
    return rng.choice(RE_PREFIXES) + rng.choice(pool[label])


# --------------------------------------------------------------------------- PubMed XML


@dataclass(frozen=True)
class Citation:
    """The parts of one generated PubMed record."""

    pmid: int
    year: int
    title: str
    abstract: tuple[tuple[str | None, str], ...] | None  # (label or None, text) per section
    journal: int
    language: str
    publication_type: str
    authors: tuple[tuple[str, str], ...]  # (last name, forename)
    mesh: tuple[str, ...]
    status: str
    completed: date  # also gives the issue month and the history dates
    revised: date
    version: int = 1


def _sentences(rng: random.Random, fill: Filler) -> list[tuple[str, str]]:
    """5-10 (section, sentence) pairs; results sometimes report gene-disease associations."""
    counts = {
        "BACKGROUND": rng.randint(1, 2),
        "OBJECTIVE": rng.randint(0, 1),
        "METHODS": rng.randint(1, 2),
        "RESULTS": rng.randint(2, 4),
        "CONCLUSIONS": 1,
    }
    out: list[tuple[str, str]] = []
    for section, count in counts.items():
        for _ in range(count):
            if section == "RESULTS" and rng.random() < 0.3:
                template = re_template(rng, int(rng.random() < 0.6), heldout_share=0.2)
            else:
                template = rng.choice(SECTIONS[section])
            out.append((section, plain(render(template, fill))))
    return out


def _abstract(rng: random.Random, fill: Filler) -> tuple[tuple[str | None, str], ...]:
    sentences = _sentences(rng, fill)
    if rng.random() >= 0.25:
        return ((None, " ".join(text for _, text in sentences)),)
    sections: dict[str, list[str]] = {}
    for section, text in sentences:
        sections.setdefault(section, []).append(text)
    return tuple((section, " ".join(texts)) for section, texts in sections.items())


def _author(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.3:
        return rng.choice(SURNAMES), rng.choice(FORENAMES)
    return rng.choice(AUTHOR_SYLLABLES) + rng.choice(AUTHOR_ENDINGS), rng.choice(FORENAMES)


def make_citation(rng: random.Random, lexicon: Lexicon, pmid: int, year: int) -> Citation:
    """One record; about 2% have no abstract (comments, letters, editorials)."""
    fill = Filler(rng, lexicon, lexicon.diseases)
    has_abstract = rng.random() >= NO_ABSTRACT_SHARE
    language = "eng" if rng.random() < 0.96 else rng.choice(OTHER_LANGUAGES)
    title = plain(render(rng.choice(TITLES), fill))
    if language != "eng":
        title = f"[{title}]"
    if has_abstract:
        kinds = ("Journal Article", "Review", "Randomized Controlled Trial", "Case Reports")
        kind = rng.choices(kinds, weights=(80, 10, 5, 5))[0]
    else:
        kind = rng.choice(("Comment", "Letter", "Editorial"))
    completed = date(year, rng.randint(1, 12), rng.randint(1, 28))
    mesh = (_capitalised(rng.choice(lexicon.diseases)), *sorted(rng.sample(MESH_CHECK_TAGS, 3)))
    return Citation(
        pmid=pmid,
        year=year,
        title=title,
        abstract=_abstract(rng, fill) if has_abstract else None,
        journal=rng.randrange(len(JOURNALS)),
        language=language,
        publication_type=kind,
        authors=tuple(_author(rng) for _ in range(rng.randint(1, 8))),
        mesh=mesh,
        status=rng.choices(("MEDLINE", "PubMed-not-MEDLINE"), weights=(85, 15))[0],
        completed=completed,
        revised=min(completed + timedelta(days=rng.randint(1, 700)), LAST_BASELINE_DAY),
    )


def _child(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    element.text = text
    return element


def _date(parent: ET.Element, tag: str, day: date, padded: bool = True, **attributes: str) -> None:
    element = _child(parent, tag, **attributes)
    width = 2 if padded else 1
    _child(element, "Year", str(day.year))
    _child(element, "Month", f"{day.month:0{width}d}")
    _child(element, "Day", f"{day.day:0{width}d}")


def article_xml(citation: Citation) -> str:
    """A ``PubmedArticle`` element in NCBI's layout, serialised on one line."""
    c = citation
    title, iso, country = JOURNALS[c.journal]
    issn = f"90{c.journal:02d}-{1000 + 37 * c.journal:04d}"
    month = c.completed.month
    doi = f"10.5555/demo.{c.year}.{c.pmid}"
    root = ET.Element("PubmedArticle")
    indexing = {"IndexingMethod": "Automated"} if c.status == "MEDLINE" else {}
    medline = _child(root, "MedlineCitation", Status=c.status, **indexing, Owner="NLM")
    _child(medline, "PMID", str(c.pmid), Version=str(c.version))
    if c.status == "MEDLINE":
        _date(medline, "DateCompleted", c.completed)
    _date(medline, "DateRevised", c.revised)
    article = _child(medline, "Article", PubModel="Print" if c.pmid % 3 else "Print-Electronic")
    journal = _child(article, "Journal")
    _child(journal, "ISSN", issn, IssnType="Print")
    issue = _child(journal, "JournalIssue", CitedMedium="Print")
    _child(issue, "Volume", str(c.year - 1990 + c.journal))
    _child(issue, "Issue", str(month))
    pub_date = _child(issue, "PubDate")
    _child(pub_date, "Year", str(c.year))
    _child(pub_date, "Month", MONTHS[month - 1])
    _child(journal, "Title", title)
    _child(journal, "ISOAbbreviation", iso)
    _child(article, "ArticleTitle", c.title)
    first_page = c.pmid % 900 + 1
    _child(
        _child(article, "Pagination"), "MedlinePgn", f"{first_page}-{first_page + c.pmid % 11 + 2}"
    )
    _child(article, "ELocationID", doi, EIdType="doi", ValidYN="Y")
    if c.abstract is not None:
        abstract = _child(article, "Abstract")
        for label, text in c.abstract:
            if label is None:
                _child(abstract, "AbstractText", text)
            else:
                shown = LABEL_VARIANTS[label][c.pmid % len(LABEL_VARIANTS[label])]
                _child(abstract, "AbstractText", text, Label=shown, NlmCategory=label)
    authors = _child(article, "AuthorList", CompleteYN="Y")
    for last, fore in c.authors:
        author = _child(authors, "Author", ValidYN="Y")
        _child(author, "LastName", last)
        _child(author, "ForeName", fore)
        _child(author, "Initials", fore[0])
    _child(article, "Language", c.language)
    types = _child(article, "PublicationTypeList")
    _child(types, "PublicationType", c.publication_type, UI=PUBLICATION_TYPES[c.publication_type])
    info = _child(medline, "MedlineJournalInfo")
    _child(info, "Country", country)
    _child(info, "MedlineTA", iso)
    _child(info, "NlmUniqueID", f"9{c.journal:02d}0{c.journal * 7:04d}")
    _child(info, "ISSNLinking", issn)
    headings = _child(medline, "MeshHeadingList")
    for index, term in enumerate(c.mesh):
        heading = _child(headings, "MeshHeading")
        _child(
            heading,
            "DescriptorName",
            term,
            UI=f"D9{sum(map(ord, term)) * 31 % 100000:05d}",
            MajorTopicYN="Y" if index == 0 else "N",
        )
    pubmed_data = _child(root, "PubmedData")
    history = _child(pubmed_data, "History")
    for status, days in HISTORY_DAYS_BEFORE_COMPLETION:
        day = c.completed - timedelta(days=days)
        _date(history, "PubMedPubDate", day, padded=False, PubStatus=status)
    _child(pubmed_data, "PublicationStatus", "ppublish")
    ids = _child(pubmed_data, "ArticleIdList")
    _child(ids, "ArticleId", str(c.pmid), IdType="pubmed")
    _child(ids, "ArticleId", doi, IdType="doi")
    return ET.tostring(root, encoding="unicode")


def pubmed_xml(citations: Sequence[Citation], deleted: Sequence[int] = ()) -> str:
    """A whole ``PubmedArticleSet`` file, with a ``DeleteCitation`` block when given."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', DOCTYPE, "<PubmedArticleSet>"]
    lines += [article_xml(citation) for citation in citations]
    if deleted:
        pmids = "".join(f'<PMID Version="1">{pmid}</PMID>' for pmid in deleted)
        lines.append(f"<DeleteCitation>{pmids}</DeleteCitation>")
    lines.append("</PubmedArticleSet>")
    return "\n".join(lines) + "\n"


def build_pubmed(
    rng: random.Random, lexicon: Lexicon
) -> tuple[dict[str, list[Citation]], list[int]]:
    """Citations per file name, and the baseline PMIDs the update file deletes."""
    total = ARTICLES_PER_BASELINE * len(BASELINE_FILES)
    pmids, pmid = [], FIRST_PMID
    for _ in range(total + NEW_IN_UPDATE):
        pmids.append(pmid)
        pmid += rng.randint(1, 40)
    years = sorted(rng.randint(2015, 2024) for _ in range(total))
    baseline = [make_citation(rng, lexicon, pmid, year) for pmid, year in zip(pmids, years)]
    files = {
        name: baseline[i * ARTICLES_PER_BASELINE : (i + 1) * ARTICLES_PER_BASELINE]
        for i, name in enumerate(BASELINE_FILES)
    }
    with_abstract = [c for c in baseline if c.abstract is not None]
    touched = rng.sample(with_abstract, REVISED + DELETED)
    revised = [
        replace(
            make_citation(rng, lexicon, old.pmid, old.year),
            journal=old.journal,
            revised=LAST_BASELINE_DAY + timedelta(days=rng.randint(20, 90)),
            version=2 if rng.random() < 0.3 else 1,
        )
        for old in touched[:REVISED]
    ]
    new = [make_citation(rng, lexicon, pmid, 2024) for pmid in pmids[total:]]
    files[UPDATE_FILE] = sorted(revised + new, key=lambda c: c.pmid)
    return files, sorted(c.pmid for c in touched[REVISED:])


# --------------------------------------------------------------------------- tasks


def ner_sentences(rng: random.Random, lexicon: Lexicon, split: str, count: int) -> list[Tagged]:
    """Tagged sentences; devel/test draw a share of mentions from held-out names."""
    if split == "train":
        fill = Filler(rng, lexicon, lexicon.seen)
    else:
        fill = Filler(rng, lexicon, lexicon.seen, lexicon.heldout, HELDOUT_MENTION_SHARE)
    templates = [t for section in SECTIONS.values() for t in section] + list(TITLES)
    with_disease = [t for t in templates if "{disease" in t]
    with_disease += [t for group in RE_TEMPLATES.values() for t in group]
    without = [t for t in templates if "{disease" not in t]
    sentences = []
    for _ in range(count):
        template = rng.choice(with_disease if rng.random() < 0.8 else without)
        sentences.append(tagged(render(template, fill)))
    return sentences


def ner_tsv(sentences: Iterable[Tagged]) -> str:
    """One ``token<TAB>tag`` line per token, each sentence followed by a blank line."""
    return "".join(
        "".join(f"{token}\t{tag}\n" for token, tag in sentence) + "\n" for sentence in sentences
    )


def re_rows(rng: random.Random, lexicon: Lexicon, split: str, count: int) -> list[tuple[str, int]]:
    """GAD-style (sentence with @GENE$/@DISEASE$ masks, label) rows."""
    fill = Filler(rng, lexicon, lexicon.diseases, masks=True)
    heldout_share = 0.0 if split == "train" else RE_HELDOUT_TEMPLATE_SHARE
    rows = []
    for _ in range(count):
        label = int(rng.random() < RE_POSITIVE_SHARE)
        rows.append((plain(render(re_template(rng, label, heldout_share), fill)), label))
    return rows


def re_tsv(rows: Sequence[tuple[str, int]], indexed: bool) -> str:
    if not indexed:
        return "".join(f"{sentence}\t{label}\n" for sentence, label in rows)
    body = "".join(
        f"{index}\t{sentence}\t{label}\n" for index, (sentence, label) in enumerate(rows)
    )
    return "index\tsentence\tlabel\n" + body


# --------------------------------------------------------------------------- general-domain text

GENERAL_WORDS = {
    "person": (
        "my neighbour",
        "the teacher",
        "a young farmer",
        "the old fisherman",
        "our guide",
        "the baker",
        "a local artist",
        "the team captain",
        "my grandmother",
        "the mayor",
    ),
    "place": (
        "the harbour",
        "the market square",
        "the mountain village",
        "the city library",
        "the river bank",
        "the train station",
        "the school garden",
        "the old bridge",
        "the football ground",
        "the seaside town",
    ),
    "thing": (
        "bicycle",
        "wooden boat",
        "kitchen table",
        "garden fence",
        "violin",
        "red kite",
        "picnic basket",
        "map of the region",
        "umbrella",
        "clock tower",
    ),
    "food": (
        "fresh bread",
        "apple pie",
        "vegetable soup",
        "grilled fish",
        "cheese",
        "rice",
        "strawberries",
        "tomato salad",
        "pancakes",
        "lemon cake",
    ),
    "weather": ("sunny", "rainy", "windy", "cold", "warm", "foggy", "snowy", "cloudy"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "season": ("spring", "summer", "autumn", "winter"),
    "event": (
        "concert",
        "football match",
        "harvest festival",
        "chess tournament",
        "boat race",
        "book fair",
        "street parade",
        "cooking contest",
    ),
    "adjective": ("quiet", "busy", "beautiful", "crowded", "peaceful", "noisy", "small", "famous"),
    "verb": (
        "visited",
        "painted",
        "repaired",
        "described",
        "photographed",
        "cleaned",
        "found",
        "sold",
    ),
    "number": ("two", "three", "four", "five", "ten", "twenty", "a hundred"),
}
GENERAL_TEMPLATES = (
    "On {day} {person} {verb} the {thing} near {place}.",
    "The weather was {weather} when the {event} started at {place}.",
    "{person} bought {food} at {place} every {day}.",
    "In {season} {place} becomes {adjective} and {weather}.",
    "More than {number} people came to the {event} last {season}.",
    "{person} says that the best {food} in town is sold near {place}.",
    "The {thing} that {person} {verb} was older than the {thing}.",
    "After the {event}, {person} walked home along {place}.",
    "It is often {weather} in {season}, so {person} carries an umbrella.",
    "{person} won the {event} with {number} points.",
    "The {adjective} streets around {place} are lovely on a {weather} day.",
    "Every {season} the town organises a {event} for {number} families.",
    "{person} cooked {food} and {food} for the guests.",
    "Nobody knew who had {verb} the {thing} at {place}.",
    "The {event} was cancelled because it was too {weather}.",
    "Tickets for the {event} cost {number} coins at {place}.",
)


def general_passages(rng: random.Random, count: int) -> list[str]:
    """General-domain sentences (no biomedical word) from the templates above."""

    def fill(slot: str) -> list[Segment]:
        return [(rng.choice(GENERAL_WORDS[slot]), False)]

    return [plain(render(rng.choice(GENERAL_TEMPLATES), fill)) for _ in range(count)]


# --------------------------------------------------------------------------- output


def gzip_bytes(data: bytes, name: str) -> bytes:
    """Deterministic gzip: fixed member name and zero mtime."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buffer, mtime=0) as handle:
        handle.write(data)
    return buffer.getvalue()


def md5_sidecar(name: str, data: bytes) -> str:
    """NCBI's ``.md5`` sidecar line for a file called ``name``."""
    return f"MD5({name})= {hashlib.md5(data).hexdigest()}\n"


def _write(path: Path, data: bytes) -> None:
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)


def readme(counts: dict[str, str]) -> str:
    rows = "\n".join(f"| `{path}` | {count} |" for path, count in counts.items())
    return f"""# Demo data

Everything in this folder is synthetic: it is generated by the project's own code from
small hand-written lexicons and sentence templates (invented gene symbols such as
"ZKM15A kinase", diseases such as "acute zythic dysplasia" or "Varden syndrome",
invented drugs, journals and authors). It contains no text from PubMed or any other corpus. Regenerate
it, byte for byte, with

    python demo/generate.py --out demo

- `pubmed/`: NCBI-style `PubmedArticleSet` files (two annual baseline files and one
  update file with revised records and a `DeleteCitation` block), gzipped, each with an
  `.md5` sidecar. PMIDs start at {FIRST_PMID}, far above real ones.
- `tasks/ner/`: disease NER in BioBERT TSV (`token<TAB>B/I/O`, blank line between
  sentences). About a third of the distinct disease names in `devel.tsv`/`test.tsv`
  never occur in `train.tsv`; they are built from the same morphemes and head words.
- `tasks/re/`: GAD-style gene-disease relations in BioBERT TSV with `@GENE$` and
  `@DISEASE$` masks; label 1 when the sentence asserts an association. `train.tsv` and
  `dev.tsv` are `sentence<TAB>label`; `test.tsv` has the header `index<TAB>sentence<TAB>label`.
- `general/passages.txt`: general-domain sentences (weather, markets, festivals), one per
  line, the source of the demo's randomised transfer set for task-specific distillation.

| file | contents |
| --- | --- |
{rows}
"""


def generate(out: str | Path, seed: int = DEFAULT_SEED) -> dict[str, str]:
    """Write the demo data under ``out``; return a description of each file."""
    out = Path(out)
    lexicon = build_lexicon(random.Random(f"{seed}-lexicon"))
    counts: dict[str, str] = {}
    files, deleted = build_pubmed(random.Random(f"{seed}-pubmed"), lexicon)
    for name, citations in files.items():
        folder = "updatefiles" if name == UPDATE_FILE else "baseline"
        gz_name = f"{name}.xml.gz"
        dropped = deleted if name == UPDATE_FILE else ()
        data = gzip_bytes(pubmed_xml(citations, dropped).encode("utf-8"), gz_name)
        _write(out / "pubmed" / folder / gz_name, data)
        _write(out / "pubmed" / folder / f"{gz_name}.md5", md5_sidecar(gz_name, data).encode())
        no_abstract = sum(c.abstract is None for c in citations)
        extra = f", {len(dropped)} deleted PMIDs" if dropped else ""
        summary = f"{len(citations)} articles ({no_abstract} without abstract){extra}"
        counts[f"pubmed/{folder}/{gz_name}"] = summary
    ner_rng = random.Random(f"{seed}-ner")
    for split, count in NER_SPLITS.items():
        sentences = ner_sentences(ner_rng, lexicon, split, count)
        _write(out / "tasks" / "ner" / f"{split}.tsv", ner_tsv(sentences).encode())
        mentions = sum(tag == "B" for sentence in sentences for _, tag in sentence)
        counts[f"tasks/ner/{split}.tsv"] = f"{count} sentences, {mentions} disease mentions"
    re_rng = random.Random(f"{seed}-re")
    for split, count in RE_SPLITS.items():
        rows = re_rows(re_rng, lexicon, split, count)
        _write(
            out / "tasks" / "re" / f"{split}.tsv", re_tsv(rows, indexed=split == "test").encode()
        )
        positives = sum(label for _, label in rows)
        counts[f"tasks/re/{split}.tsv"] = f"{count} sentences, {positives} positive"
    passages = general_passages(random.Random(f"{seed}-general"), GENERAL_PASSAGES)
    _write(out / "general" / "passages.txt", "".join(f"{line}\n" for line in passages).encode())
    counts["general/passages.txt"] = f"{len(passages)} general-domain sentences"
    _write(out / "README.md", readme(counts).encode())
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Generate the synthetic demo data.")
    parser.add_argument("--out", default="demo", help="output folder (default: demo)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    for path, description in generate(args.out, args.seed).items():
        print(f"{path}: {description}")


if __name__ == "__main__":
    main()
