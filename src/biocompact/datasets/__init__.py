"""Public benchmark datasets by name: the registry, verified downloads, safe extraction and
conversion to the fine-tuning harness's formats (light: imported when the DAG is built)."""
