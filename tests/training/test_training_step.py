"""The training step traces into one graph without a break (so without a host
synchronisation: Dynamo breaks the graph at every ``.item()`` and at every shape that depends
on the data; the step is compiled whole, where a break is an error) and gives the eager
step's losses when compiled, for every pretraining objective and every distillation method."""

import copy
from pathlib import Path

import pytest
import torch
from tiny_models import MINILM, TINY
from transformers import BertForMaskedLM

from biocompact.distillation.methods import method_options
from biocompact.distillation.objectives import METHODS
from biocompact.distillation.student import student_from_teacher_layers
from biocompact.models.presets import build_config
from biocompact.pretraining.objectives import objective_entry
from biocompact.pretraining.run import special_token_ids
from biocompact.pretraining.settings import ElectraOptions
from biocompact.training.loop import adamw_optimizer
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.training.stage import load_corpus
from biocompact.training.step import TrainingStep, compiles
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus

pytestmark = pytest.mark.usefixtures("one_torch_thread")
REPO_ROOT = Path(__file__).resolve().parents[2]
NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
PRETRAINING = [("bert", "mlm"), ("roberta", "mlm"), ("bert", "nsp"), ("electra", "electra")]
PRETRAINING += [("albert", "albert"), ("modernbert", "mlm")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The demo's general passages, three sentences a document, fully packed into sequences of
    32 tokens (several documents each) with the MiniLM vocabulary."""
    folder = tmp_path_factory.mktemp("corpus")
    lines = (REPO_ROOT / "demo/general/passages.txt").read_text(encoding="utf-8").splitlines()
    documents = ["\n".join(lines[start : start + 3]) for start in range(0, len(lines), 3)]
    (folder / "sentences.txt").write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    build_tokenized_corpus(
        [folder / "sentences.txt"],
        MINILM,
        folder / "data",
        max_seq_length=32,
        heldout_fraction=0.1,
        packing="full",
    )
    return folder / "data"


def _pretraining(corpus: Path, family: str, objective: str):
    data, tokenizer, batcher = load_corpus(corpus, MINILM, MaskingSettings())
    architecture = {**TINY, **NO_DROPOUT}
    if family == "modernbert":
        architecture = {**TINY, "local_attention": 8, "global_attn_every_n_layers": 2}
    config = build_config(
        architecture,
        vocab_size=len(tokenizer),
        max_position_embeddings=64,
        family=family,
        pad_token_id=tokenizer.pad_token_id,
        special_token_ids=special_token_ids(tokenizer),
    )
    torch.manual_seed(0)
    built, batcher = objective_entry(objective, family)[1].build(
        config, None, ElectraOptions(), tokenizer, batcher
    )
    return built, batcher, data["train"]


def _distillation(corpus: Path, method: str):
    data, tokenizer, batcher = load_corpus(corpus, MINILM, MaskingSettings())
    config = build_config(
        {**TINY, "num_hidden_layers": 4, **NO_DROPOUT},
        vocab_size=len(tokenizer),
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    teacher = BertForMaskedLM(config)
    options = {"minilmv2": {"relation_heads": 2}} if method == "minilmv2" else {}
    student = student_from_teacher_layers(teacher, [0, 2])
    return (
        METHODS[method](student, teacher, method_options(method, options)),
        batcher,
        data["train"],
    )


def _batches(batcher, dataset, steps: int) -> list[dict[str, torch.Tensor]]:
    return [
        batcher(dataset[8 * step : 8 * step + 8], torch.Generator().manual_seed(step))
        for step in range(steps)
    ]


def _step(objective, backend: str | None = None) -> TrainingStep:
    """Eager, or compiled with ``backend``."""
    settings = TrainingSettings(steps=2, batch_size=8, learning_rate=1e-3)
    optimizer = adamw_optimizer(objective, settings)
    autocast = torch.autocast("cpu", enabled=False)
    if backend is None:
        return TrainingStep(
            objective, optimizer, max_grad_norm=1.0, autocast=autocast, compiled=False
        )
    return TrainingStep(
        objective, optimizer, max_grad_norm=1.0, autocast=autocast, compiled=True, backend=backend
    )


BUILDERS = {
    **{
        f"pretraining-{family}-{objective}": (_pretraining, family, objective)
        for family, objective in PRETRAINING
    },
    **{f"distillation-{method}": (_distillation, method) for method in METHODS},
}


def _branch_on_the_host(value: torch.Tensor) -> torch.Tensor:
    return value * (2.0 if value.item() > 0 else 1.0)  # a host read, and a branch on it


def _break_the_graph(value: torch.Tensor) -> torch.Tensor:
    torch._dynamo.graph_break()
    return value


@pytest.mark.parametrize("fault", [_branch_on_the_host, _break_the_graph])
def test_a_step_that_breaks_the_graph_does_not_compile(fault):
    """The compiled step is traced whole (``fullgraph``): a host read or a graph break stops
    it, so the test below fails on either."""
    layer = torch.nn.Linear(4, 1)

    def loss(batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        return fault(layer(batch["x"]).pow(2).mean()), {}

    optimizer = adamw_optimizer(layer, TrainingSettings(steps=1, batch_size=2, learning_rate=0.1))
    step = TrainingStep(
        loss,
        optimizer,
        max_grad_norm=1.0,
        autocast=torch.autocast("cpu", enabled=False),
        compiled=True,
        backend="aot_eager",
    )
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.TorchDynamoException):
        step([{"x": torch.ones(2, 4)}])


@pytest.mark.slow  # 10-25 s each on a CPU
@pytest.mark.parametrize("name", BUILDERS)
def test_the_compiled_step_gives_the_eager_losses_and_weights(corpus, name):
    """The step traces into one graph without a break (compiled whole: a break is an error),
    and three steps eager and compiled (AOTAutograd's graphs run eagerly: the same kernels, so
    only the optimizer differs, fused eager and single-tensor compiled), each from the same
    random state (ELECTRA samples), the first at a learning rate of 0 (as warm-up starts)."""
    build, *arguments = BUILDERS[name]
    objective, batcher, dataset = build(corpus, *arguments)
    eager, compiled = objective.train(), copy.deepcopy(objective).train()
    torch._dynamo.reset()  # a new step object: not a recompilation of an earlier test's
    eager_step, compiled_step = _step(eager), _step(compiled, backend="aot_eager")
    for seed, batch in enumerate(_batches(batcher, dataset, 3)):
        for step in (eager_step, compiled_step):  # a first warm-up step: learning rate 0
            for group in step.optimizer.param_groups:
                group["lr"] = 1e-3 if seed else 0.0
        torch.manual_seed(seed)
        eager_terms = eager_step([batch])
        torch.manual_seed(seed)
        compiled_terms = compiled_step([batch])
        assert compiled_terms.keys() == eager_terms.keys()
        for key, value in eager_terms.items():
            torch.testing.assert_close(compiled_terms[key], value, rtol=1e-4, atol=1e-5)
    for (key, weight), (_, other) in zip(
        eager.trainable_state().items(), compiled.trainable_state().items()
    ):
        torch.testing.assert_close(other, weight, rtol=1e-4, atol=1e-5, msg=key)


def test_compile_auto_compiles_on_a_gpu_only():
    assert compiles("auto", torch.device("cuda", 0))
    assert not compiles("auto", torch.device("cpu"))
    assert compiles(True, torch.device("cpu")) and not compiles(False, torch.device("cuda", 0))
