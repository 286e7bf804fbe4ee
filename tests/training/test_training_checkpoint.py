"""Checkpoints on disk: a job resumes from the newest complete one of those kept. A resume
from an older one ends with the same weights (the steps are replayed), so only this shows it."""

from biocompact.training.checkpoint import latest_checkpoint, save_checkpoint


def test_the_newest_of_the_two_kept_checkpoints_is_the_one_resumed(tmp_path):
    for step in (5, 10, 15):
        save_checkpoint(tmp_path, step, {"step": step})
    kept = sorted(path.name for path in tmp_path.iterdir())
    assert kept == ["step-000000010", "step-000000015"]
    assert latest_checkpoint(tmp_path) == {"step": 15}


def test_a_checkpoint_cut_off_while_saving_is_not_resumed_and_is_cleared(tmp_path):
    save_checkpoint(tmp_path, 5, {"step": 5})
    (tmp_path / ".step-000000010.tmp-1").mkdir()  # a job killed while writing step 10
    assert latest_checkpoint(tmp_path) == {"step": 5}
    save_checkpoint(tmp_path, 10, {"step": 10})
    assert sorted(path.name for path in tmp_path.iterdir()) == ["step-000000005", "step-000000010"]


def test_no_checkpoint_is_none(tmp_path):
    assert latest_checkpoint(tmp_path) is None
