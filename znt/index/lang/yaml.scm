; YAML keys (capture conventions: docs/languages.md).
;
; Every document of a stream counts: the keys of its top-level block mapping, and the keys of
; block mappings directly under those (`database.pool`). Deeper keys, sequences and flow
; mappings (`{a: 1}`) are not symbols.

(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair key: (_) @name) @definition.key))))

(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair
          value: (block_node
            (block_mapping
              (block_mapping_pair key: (_) @name) @definition.key)))))))
