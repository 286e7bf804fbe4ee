"""Task-specific distillation on transfer data (BioXtract): a teacher fine-tuned on a task
labels transfer text (general, randomised or biomedical) with its probabilities; a student
trained on those soft labels alone is evaluated on the task's test set.

Modules: ``transfer`` and ``randomised`` (light: no torch) build the transfer sets;
``soft_labels`` computes and stores the teacher's outputs and holds the loss;
``evaluation`` scores a model on the task's test set; ``student`` trains the students;
``summary`` (light) gathers the evaluations into the table of the report.
"""
