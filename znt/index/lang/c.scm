; C definitions, references and includes (capture conventions: docs/languages.md).
;
; Type definitions are taken only where a declaration can stand (file level, inside
; preprocessor conditionals and extern blocks), so a struct defined inside a typedef is named
; by the typedef (`typedef struct {...} point_t;` -> struct point_t) instead of nesting.

; Functions. The name sits inside nested declarators (pointers, returned function pointers).
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name))))) @definition.function

; Macros: function-like ones are macros, object-like ones with a value are constants
; (an include guard `#define X_H` has no value and is no symbol).
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition.constant

; Structs, unions and enums with a body.
[
  (translation_unit (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_ifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_if (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_else (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_elif (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_elifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (declaration_list (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
]
[
  (translation_unit (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_ifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_if (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_else (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_elif (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_elifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (declaration_list (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
]
[
  (translation_unit (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_ifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_if (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_else (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_elif (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_elifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (declaration_list (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
]

; typedefs: of a struct/union/enum body (named by the typedef), else a type alias.
(type_definition type: (struct_specifier body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier body: (enumerator_list)) declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: (type_identifier) @name) @definition.type
(type_definition
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; Members of structs and unions, and enum constants.
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration
  declarator: (pointer_declarator
    declarator: (array_declarator declarator: (field_identifier) @name))) @definition.field
(field_declaration
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (field_identifier) @name)))) @definition.field
(field_declaration
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (field_identifier) @name))))) @definition.field
(enumerator name: (identifier) @name) @definition.enum_member

; Global variables (the first declarator of a declaration).
[
  (translation_unit (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (preproc_ifdef (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (preproc_if (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (preproc_else (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (preproc_elif (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (preproc_elifdef (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
  (declaration_list (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
  ]) @definition.variable)
]

; Calls: the callee as written (`s->fn()` and `s.fn()` become `s.fn`).
(call_expression function: (_) @callee) @reference.call

; Parameters and local variables shadow file-level names.

(parameter_declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (array_declarator declarator: (identifier) @local)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
])
(compound_statement (declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (array_declarator declarator: (identifier) @local)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
  (init_declarator declarator: (identifier) @local)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (init_declarator declarator: (array_declarator declarator: (identifier) @local))
]))
(for_statement initializer: (declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (array_declarator declarator: (identifier) @local)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
  (init_declarator declarator: (identifier) @local)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (init_declarator declarator: (array_declarator declarator: (identifier) @local))
]))

; Prototypes: a function declared here and defined elsewhere (a `declares` row, never an
; edge; qualified by the namespaces around it). A file that includes this one sees it.
[
  (translation_unit (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (preproc_ifdef (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (preproc_if (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (preproc_else (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (preproc_elif (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (preproc_elifdef (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
  (declaration_list (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
  ]) @reference.declares)
]

; Includes: "x.h" is a project header; <x.h> is marked as a system header by its `<...>`
; spelling in @import.name (see c.py).
(preproc_include path: (string_literal) @import.module) @import
(preproc_include path: (system_lib_string) @import.module @import.name) @import
