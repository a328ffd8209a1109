"""The page of a ranked answer (``search``, ``similar``): the results from ``offset``, how many
candidates there were, and where the next page starts when this one was cut."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from znt.results import JsonObject, Page


def ranked_page(
    results: Sequence[JsonObject],
    *,
    offset: int,
    limit: int,
    total: int,
    truncated: bool,
    warnings: list[str],
) -> Page:
    return {
        "results": results,
        "offset": offset,
        "limit": limit,
        "total_candidates": total,
        "truncated": truncated,
        "warnings": warnings,
    }
