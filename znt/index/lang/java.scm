; Java definitions, references and imports (capture conventions: docs/languages.md).

(package_declaration [(scoped_identifier) (identifier)] @name) @definition.package

; -- types -------------------------------------------------------------------------------
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.annotation

(enum_constant name: (identifier) @name) @definition.enum_member
(record_declaration parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.field))

; -- methods and constructors ------------------------------------------------------------
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(annotation_type_element_declaration name: (identifier) @name) @definition.method

; -- fields and constants ----------------------------------------------------------------
; A `variable` in a class is a field, an UPPER_CASE one a constant. A declaration of one
; name is captured whole (signature, javadoc); several names are captured one by one.
(field_declaration type: (_) . declarator: (variable_declarator name: (identifier) @name) .) @definition.variable
(field_declaration declarator: (variable_declarator name: (identifier) @name) @definition.variable . declarator: (_))
(field_declaration declarator: (_) . declarator: (variable_declarator name: (identifier) @name) @definition.variable)
(constant_declaration type: (_) . declarator: (variable_declarator name: (identifier) @name) .) @definition.variable
(constant_declaration declarator: (variable_declarator name: (identifier) @name) @definition.variable . declarator: (_))
(constant_declaration declarator: (_) . declarator: (variable_declarator name: (identifier) @name) @definition.variable)

; -- base types --------------------------------------------------------------------------
(superclass [(type_identifier) (scoped_type_identifier)] @reference.inherits)
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @reference.inherits))
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @reference.implements))
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @reference.implements)))
; An interface extends interfaces.
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @reference.inherits))
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @reference.inherits)))

; -- calls -------------------------------------------------------------------------------
; A bare call, and a call on `this` (the name alone: class members are in scope).
(method_invocation !object name: (identifier) @callee) @reference.call
(method_invocation object: (this) name: (identifier) @callee) @reference.call
; A call on anything else (a variable, a class, a chain) keeps the whole expression; its
; head decides how it resolves.
(method_invocation object: [
  (identifier) (field_access) (method_invocation) (scoped_identifier)
  (object_creation_expression) (parenthesized_expression) (array_access) (string_literal)
  (class_literal)]) @reference.call

; `super.m()`: looked up in the bases of the enclosing class.
(method_invocation object: (super)) @reference.super

(object_creation_expression type: (_) @callee) @reference.new

; -- names bound inside methods ----------------------------------------------------------
(formal_parameter name: (identifier) @local)
(spread_parameter (variable_declarator name: (identifier) @local))
(catch_formal_parameter name: (identifier) @local)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(enhanced_for_statement name: (identifier) @local)
(resource name: (identifier) @local)
(lambda_expression parameters: (identifier) @local)
(lambda_expression parameters: (inferred_parameters (identifier) @local))
(instanceof_expression name: (identifier) @local)

; -- imports: the module is the package (a class, for a static import), the name what it
; brings in: `import java.util.Map;` -> (java.util, Map); wildcards bind nothing.
((import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
 (#not-match? @import "^import\\s+static\\b"))
(import_declaration "static" (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
(import_declaration (identifier) @import.module .) @import
(import_declaration [(scoped_identifier) (identifier)] @import.module (asterisk) @import.wildcard) @import
