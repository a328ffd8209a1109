; Kotlin definitions, references and imports (capture conventions: docs/languages.md).
; The grammar has no field names: children are matched by node type.

; The identifier, not the header: the grammar folds a comment that follows into the header.
(package_header (identifier) @name @definition.package)

; -- types -------------------------------------------------------------------------------
; `class`, `enum class` and `interface` are all class_declaration; the keyword tells them
; apart (an enum class also has the `class` keyword, hence the predicate).
((class_declaration "class" (type_identifier) @name) @definition.class
 (#not-match? @definition.class "^[^{(]*\\benum\\s+class\\b"))
(class_declaration "enum" (type_identifier) @name) @definition.enum
(class_declaration "interface" (type_identifier) @name) @definition.interface
(object_declaration (type_identifier) @name) @definition.object
; A named companion object; an unnamed one adds its members to the class itself.
(companion_object (type_identifier) @name) @definition.object
(type_alias (type_identifier) @name) @definition.type

(enum_entry (simple_identifier) @name) @definition.enum_member

; Properties declared in the primary constructor (`class User(val name: String)`).
(primary_constructor (class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.property)

; -- functions and constructors ----------------------------------------------------------
; A function in a class is a method, in a function a nested function.
(function_declaration (simple_identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.constructor

; -- properties --------------------------------------------------------------------------
; `const val` is a constant; other top-level properties are variables (an UPPER_CASE one a
; constant too), those of a class or object properties.
((source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.constant)
 (#match? @definition.constant "^[^=]*\\bconst\\s+val\\b"))
((source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)
 (#not-match? @definition.variable "^[^=]*\\bconst\\s+val\\b"))
((class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.constant)
 (#match? @definition.constant "^[^=]*\\bconst\\s+val\\b"))
((class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.property)
 (#not-match? @definition.property "^[^=]*\\bconst\\s+val\\b"))
(enum_class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.property)

; -- base types --------------------------------------------------------------------------
; A supertype called with arguments is the superclass; one named alone is an interface
; (of a class, object or enum) or a super-interface (of an interface).
(class_declaration (delegation_specifier (constructor_invocation (user_type) @reference.inherits)))
(object_declaration (delegation_specifier (constructor_invocation (user_type) @reference.inherits)))
(companion_object (delegation_specifier (constructor_invocation (user_type) @reference.inherits)))
(class_declaration "class" (delegation_specifier (user_type) @reference.implements))
(class_declaration "class" (delegation_specifier (explicit_delegation (user_type) @reference.implements)))
(object_declaration (delegation_specifier (user_type) @reference.implements))
(companion_object (delegation_specifier (user_type) @reference.implements))
(class_declaration "interface" (delegation_specifier (user_type) @reference.inherits))

; -- calls -------------------------------------------------------------------------------
; Constructor calls look like function calls: `User("a")` resolves to the class.
((call_expression . [(simple_identifier) (navigation_expression)] @callee (call_suffix)) @reference.call
 (#not-match? @callee "^super\\s*\\.\\s*[^.]+$"))
; `super.m()` (without a `<Type>` or a label): looked up in the bases of the enclosing class.
((call_expression
   . (navigation_expression . (super_expression) @_super . (navigation_suffix (simple_identifier)) .) @callee
   (call_suffix)) @reference.super
 (#eq? @_super "super"))

; -- names bound inside functions --------------------------------------------------------
(function_value_parameters (parameter (simple_identifier) @local))
(lambda_parameters (variable_declaration (simple_identifier) @local))
(statements (property_declaration (variable_declaration (simple_identifier) @local)))
(statements (property_declaration (multi_variable_declaration (variable_declaration (simple_identifier) @local))))
(for_statement (variable_declaration (simple_identifier) @local))
(for_statement (multi_variable_declaration (variable_declaration (simple_identifier) @local)))
(catch_block (simple_identifier) @local)

; -- imports: one per header -------------------------------------------------------------
(import_header (identifier) @import.module .) @import
(import_header (identifier) @import.module (import_alias (type_identifier) @import.alias)) @import
(import_header (identifier) @import.module (wildcard_import) @import.wildcard) @import
