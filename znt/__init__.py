"""znt: understand a codebase from one DuckDB file."""

__version__ = "0.1.0"

# The version of the documents the api returns (znt/results.py): raised when a key changes
# meaning or goes away. Here, not in znt/results.py, so that a one-shot command stamps its
# answer without building every document type (they are for the type checker).
SCHEMA_VERSION = 1
