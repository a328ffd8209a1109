; Dockerfile (capture conventions: docs/languages.md).
;
; A stage is its `FROM ... AS name` line: the instructions after it are its siblings in the
; tree, not its children, so ARG and ENV names are top-level variables (an UPPER_CASE name is
; a constant). An unnamed stage is no symbol. The image of every FROM is an import with no
; file behind it, i.e. a dependency (`dep::python`); `FROM <earlier stage>` is one as well. An
; image named by a variable (`FROM ${BASE}`) is not imported.

(from_instruction (image_alias) @name) @definition.stage

(arg_instruction name: (_) @name) @definition.variable
(env_instruction (env_pair name: (_) @name) @definition.variable)

(from_instruction
  (image_spec name: (image_name) @import.module (#not-match? @import.module "\\$"))) @import
