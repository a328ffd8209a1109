; SQL definitions (capture conventions: docs/languages.md).
;
; The definition node is the whole statement, so the comment above it becomes its doc. A
; schema (`app.orders`) qualifies the name of a table, view or type; a function keeps its
; name as written (`app.total`), because a qualified function would be taken for a method.
; `CREATE PROCEDURE` is not in this grammar (it parses as an error), so procedures are lost.

(statement
  (create_table (object_reference schema: (_)? @qualifier name: (identifier) @name))) @definition.table

(statement
  (create_table
    (object_reference)
    (column_definitions (column_definition name: (_) @name) @definition.field)))

(statement
  (create_view (object_reference schema: (_)? @qualifier name: (identifier) @name))) @definition.view

(statement
  (create_materialized_view
    (object_reference schema: (_)? @qualifier name: (identifier) @name))) @definition.view

(statement
  (create_type (object_reference schema: (_)? @qualifier name: (identifier) @name))) @definition.type

(statement (create_function (object_reference) @name)) @definition.function
