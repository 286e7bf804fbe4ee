"""The error every dataset download or preparation failure raises."""

from __future__ import annotations


class DatasetError(ValueError):
    """A dataset could not be fetched, verified or converted; the message names the
    dataset (or source archive), the URL and the file at fault."""

    def __init__(self, dataset: str, url: str, file: str, problem: str) -> None:
        self.dataset, self.url, self.file = dataset, url, file
        super().__init__(f"dataset {dataset} ({url}), {file}: {problem}")
