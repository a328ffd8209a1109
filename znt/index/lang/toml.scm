; TOML tables and keys (capture conventions: docs/languages.md).
;
; A table is named by its header as written (`tool.ruff`), so its keys are `tool.ruff.<key>`;
; each `[[array]]` element is a table of the same name (the second gets the id suffix `#2`).
; A dotted key (`a.b = 1`) is one key named `a.b`. Values (inline tables, arrays) are not
; looked into.

(document (pair . (_) @name) @definition.key)

(table . (_) @name) @definition.table
(table (pair . (_) @name) @definition.key)

(table_array_element . (_) @name) @definition.table
(table_array_element (pair . (_) @name) @definition.key)
