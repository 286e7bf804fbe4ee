"""The jobs' priorities (biocompact.workflow.priorities) on a small config written by hand,
without building a DAG: models others are trained from first, vocabularies and the corpus
as high as the models trained on them."""

from __future__ import annotations

from biocompact.workflow.priorities import (
    PRIORITY_MODEL,
    PRIORITY_UPSTREAM_MODEL,
    JobPriorities,
    model_vocabulary,
    students_from_models,
)

# teacher (v1) is distilled into student, which starts from init (v2); lone (v3) is trained
# alone; small is distilled from the external model bio, on bio's own vocabulary (hub);
# nothing trains on v4.
CONFIG = {
    "vocabularies": {
        "v1": {"type": "wordpiece"},
        "v2": {"type": "wordpiece"},
        "v3": {"type": "wordpiece"},
        "v4": {"type": "wordpiece"},
        "hub": {"type": "pretrained", "checkpoint": "org/bio-bert"},
    },
    "pretraining": {
        "teacher": {"vocabulary": "v1"},
        "init": {"vocabulary": "v2"},
        "lone": {"vocabulary": "v3"},
    },
    "distillation": {
        "student": {"teacher": "teacher", "student_init": "init"},
        "small": {"teacher": "bio", "student_init": "teacher_layers"},
    },
    "external_models": {"bio": "org/bio-bert"},
}


def test_a_model_trains_on_its_own_its_teachers_or_its_external_teachers_vocabulary():
    assert [model_vocabulary(CONFIG, name) for name in ("teacher", "lone", "student", "small")] == [
        "v1",
        "v3",
        "v1",  # its teacher's
        "hub",  # the external teacher's own
    ]


def test_students_starting_from_a_model_of_the_config_name_it():
    assert students_from_models(CONFIG) == {"student": "init"}


def test_models_others_are_trained_from_come_first():
    priorities = JobPriorities(CONFIG)
    assert {
        name: priorities.model(name) for name in ("teacher", "init", "lone", "student", "small")
    } == {
        "teacher": 30,  # a teacher
        "init": 30,  # a student's initial model
        "lone": 20,
        "student": 20,
        "small": 20,
    }
    assert (PRIORITY_UPSTREAM_MODEL, PRIORITY_MODEL) == (30, 20)


def test_vocabularies_and_the_corpus_take_the_highest_priority_of_their_models():
    priorities = JobPriorities(CONFIG)
    assert {
        vocabulary: priorities.vocabulary(vocabulary) for vocabulary in CONFIG["vocabularies"]
    } == {
        "v1": 30,  # teacher's (and student's)
        "v2": 30,  # init's
        "v3": 20,  # lone's
        "v4": 0,  # no model's
        "hub": 20,  # small's
    }
    assert priorities.corpus() == 30
    untrained = {**CONFIG, "pretraining": {}, "distillation": {}}
    assert JobPriorities(untrained).corpus() == 0
