"""The connection a read feature answers from: the project's index, or an exported dataset
(``--dataset``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from znt.export.dataset import DatasetQuery


def index_or_dataset(project: Any, dataset: DatasetQuery | None) -> Any:
    """The index of ``project``, or ``dataset`` read as one index. The export modules are
    imported only for a dataset: a one-shot search or graph on an index never pays for them."""
    if dataset is not None:
        from znt.export.dataset import reading

        return reading(dataset)
    from znt.index import store

    return store.open_index(project.index_path, read_only=True)
