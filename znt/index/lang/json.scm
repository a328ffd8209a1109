; JSON keys (capture conventions: docs/languages.md).
;
; Only the keys of the top-level object are symbols (`scripts`, `dependencies`); nested
; objects and arrays are not. The name is the key without its quotes.

(document
  (object
    (pair key: (string (string_content) @name)) @definition.key))
