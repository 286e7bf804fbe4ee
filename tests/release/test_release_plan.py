"""The release plan: config names to Hub repository names and model folders."""

import pytest

from biocompact.release.plan import release_plan


def test_language_models_keep_their_name_and_kept_pairs_join_model_and_task():
    release = {"models": ["teacher"], "finetuned": ["teacher/demo-re"]}
    plan = release_plan(release, ["teacher", "student"], {("teacher", "demo-re")})
    assert plan == {"teacher": ("teacher", None), "teacher-demo-re": ("teacher", "demo-re")}


def test_a_pair_that_is_not_kept_is_named():
    release = {"models": [], "finetuned": ["teacher/demo-re"]}
    with pytest.raises(ValueError, match="release.finetuned names 'teacher/demo-re'"):
        release_plan(release, ["teacher"], set())
