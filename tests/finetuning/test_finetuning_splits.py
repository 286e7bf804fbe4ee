"""Fixed random samples of dev and test sets (quick studies)."""

from biocompact.finetuning.splits import evaluation_sample


class Ungrouped:
    def group(self, example):
        return None


class ByAbstract:
    def group(self, example):
        return example.split("_")[0]


def test_sample_is_fixed_in_file_order_and_spans_a_label_sorted_file():
    examples = [f"pos{i}" for i in range(50)] + [f"neg{i}" for i in range(50)]
    sample = evaluation_sample(examples, 20, Ungrouped())
    assert len(sample) == 20 and sample == evaluation_sample(examples, 20, Ungrouped())
    assert sample == sorted(sample, key=examples.index)
    assert any(e.startswith("pos") for e in sample) and any(e.startswith("neg") for e in sample)
    assert evaluation_sample(examples, None, Ungrouped()) is examples
    assert evaluation_sample(examples, 100, Ungrouped()) is examples


def test_grouped_sample_keeps_whole_abstracts():
    examples = [f"{abstract}_s{sentence}" for abstract in range(10) for sentence in range(4)]
    sample = evaluation_sample(examples, 8, ByAbstract())
    kept = {e.split("_")[0] for e in sample}
    assert len(kept) == 2 and len(sample) == 8  # ceil(8 / 40 * 10 abstracts) = 2 abstracts of 4
    assert sample == [e for e in examples if e.split("_")[0] in kept]
