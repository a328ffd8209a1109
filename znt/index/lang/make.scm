; Makefiles (capture conventions: docs/languages.md).
;
; A rule is a target named by its first target (`a b: c` is the symbol `a`); special targets
; (`.PHONY`, old suffix rules `.c.o`) are not symbols. Variables are the names assigned at
; any level (`=`, `:=`, `?=`, `+=`, `define`, also under `export`/`override`/conditionals),
; except target-specific ones (`all: X = 1`); an UPPER_CASE name is a constant. Every file
; named by `include` / `-include` is an import.

(rule (targets . (word) @name (#not-match? @name "^\\."))) @definition.target

(variable_assignment !target_or_pattern name: (word) @name) @definition.variable
(define_directive name: (word) @name) @definition.variable

(include_directive filenames: (list (word) @import.module)) @import
