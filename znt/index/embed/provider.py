"""What every embedding provider is: the kind of text it embeds and the one method it has.

The providers (``local.py``, ``remote.py``, ``gemini.py``) and the package that builds them
(``__init__.py``: ``make_embedder``) both import this, so the package never imports itself
through a provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    import numpy as np

TextKind = Literal["document", "query"]


class Embedder(Protocol):
    """What the scan and the search need from a provider."""

    provider: str  # "local" | "ollama" | "openai" | "gemini"
    model: str  # the model name as configured (stored in the index with the dimension)

    def embed(self, texts: Sequence[str], kind: TextKind = "document") -> np.ndarray:
        """Vectors for ``texts``: float32 array of shape (len(texts), dim), rows L2-normalised.

        Raises ``ProviderError`` with a clear message on any failure."""
        ...
