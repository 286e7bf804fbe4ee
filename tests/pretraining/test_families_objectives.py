"""Pretraining objectives of the model families: hand-checked batches and short runs on demo text."""

import json
import math
import random

import pytest
import torch
import torch.nn.functional as F
from transformers import (
    AlbertConfig,
    AlbertForMaskedLM,
    AutoModelForMaskedLM,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
    AutoTokenizer,
    BertForPreTraining,
    ElectraConfig,
    RobertaConfig,
)

from biocompact.corpus.sentences import RuleSplitter
from biocompact.entries import parse_entry
from biocompact.models.presets import build_config
from biocompact.pretraining.albert import MaskedLmAndSentenceOrder, SentenceOrderBatcher
from biocompact.pretraining.electra import build_electra, replace_tokens
from biocompact.pretraining.nsp import MaskedLmAndNextSentence, NextSentenceBatcher, truncate_pair
from biocompact.pretraining.objectives import objective_entry
from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.pretraining.segments import split_point
from biocompact.pretraining.settings import ElectraOptions, PretrainingSettings
from biocompact.training.batches import MaskedBatcher
from biocompact.training.masking import IGNORE_INDEX, prediction_positions
from biocompact.training.settings import MaskingSettings, Probe
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus

CLS, SEP, PAD, MASK, PERIOD = 2, 3, 0, 4, 1
TINY = {
    "num_hidden_layers": 2,
    "hidden_size": 32,
    "num_attention_heads": 2,
    "intermediate_size": 64,
}


# ---- configs and the objective registry


def test_each_family_builds_its_own_config():
    assert isinstance(build_config(TINY, 100, 64, family="roberta", pad_token_id=1), RobertaConfig)
    # RoBERTa numbers positions from pad_token_id + 1
    assert (
        build_config(TINY, 100, 64, family="roberta", pad_token_id=1).max_position_embeddings == 66
    )
    albert = build_config({"preset": "base-12L-768"}, 100, family="albert")
    assert (
        isinstance(albert, AlbertConfig)
        and albert.embedding_size == 128
        and albert.num_hidden_groups == 1
    )
    electra = build_config(TINY, 100, family="electra")
    assert isinstance(electra, ElectraConfig) and electra.embedding_size == 32
    with pytest.raises(ValueError, match="unknown model family 'gpt'"):
        build_config(TINY, 100, family="gpt")


def test_objective_defaults_to_the_family_and_must_fit_it():
    assert objective_entry(None, "electra")[0] == "electra"
    assert objective_entry(None, "roberta")[0] == "mlm"
    assert objective_entry("mlm", "albert")[0] == "mlm"
    with pytest.raises(
        ValueError, match="objective 'electra' trains models of family electra, not 'bert'"
    ):
        objective_entry("electra", "bert")
    assert objective_entry("nsp", "bert")[0] == "nsp"
    with pytest.raises(
        ValueError, match="objective 'nsp' trains models of family bert, not 'roberta'"
    ):
        objective_entry("nsp", "roberta")


# ---- ELECTRA


def test_discriminator_labels_are_exactly_the_replaced_positions():
    input_ids = torch.tensor([[CLS, MASK, 11, MASK, 13, SEP]])
    labels = torch.tensor(
        [[IGNORE_INDEX, 10, IGNORE_INDEX, 12, 99, IGNORE_INDEX]]
    )  # 99: the 80/10/10 rule put a random 13 there
    # samples at the three predicted positions: a replacement, the original, a replacement;
    # the fourth position is not predicted (its label is ignored) and keeps its token
    positions = torch.tensor([[1, 3, 4, 0]])
    corrupted, replaced = replace_tokens(
        input_ids, labels, positions, torch.tensor([[20, 12, 21, 7]])
    )
    assert corrupted.tolist() == [[CLS, 20, 11, 12, 21, SEP]]
    assert replaced.tolist() == [[0, 1, 0, 0, 1, 0]]


def test_electra_generator_is_a_quarter_wide_and_shares_the_embeddings():
    config = build_config(
        {
            "num_hidden_layers": 2,
            "hidden_size": 64,
            "num_attention_heads": 4,
            "intermediate_size": 128,
        },
        vocab_size=40,
        family="electra",
    )
    objective, _ = build_electra(config, None, ElectraOptions(), None, None)
    generator = objective.generator.config
    assert (generator.hidden_size, generator.num_attention_heads, generator.intermediate_size) == (
        16,
        1,
        32,
    )
    assert generator.num_hidden_layers == 2 and objective.discriminator_weight == 50.0
    assert objective.generator.electra.embeddings is objective.discriminator.electra.embeddings
    assert (
        objective.generator.generator_lm_head.weight
        is objective.discriminator.electra.embeddings.word_embeddings.weight
    )
    assert objective.model_to_save() is objective.discriminator
    options = ElectraOptions(generator_fraction=0.5, discriminator_weight=10.0)
    assert build_electra(config, None, options, None, None)[0].generator.config.hidden_size == 32


def test_electra_loss_is_generator_mlm_plus_weighted_detection(one_torch_thread):
    config = build_config(TINY, vocab_size=40, family="electra")
    torch.manual_seed(0)
    objective, _ = build_electra(
        config, None, ElectraOptions(discriminator_weight=50.0), None, None
    )
    objective.eval()
    batch = {
        "input_ids": torch.tensor(
            [[CLS, MASK, 11, MASK, 13, SEP, PAD], [CLS, 14, MASK, 16, 17, 18, SEP]]
        ),
        "attention_mask": torch.tensor([[1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1]]),
        "labels": torch.tensor(
            [[-100, 10, -100, 12, -100, -100, -100], [-100, -100, 15, -100, -100, -100, -100]]
        ),
    }
    batch["masked_positions"] = prediction_positions(batch["labels"], 2)
    seen = {}
    corrupt = objective.corrupt

    def recording(*args, **kwargs):
        seen["corrupted"], seen["replaced"] = corrupt(*args, **kwargs)
        return seen["corrupted"], seen["replaced"]

    objective.corrupt = recording
    loss, terms = objective(batch)
    masked = batch["labels"] != IGNORE_INDEX
    assert torch.equal(
        seen["replaced"].bool(),
        masked & (seen["corrupted"] != torch.where(masked, batch["labels"], 0)),
    )
    assert torch.equal(seen["corrupted"][~masked], batch["input_ids"][~masked])
    # the transformers models' own losses on the same inputs
    generator_loss = objective.generator(
        **{k: batch[k] for k in ("input_ids", "attention_mask", "labels")}
    ).loss
    detection_loss = objective.discriminator(
        input_ids=seen["corrupted"], attention_mask=batch["attention_mask"], labels=seen["replaced"]
    ).loss
    assert torch.allclose(terms["loss_mlm"], generator_loss) and torch.allclose(
        terms["loss_rtd"], detection_loss
    )
    assert torch.allclose(loss, generator_loss + 50.0 * detection_loss)


# ---- ALBERT


def test_split_point_prefers_a_sentence_end_near_the_middle():
    ends = frozenset({PERIOD})
    # "a b . c d e f ." -> after the first "." (index 3) rather than the middle word (4)
    assert split_point([5, 6, PERIOD, 8, 9, 10, 11, PERIOD], [0, 1, 2, 3, 4, 5, 6, 7], ends) == 3
    # no sentence end: the word start nearest the middle (3 of 6 tokens)
    assert split_point([5, 6, 7, 8, 9, 10], [0, 0, 0, 1, 1, 2], ends) == 3
    # one word: its middle
    assert split_point([5, 6, 7, 8], [0, 0, 0, 0], ends) == 2
    # a fully packed sequence: the word after a document separator (word id -1) is a sentence start
    assert split_point([5, 6, 7, 3, 8, 9, 10, 11], [0, 1, 2, -1, 3, 4, 5, 6], ends) == 4


def _sentence_order_batch(seed: int):
    inner = MaskedBatcher(PAD, MASK, 40, MaskingSettings(probability=0.01))
    batcher = SentenceOrderBatcher(inner, CLS, SEP, frozenset({PERIOD}))
    rows = {
        "input_ids": [[CLS, 5, 6, PERIOD, 8, 9, SEP], [CLS, 7, 8, SEP]],
        "word_ids": [[-1, 0, 1, 2, 3, 4, -1], [-1, 0, 1, -1]],
    }
    generator = torch.Generator().manual_seed(seed)
    swaps = (torch.rand(2, generator=torch.Generator().manual_seed(seed)) < 0.5).tolist()
    batch = batcher(rows, generator)
    original = torch.where(batch["labels"] != IGNORE_INDEX, batch["labels"], batch["input_ids"])
    return swaps, batch, original


@pytest.mark.parametrize("seed", range(4))
def test_sentence_order_batch_swaps_segments_and_sets_token_types(seed):
    swaps, batch, original = _sentence_order_batch(seed)
    if swaps[0]:
        assert original[0].tolist() == [CLS, 8, 9, SEP, 5, 6, PERIOD, SEP]
        assert batch["token_type_ids"][0].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    else:
        assert original[0].tolist() == [CLS, 5, 6, PERIOD, SEP, 8, 9, SEP]
        assert batch["token_type_ids"][0].tolist() == [0, 0, 0, 0, 0, 1, 1, 1]
    expected_second = [CLS, 8, SEP, 7, SEP] if swaps[1] else [CLS, 7, SEP, 8, SEP]
    assert original[1].tolist()[:5] == expected_second
    assert batch["attention_mask"][1].tolist() == [1, 1, 1, 1, 1, 0, 0, 0]
    assert batch["sentence_order_label"].tolist() == [int(s) for s in swaps]
    # [CLS] and the two [SEP] are never masked
    assert not (batch["labels"] != IGNORE_INDEX)[original == SEP].any()


def test_albert_loss_is_mlm_plus_sentence_order(one_torch_thread):
    torch.manual_seed(0)
    objective = MaskedLmAndSentenceOrder(
        AlbertForMaskedLM(build_config(TINY, vocab_size=40, family="albert"))
    )
    objective.eval()
    _, batch, _ = _sentence_order_batch(0)
    loss, terms = objective(batch)
    model_inputs = {
        k: batch[k] for k in ("input_ids", "attention_mask", "token_type_ids", "labels")
    }
    mlm = objective.model(**model_inputs).loss
    pooled = objective.model.albert(
        **{k: v for k, v in model_inputs.items() if k != "labels"}
    ).last_hidden_state[:, 0]
    order = F.cross_entropy(objective.sentence_order_head(pooled), batch["sentence_order_label"])
    assert torch.allclose(terms["loss_mlm"], mlm) and torch.allclose(terms["loss_sop"], order)
    assert torch.allclose(loss, mlm + order)


# ---- BERT's next-sentence prediction


def _document_rows(documents: int) -> dict:
    """Two packed rows per document; token 100 + 40 x document + 20 x row + position (position < 20)."""
    rows = {"input_ids": [], "word_ids": [], "document": [], "last_document": []}
    for document in range(documents):
        for row, periods in enumerate(
            [(2, 6), (1, 9)]
        ):  # ". " after the 3rd and 7th, the 2nd and 10th tokens
            base = 100 + 40 * document + 20 * row
            ids = [PERIOD if i in periods else base + i for i in range(8 + 2 * row)]
            rows["input_ids"].append([CLS, *ids, SEP])
            rows["word_ids"].append([-1, *range(len(ids)), -1])
            rows["document"].append(document)
            rows["last_document"].append(document)
    return rows


def _second_segment(ids: list[int]) -> list[int]:
    return ids[split_point(ids, list(range(len(ids))), frozenset({PERIOD})) :]


def test_truncate_pair_shortens_the_longer_segment_at_its_end():
    first, second = ([1, 2, 3], [0, 1, 2]), ([4, 5, 6, 7, 8], [3, 4, 5, 6, 7])
    assert truncate_pair(first, second, 6) == (([1, 2, 3], [0, 1, 2]), ([4, 5, 6], [3, 4, 5]))
    assert truncate_pair(first, second, 4) == (([1, 2], [0, 1]), ([4, 5], [3, 4]))
    assert truncate_pair(first, second, 8) == (first, second)


def test_next_sentence_pairs_cut_at_a_sentence_end_with_half_from_other_documents():
    rows = _document_rows(8)
    batcher = NextSentenceBatcher(
        MaskedBatcher(PAD, MASK, 1000, MaskingSettings(probability=0.01)),
        CLS,
        SEP,
        frozenset({PERIOD}),
    )
    labels = []
    for seed in range(150):
        batch = batcher(rows, torch.Generator().manual_seed(seed))
        original = torch.where(batch["labels"] != IGNORE_INDEX, batch["labels"], batch["input_ids"])
        for i, label in enumerate(batch["next_sentence_label"].tolist()):
            length = int(batch["attention_mask"][i].sum())
            sequence = original[i, :length].tolist()
            ids = rows["input_ids"][i][1:-1]
            assert length <= len(rows["input_ids"][i])  # so never longer than max_seq_length
            assert sequence[0] == CLS and sequence[-1] == SEP and sequence.count(SEP) == 2
            middle = sequence.index(SEP)
            first, second = sequence[1:middle], sequence[middle + 1 : -1]
            assert batch["token_type_ids"][i].tolist() == [0] * (middle + 1) + [1] * (
                length - middle - 1
            ) + [0] * (batch["input_ids"].shape[1] - length)
            # A: the row up to its sentence end nearest the middle; B: what follows it or another document's
            assert first == ids[: len(ids) - len(_second_segment(ids))] and first[-1] == PERIOD
            if label == 0:
                assert second == _second_segment(ids)[: len(second)]
            else:
                donor = (second[0] - 100) // 20
                assert donor // 2 != rows["document"][i]
                assert second == _second_segment(rows["input_ids"][donor][1:-1])[: len(second)]
            labels.append(label)
    assert 0.45 < sum(labels) / len(labels) < 0.55


def test_next_sentence_pairs_need_another_document():
    rows = _document_rows(1)
    batcher = NextSentenceBatcher(
        MaskedBatcher(PAD, MASK, 1000, MaskingSettings()), CLS, SEP, frozenset({PERIOD})
    )
    for seed in range(10):
        assert batcher(rows, torch.Generator().manual_seed(seed))[
            "next_sentence_label"
        ].tolist() == [0, 0]


def test_bert_loss_is_mlm_plus_next_sentence(one_torch_thread):
    torch.manual_seed(0)
    model = BertForPreTraining(build_config(TINY, vocab_size=500, family="bert"))
    objective = MaskedLmAndNextSentence(model).eval()
    batcher = NextSentenceBatcher(
        MaskedBatcher(PAD, MASK, 500, MaskingSettings()), CLS, SEP, frozenset({PERIOD})
    )
    batch = batcher(_document_rows(2), torch.Generator().manual_seed(1))
    batch["next_sentence_label"] = torch.tensor([0, 1, 1, 1])
    # the transformers model's own loss on the same inputs: MLM + NSP
    keys = ("input_ids", "attention_mask", "token_type_ids", "labels", "next_sentence_label")
    model_inputs = {k: batch[k] for k in keys}
    loss, terms = objective(batch)
    assert torch.allclose(loss, model(**model_inputs).loss)
    # NSP logits fixed at (0, ln 3): p(NotNext) = 3/4 for every pair, always predicted
    with torch.no_grad():
        model.cls.seq_relationship.weight.zero_()
        model.cls.seq_relationship.bias.copy_(torch.tensor([0.0, math.log(3)]))
    loss, terms = objective(batch)
    assert torch.isclose(terms["loss_nsp"], torch.tensor((math.log(4) + 3 * math.log(4 / 3)) / 4))
    assert terms["accuracy_nsp"].item() == 0.75
    assert torch.isclose(loss, terms["loss_mlm"] + terms["loss_nsp"])


# ---- a tiny model of each family a few steps on demo text, through the pretraining job


@pytest.fixture(scope="module")
def demo_shard(tmp_path_factory, demo_generator):
    """Sentences of 150 demo PubMed abstracts, one document per abstract."""
    seed = demo_generator.DEFAULT_SEED
    rng = random.Random(seed)
    lexicon = demo_generator.build_lexicon(random.Random(f"{seed}-lexicon"))
    citations = [demo_generator.make_citation(rng, lexicon, pmid, 2020) for pmid in range(1, 151)]
    texts = [
        "\n".join([c.title, *(text for _, text in c.abstract)]) for c in citations if c.abstract
    ]
    documents = ["\n".join(sentences) for sentences in RuleSplitter().split(texts)]
    path = tmp_path_factory.mktemp("demo") / "sentences.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return path


FAMILY_RUNS = {  # run: (family, vocabulary type, objective, logged terms, packing)
    "roberta": ("roberta", "bpe", None, ["loss_mlm"], "document"),
    "electra": ("electra", "wordpiece", None, ["loss_mlm", "loss_rtd"], "document"),
    "albert": ("albert", "unigram", None, ["loss_mlm", "loss_sop"], "document"),
    "bert-nsp": ("bert", "wordpiece", "nsp", ["loss_mlm", "loss_nsp", "accuracy_nsp"], "document"),
    # sentence-order prediction on fully packed sequences (several documents a sequence)
    "albert-full": ("albert", "unigram", None, ["loss_mlm", "loss_sop"], "full"),
    "modernbert": ("modernbert", "modernbert", None, ["loss_mlm"], "document"),
}


@pytest.mark.parametrize("run", FAMILY_RUNS)
def test_family_pretrains_with_decreasing_loss_and_fine_tunes(
    run, demo_shard, tmp_path, one_torch_thread
):
    family, vocab_type, objective, terms, packing = FAMILY_RUNS[run]
    vocabulary = VocabularySettings(vocab_type, vocab_size=500, min_frequency=2, limit_alphabet=200)
    build_vocabulary(
        [demo_shard],
        tmp_path / "tokenizer",
        tmp_path / "stats.json",
        "v",
        vocabulary,
        heldout_fraction=0.1,
        max_heldout_sentences=200,
    )
    build_tokenized_corpus(
        [demo_shard],
        tmp_path / "tokenizer",
        tmp_path / "data",
        max_seq_length=64,
        heldout_fraction=0.1,
        packing=packing,
    )
    outputs = {
        "model": str(tmp_path / "model"),
        "log": str(tmp_path / "log.jsonl"),
        "eval": str(tmp_path / "eval.json"),
    }
    settings = parse_entry(
        PretrainingSettings,
        {
            "vocabulary": "v",
            "architecture": {"preset": "demo-2L-128"},
            "family": family,
            "objective": objective,
            "steps": 60,
            "batch_size": 16,
            "learning_rate": 2e-3,
            "warmup_steps": 3,
            "log_every": 1,
            "checkpoint_every": 60,
        },
    )
    spec = PretrainingSpec(
        name=run,
        settings=settings,
        dataset_dir=str(tmp_path / "data"),
        tokenizer_dir=str(tmp_path / "tokenizer"),
        outputs=outputs,
        checkpoint_dir=str(tmp_path / "checkpoints"),
        masking=MaskingSettings(),
        max_seq_length=64,
        probes=(Probe("The patient was diagnosed with [MASK].", "cancer"),),
        threads=1,
    )
    run_pretraining(spec)
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert all(term in log[0] for term in terms)
    assert sum(r["loss"] for r in log[-5:]) < 0.9 * sum(r["loss"] for r in log[:5]), [
        r["loss"] for r in log
    ]
    evaluation = json.loads((tmp_path / "eval.json").read_text())
    assert (
        evaluation["family"] == family
        and evaluation["heldout_loss"] > 0
        and evaluation["fill_mask"]
    )
    # the saved folder is what fine-tuning loads
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    tagger = AutoModelForTokenClassification.from_pretrained(tmp_path / "model", num_labels=3)
    classifier = AutoModelForSequenceClassification.from_pretrained(
        tmp_path / "model", num_labels=2
    )
    inputs = tokenizer(["BRCA1 mutations in tumours"], return_tensors="pt")
    assert tagger(**inputs).logits.shape[-1] == 3 and classifier(**inputs).logits.shape == (1, 2)
    assert tagger.config.model_type == family
    if objective == "nsp":  # a BertForPreTraining folder: MLM head and the NSP-trained pooler load
        assert 0.0 <= evaluation["next_sentence_accuracy"] <= 1.0
        assert (
            type(AutoModelForMaskedLM.from_pretrained(tmp_path / "model")).__name__
            == "BertForMaskedLM"
        )
        pretrained = BertForPreTraining.from_pretrained(tmp_path / "model")
        assert torch.equal(classifier.bert.pooler.dense.weight, pretrained.bert.pooler.dense.weight)


def test_random_next_segments_come_from_sequences_sharing_no_document():
    from biocompact.pretraining.nsp import _disjoint

    # fully packed sequences span documents (first, last): (0, 1) and (1, 2) share document 1
    assert not _disjoint((0, 1), (1, 2)) and not _disjoint((1, 2), (0, 1))
    assert _disjoint((0, 1), (2, 2)) and _disjoint((3, 5), (0, 2))
    assert not _disjoint((4, 4), (4, 4))  # document packing: the same document


def test_next_sentence_pairs_on_fully_packed_sequences(demo_shard, tmp_path):
    from transformers import AutoTokenizer

    from biocompact.pretraining.segments import sentence_end_ids

    vocabulary = VocabularySettings(
        "wordpiece", vocab_size=500, min_frequency=2, limit_alphabet=200
    )
    build_vocabulary(
        [demo_shard],
        tmp_path / "tokenizer",
        tmp_path / "stats.json",
        "v",
        vocabulary,
        heldout_fraction=0.1,
        max_heldout_sentences=200,
    )
    corpus = build_tokenized_corpus(
        [demo_shard],
        tmp_path / "tokenizer",
        tmp_path / "data",
        max_seq_length=64,
        heldout_fraction=0.1,
        packing="full",
    )["train"]
    rows = corpus[:32]
    assert any(first != last for first, last in zip(rows["document"], rows["last_document"]))
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    inner = MaskedBatcher(
        tokenizer.pad_token_id, tokenizer.mask_token_id, len(tokenizer), MaskingSettings()
    )
    batcher = NextSentenceBatcher(
        inner, tokenizer.cls_token_id, tokenizer.sep_token_id, sentence_end_ids(tokenizer)
    )
    batch = batcher(rows, torch.Generator().manual_seed(0))
    labels = batch["next_sentence_label"].tolist()
    assert batch["input_ids"].shape == (32, 64) and 0 < sum(labels) < 32
    for types, mask in zip(batch["token_type_ids"], batch["attention_mask"]):
        length = int(mask.sum())
        # [CLS] A [SEP] (type 0) then B [SEP] (type 1): one switch, B not empty
        assert types[0] == 0 and types[length - 1] == 1
        assert int((types[1:length] != types[: length - 1]).sum()) == 1
