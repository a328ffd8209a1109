"""The scan pipeline: walk, parse, store (``znt.index``), resolve (``znt.graph``) and embed.

It sits above both so that storage never imports analysis: ``index/`` reads and writes the
DuckDB file and knows nothing of how edges are derived, ``graph/`` derives them, and the
pipeline runs the two in order (docs/architecture.md).
"""
