# Input functions of the distillation stage (distillation.smk); included by common.smk.


def distillation_entry(wildcards):
    """The config entry of student ``wildcards.model`` (with its resources)."""
    return config["distillation"][wildcards.model]


def teacher_input(wildcards):
    """What the DAG builds before student ``wildcards.model``'s teacher can be used."""
    return model_input(distillation_entry(wildcards)["teacher"])


def teacher_folder(wildcards):
    """The folder (or hub name) of student ``wildcards.model``'s teacher."""
    return model_dir(distillation_entry(wildcards)["teacher"])


def student_init_input(wildcards):
    """The model of this config that student ``wildcards.model`` starts from, if any."""
    name = STUDENT_FROM_MODEL.get(wildcards.model)
    return model_input(name) if name else []


def distillation_settings(wildcards):
    """Student ``wildcards.model``'s entry as its job reads it (``without_resources``), a
    student_init naming a model of this config replaced by that model's folder."""
    entry = without_resources(distillation_entry(wildcards))
    if entry["student_init"] in ALL_MODELS:
        entry["student_init"] = model_dir(entry["student_init"])
    return entry
