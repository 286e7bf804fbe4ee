"""MFU bookkeeping: training FLOPs of a batch, the device's peak, how many processes to start."""

import pytest
import torch
from transformers import BertConfig, BertForMaskedLM

from biocompact.pretraining.run import run_pretraining
from biocompact.training.launch import (
    JobSpec,
    data_parallel_processes,
    launch,
    multi_node_command,
)
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.throughput import FlopCounter, peak_tflops

# 7 real tokens, 2 of them masked
BATCH = {
    "attention_mask": torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]]),
    "labels": torch.tensor(
        [[IGNORE_INDEX, 5, IGNORE_INDEX, IGNORE_INDEX], [IGNORE_INDEX] * 3 + [7]]
    ),
}


def _tiny_bert(layers: int) -> BertForMaskedLM:
    config = BertConfig(
        vocab_size=10,
        hidden_size=4,
        num_hidden_layers=layers,
        num_attention_heads=1,
        intermediate_size=8,
    )
    return BertForMaskedLM(config)


def test_training_flops_of_a_batch_by_hand():
    counter = FlopCounter(_tiny_bert(layers=1))
    # one layer: Q, K, V, output 4 x (4*4 + 4) + LayerNorm 8 + up 4*8 + 8 + down 8*4 + 4 + LayerNorm 8
    assert counter.layer_parameters == 80 + 8 + 40 + 36 + 8
    # head: transform 4*4 + 4, LayerNorm 8, decoder 10*4 (tied to the embeddings), bias 10
    assert counter.head_parameters == 20 + 8 + 40 + 10
    # 3 x [7 tokens x (2 x 172 + 4 x 1 layer x 4 width x 4 hidden) + 2 predictions x 2 x 78]
    assert counter(BATCH) == 3 * (7 * (344 + 64) + 2 * 2 * 78)


def test_training_flops_with_the_last_layer_at_the_predictions_by_hand():
    counter = FlopCounter(_tiny_bert(layers=2), last_layer_at_predictions=True)
    assert counter.layer_parameters == 2 * 172
    # first layer at 7 tokens: 2 x 172 + 4 x 4 x 4; last layer: keys and values
    # 2 x (4*4 + 4) parameters at 7 tokens, the other 172 - 40 = 132 and attention
    # 4 x 4 x 4 at 2 predictions; the head's 78 parameters at 2 predictions
    forward = 7 * (344 + 64) + 7 * 2 * 40 + 2 * (2 * 132 + 64) + 2 * 2 * 78
    assert counter(BATCH) == 3 * forward


def test_peak_comes_from_the_config_or_the_gpu_name():
    assert peak_tflops(torch.device("cpu")) is None
    assert peak_tflops(torch.device("cpu"), configured=100.0) == 100.0


def test_a_job_never_runs_on_fewer_gpus_than_it_asked_for():
    visible = torch.cuda.device_count()
    assert data_parallel_processes(0) == 1
    with pytest.raises(RuntimeError, match=f"asked for {visible + 2} GPUs but sees {visible}"):
        data_parallel_processes(visible + 2)


def test_a_job_on_two_nodes_is_one_srun_task_per_node_joined_by_a_rendezvous():
    command = multi_node_command(
        "biocompact.distillation.run",
        "ck/job.json",
        nodes=2,
        processes_per_node=4,
        cpus_per_node=32,
        rendezvous="node1:29400",
        job_id="77",
    )
    srun, torchrun = command[: command.index("-m")], command[command.index("-m") :]
    assert srun[:6] == [
        "srun",
        "--nodes=2",
        "--ntasks=2",
        "--ntasks-per-node=1",
        "--cpus-per-task=32",
        "--kill-on-bad-exit=1",
    ]
    assert torchrun == [
        "-m",
        "torch.distributed.run",
        "--nnodes=2",
        "--nproc_per_node=4",
        "--rdzv_backend=c10d",
        "--rdzv_endpoint=node1:29400",
        "--rdzv_id=biocompact-77",
        "-m",
        "biocompact.distillation.run",
        "ck/job.json",
    ]


def test_a_job_on_several_nodes_outside_slurm_fails_naming_the_key(monkeypatch, tmp_path):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    spec = JobSpec(checkpoint_dir=str(tmp_path), threads=1)
    with pytest.raises(
        RuntimeError, match=r"asked for 2 nodes \(resources.nodes\) but runs outside"
    ):
        launch(run_pretraining, spec, gpus=1, nodes=2)
    assert not (tmp_path / "job.json").exists()
