; C++ definitions, references and includes (capture conventions: docs/languages.md).
;
; Types are taken where a declaration can stand (file level, namespaces, extern blocks,
; preprocessor conditionals, templates, class bodies), so a struct defined inside a typedef
; is named by the typedef instead of nesting under it.

; Free functions and in-namespace functions (they have a return type; constructors do not).
(function_definition
  type: (_)
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function

; Methods defined in a class body (their declarator names a field_identifier).
(function_definition
  declarator: [
    (function_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
    (reference_declarator (function_declarator declarator: (field_identifier) @name))
  ]) @definition.function

; Constructors: no return type.
(function_definition
  !type
  declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor
(function_definition
  !type
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))) @definition.constructor

; Out-of-class definitions: `void Foo::bar() {}` -> Foo.bar (the innermost scope qualifies).
(function_definition
  type: (_)
  declarator: [
    (function_declarator
      declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
    (function_declarator
      declarator: (qualified_identifier
        name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
  ]) @definition.function

; Namespaces.
(namespace_definition name: (namespace_identifier) @name) @definition.namespace

; Macros.
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (preproc_arg)) @definition.constant

; Classes, structs, unions and enums with a body.
[
  (translation_unit (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (preproc_ifdef (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (preproc_if (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (preproc_else (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (preproc_elif (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (preproc_elifdef (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (declaration_list (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (template_declaration (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
  (field_declaration !declarator type: (class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class)
]
[
  (translation_unit (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_ifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_if (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_else (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_elif (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (preproc_elifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (declaration_list (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (template_declaration (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
  (field_declaration !declarator type: (struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct)
]
[
  (translation_unit (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_ifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_if (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_else (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_elif (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (preproc_elifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (declaration_list (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (template_declaration (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
  (field_declaration !declarator type: (union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union)
]
[
  (translation_unit (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_ifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_if (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_else (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_elif (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (preproc_elifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (declaration_list (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (template_declaration (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
  (field_declaration !declarator type: (enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum)
]

; typedefs and aliases.
(type_definition type: (class_specifier body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.class
(type_definition type: (struct_specifier body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier body: (enumerator_list)) declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier)
         (template_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: (type_identifier) @name) @definition.type
(type_definition
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

; Data members (method prototypes are field_declarations too, but with a function
; declarator: they are not definitions).
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field
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

; Base classes.
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @reference.inherits)

; Global and namespace-level variables (the first declarator of a declaration).
[
  (translation_unit (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (preproc_ifdef (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (preproc_if (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (preproc_else (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (preproc_elif (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (preproc_elifdef (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
  (declaration_list (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (reference_declarator (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.variable)
]

; Calls: the callee as written (`this->m()` -> this.m, `ns::f()` -> ns.f, `o.m()` -> o.m).
(call_expression function: (_) @callee) @reference.call
(new_expression type: (_) @callee) @reference.new

; Parameters and local variables shadow outer names.

(parameter_declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (reference_declarator (identifier) @local)
  (array_declarator declarator: (identifier) @local)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
])
(optional_parameter_declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (reference_declarator (identifier) @local)
  (array_declarator declarator: (identifier) @local)
])
(compound_statement (declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (reference_declarator (identifier) @local)
  (array_declarator declarator: (identifier) @local)
  (init_declarator declarator: (identifier) @local)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (init_declarator declarator: (reference_declarator (identifier) @local))
  (init_declarator declarator: (array_declarator declarator: (identifier) @local))
]))
(for_statement initializer: (declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (reference_declarator (identifier) @local)
  (array_declarator declarator: (identifier) @local)
  (init_declarator declarator: (identifier) @local)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (init_declarator declarator: (reference_declarator (identifier) @local))
  (init_declarator declarator: (array_declarator declarator: (identifier) @local))
]))
; `Foo foo(bar);` in a body parses as a function declarator (the most vexing parse): a local.
(compound_statement (declaration declarator: (function_declarator declarator: (identifier) @local)))
(for_range_loop declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (reference_declarator (identifier) @local)
  (array_declarator declarator: (identifier) @local)
])

; Prototypes: a function declared here and defined elsewhere (a `declares` row, never an
; edge; qualified by the namespaces around it). A file that includes this one sees it.
[
  (translation_unit (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (preproc_ifdef (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (preproc_if (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (preproc_else (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (preproc_elif (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (preproc_elifdef (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (declaration_list (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
  (template_declaration (declaration declarator: [
    (function_declarator declarator: (identifier) @callee)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @callee)))
    (reference_declarator (function_declarator declarator: (identifier) @callee))
  ]) @reference.declares)
]

; Includes: "x.hpp" is a project header; <x> is marked as a system header by its `<...>`
; spelling in @import.name (see c.py).
(preproc_include path: (string_literal) @import.module) @import
(preproc_include path: (system_lib_string) @import.module @import.name) @import
