"""znt: understand a codebase from one DuckDB file."""

__version__ = "0.1.0"
