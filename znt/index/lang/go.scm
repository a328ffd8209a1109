; Go definitions, references and imports (capture conventions: docs/languages.md).
;
; A declaration of one spec (`type Store struct {...}`, `const Max = 3`) is captured on the
; whole declaration so its signature and leading comment are kept; a spec in a parenthesized
; group (`const ( A = 1; B = 2 )`) is captured on the spec itself. A spec naming several
; identifiers (`var a, b int`) is captured on each identifier.

; -- types -------------------------------------------------------------------------------

((type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
 (#not-match? @definition.struct "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct) @_group
 (#match? @_group "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
 (#not-match? @definition.interface "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface) @_group
 (#match? @_group "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (slice_type) (array_type) (map_type) (channel_type) (function_type) (parenthesized_type)])) @definition.type
 (#not-match? @definition.type "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (slice_type) (array_type) (map_type) (channel_type) (function_type) (parenthesized_type)]) @definition.type) @_group
 (#match? @_group "^type\\s*\\("))
((type_declaration (type_alias name: (type_identifier) @name)) @definition.type
 (#not-match? @definition.type "^type\\s*\\("))
((type_declaration (type_alias name: (type_identifier) @name) @definition.type) @_group
 (#match? @_group "^type\\s*\\("))

; Struct fields: a declaration of one name is captured whole, several names one by one.
(field_declaration . name: (field_identifier) @name . type: (_)) @definition.field
(field_declaration name: (field_identifier) @name @definition.field . name: (field_identifier))
(field_declaration name: (field_identifier) . name: (field_identifier) @name @definition.field)

; Interface methods.
(method_elem name: (field_identifier) @name) @definition.method

; -- functions and methods ---------------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function

; A method is qualified by its receiver type: func (s *Store) Get() -> Store.Get.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @qualifier
        (pointer_type (type_identifier) @qualifier)
        (generic_type type: (type_identifier) @qualifier)
        (pointer_type (generic_type type: (type_identifier) @qualifier))
      ]))
  name: (field_identifier) @name) @definition.method

; -- package-level constants and variables ------------------------------------------------
((source_file (const_declaration (const_spec . name: (identifier) @name . type: (_))) @definition.constant)
 (#not-match? @definition.constant "^const\\s*\\("))
((source_file (const_declaration (const_spec . name: (identifier) @name . value: (_))) @definition.constant)
 (#not-match? @definition.constant "^const\\s*\\("))
((source_file (const_declaration (const_spec . name: (identifier) @name . type: (_)) @definition.constant) @_group)
 (#match? @_group "^const\\s*\\("))
((source_file (const_declaration (const_spec . name: (identifier) @name . value: (_)) @definition.constant) @_group)
 (#match? @_group "^const\\s*\\("))
; A continuation line of an iota group: `B` alone.
(source_file (const_declaration (const_spec . name: (identifier) @name .) @definition.constant))
(source_file (const_declaration (const_spec (identifier) @name @definition.constant . (identifier))))
(source_file (const_declaration (const_spec (identifier) . (identifier) @name @definition.constant)))

(source_file (var_declaration (var_spec . name: (identifier) @name . type: (_))) @definition.variable)
(source_file (var_declaration (var_spec . name: (identifier) @name . value: (_))) @definition.variable)
(source_file (var_declaration (var_spec_list (var_spec . name: (identifier) @name . type: (_)) @definition.variable)))
(source_file (var_declaration (var_spec_list (var_spec . name: (identifier) @name . value: (_)) @definition.variable)))
(source_file (var_declaration (var_spec (identifier) @name @definition.variable . (identifier))))
(source_file (var_declaration (var_spec (identifier) . (identifier) @name @definition.variable)))
(source_file (var_declaration (var_spec_list (var_spec (identifier) @name @definition.variable . (identifier)))))
(source_file (var_declaration (var_spec_list (var_spec (identifier) . (identifier) @name @definition.variable))))

; -- base types: struct and interface embedding ------------------------------------------
(field_declaration !name type: [(type_identifier) (qualified_type)] @reference.inherits)
(field_declaration !name type: (pointer_type [(type_identifier) (qualified_type)] @reference.inherits))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @reference.inherits .))

; -- calls -------------------------------------------------------------------------------
; Builtins (`len`, `make`, `append`, ...) and conversions to predeclared types (`int(x)`,
; `string(b)`) are part of the language, not calls of anything a project or a package
; defines: neither edges nor unresolved calls.
(call_expression function: (identifier) @callee (#not-match? @callee "^(append|cap|clear|close|complex|copy|delete|imag|len|make|max|min|new|panic|print|println|real|recover|any|bool|byte|comparable|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr)$")) @reference.call
(call_expression function: (selector_expression) @callee) @reference.call
; An explicitly instantiated generic function: Map[int](xs).
(call_expression function: (index_expression operand: [(identifier) (selector_expression)] @callee)) @reference.call

; Composite literals build a value of a named type: Store{...}, &util.Options{...}.
(composite_literal type: [(type_identifier) (qualified_type)] @callee) @reference.new

; -- names bound inside functions --------------------------------------------------------
(parameter_declaration name: (identifier) @local)
; A method's receiver names an instance of the receiver type: `s.Len()` in a `*Square`
; method is `Square.Len`.
(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier) @receiver)))
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(statement_list (var_declaration (var_spec name: (identifier) @local)))
(statement_list (var_declaration (var_spec_list (var_spec name: (identifier) @local))))
(statement_list (const_declaration (const_spec name: (identifier) @local)))
(range_clause left: (expression_list (identifier) @local))
(type_switch_statement alias: (expression_list (identifier) @local))
(receive_statement left: (expression_list (identifier) @local))

; -- imports: one match per import spec ---------------------------------------------------
(import_spec !name path: (_) @import.module) @import
(import_spec name: [(package_identifier) (blank_identifier) (dot)] @import.alias path: (_) @import.module) @import

; -- type flow: what a name holds (docs/languages.md, "Call resolution") -----------------
; A parameter or `var x T` of a named type or a pointer to one holds an instance of it, as
; do `x := T{...}`, `x := &T{...}` and `x := NewT()` (a call: what it returns, below).
(parameter_declaration name: (identifier) @binding.name type: [(type_identifier) (qualified_type)] @binding.instance) @binding
(parameter_declaration name: (identifier) @binding.name type: (pointer_type [(type_identifier) (qualified_type)] @binding.instance)) @binding
(var_spec name: (identifier) @binding.name type: [(type_identifier) (qualified_type)] @binding.instance) @binding
(var_spec name: (identifier) @binding.name type: (pointer_type [(type_identifier) (qualified_type)] @binding.instance)) @binding
(short_var_declaration left: (expression_list . (identifier) @binding.name .) right: (expression_list . (composite_literal type: [(type_identifier) (qualified_type)] @binding.instance) .)) @binding
(short_var_declaration left: (expression_list . (identifier) @binding.name .) right: (expression_list . (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @binding.instance)) .)) @binding
((short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @binding.instance))) @binding (#not-eq? @binding.instance "new"))
; `x := new(T)` holds a *T.
(short_var_declaration left: (expression_list . (identifier) @binding.name .) right: (expression_list . (call_expression function: (identifier) @_new arguments: (argument_list . [(type_identifier) (identifier) (qualified_type) (selector_expression)] @binding.instance .)) .) (#eq? @_new "new")) @binding
; A type assertion names the type: `v := x.(*T)`, `v, ok := x.(T)`.
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (type_assertion_expression type: [(type_identifier) (qualified_type)] @binding.instance))) @binding
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (type_assertion_expression type: (pointer_type [(type_identifier) (qualified_type)] @binding.instance)))) @binding
; What a function returns, by its declared result: `func New() *Engine` returns an Engine.
(function_declaration result: [(type_identifier) (qualified_type)] @binding.instance) @binding
(function_declaration result: (pointer_type [(type_identifier) (qualified_type)] @binding.instance)) @binding
(method_declaration result: [(type_identifier) (qualified_type)] @binding.instance) @binding
(method_declaration result: (pointer_type [(type_identifier) (qualified_type)] @binding.instance)) @binding
