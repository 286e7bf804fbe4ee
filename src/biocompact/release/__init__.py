"""Release stage: model cards, the release folders and the plan of what is released."""
