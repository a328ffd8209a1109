"""Indexes beyond one machine: a project's index written as a Parquet dataset partitioned by
repository and commit (``parquet``), and several exported repositories read back as one
index (``dataset``), by znt or by any engine that reads Parquet (docs/export.md)."""
