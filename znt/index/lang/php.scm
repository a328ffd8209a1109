; PHP definitions, references and imports (capture conventions: docs/languages.md).

; `namespace App\Models;` is a namespace symbol. Classes are not qualified by it: a class
; is found through `use` under its own name (a braced `namespace X { }` is not a symbol, so
; its classes are named the same way).
(namespace_definition !body name: (namespace_name) @name) @definition.namespace

; Types.
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

; Functions and methods (`__construct` is the constructor).
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

; Members. A declaration of one element is the symbol's node (signature, doc comment); in
; `const A = 1, B = 2;` or `public $a, $b;` each element is its own node.
(const_declaration . (const_element (name) @name) .) @definition.constant
(const_declaration
  [(visibility_modifier) (final_modifier)] . (const_element (name) @name) .) @definition.constant
(const_declaration type: (_) . (const_element (name) @name) .) @definition.constant
(const_declaration (const_element) (const_element (name) @name) @definition.constant)
(const_declaration (const_element (name) @name) @definition.constant (const_element))
(property_declaration
  type: (_) . (property_element name: (variable_name (name) @name)) .) @definition.property
(property_declaration
  [(visibility_modifier) (static_modifier) (readonly_modifier) (var_modifier) (final_modifier) (abstract_modifier)]
  . (property_element name: (variable_name (name) @name)) .) @definition.property
(property_declaration
  (property_element)
  (property_element name: (variable_name (name) @name)) @definition.property)
(property_declaration
  (property_element name: (variable_name (name) @name)) @definition.property
  (property_element))
(enum_case name: (name) @name) @definition.enum_member

; Variables assigned at file level.
(program
  (expression_statement
    (assignment_expression left: (variable_name (name) @name))) @definition.variable)

; Base types; a trait used in a class body is inherited code.
(class_declaration (base_clause [(name) (qualified_name)] @reference.inherits))
(interface_declaration (base_clause [(name) (qualified_name)] @reference.inherits))
(class_declaration (class_interface_clause [(name) (qualified_name)] @reference.implements))
(enum_declaration (class_interface_clause [(name) (qualified_name)] @reference.implements))
(declaration_list (use_declaration [(name) (qualified_name)] @reference.inherits))

; Calls. A function call keeps its callee expression; a method or static call has no node
; for `$obj->m` / `Cls::m` without the arguments, so the call itself is the callee.
(function_call_expression function: (_) @callee) @reference.call
(member_call_expression) @reference.call
(nullsafe_member_call_expression) @reference.call
((scoped_call_expression scope: (_) @_scope) @reference.call
 (#not-eq? @_scope "parent"))
; `parent::m()`: looked up in the bases of the enclosing class.
((scoped_call_expression scope: (relative_scope) @_scope) @reference.super
 (#eq? @_scope "parent"))
(object_creation_expression [(name) (qualified_name)] @callee) @reference.new

; Every `$variable` inside a function is a local (parameters, assignments, foreach, catch,
; closures' `use`): a call through one is never bound to a same-named function.
((variable_name (name) @local) (#not-eq? @local "this"))

; Imports: `use A\B\C;`, `use A\B\C as D;`, `use function A\f;`, `use A\B;`, and the group
; form `use A\{B, C as D};`.
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name prefix: (namespace_name) @import.module (name) @import.name) !alias)) @import
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name prefix: (namespace_name) @import.module (name) @import.name)
    alias: (name) @import.alias)) @import
(namespace_use_declaration (namespace_use_clause . (name) @import.module !alias)) @import
(namespace_use_declaration
  (namespace_use_clause . (name) @import.module alias: (name) @import.alias)) @import
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause . [(name) (qualified_name)] @import.name !alias))) @import
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause . [(name) (qualified_name)] @import.name alias: (name) @import.alias))) @import

; File includes with a literal path: `require 'x.php'`, `require __DIR__ . '/x.php'`,
; `require dirname(__DIR__) . '/x.php'` (and require_once, include, include_once).
(require_expression [(string) (encapsed_string)] @import.module) @import
(require_once_expression [(string) (encapsed_string)] @import.module) @import
(include_expression [(string) (encapsed_string)] @import.module) @import
(include_once_expression [(string) (encapsed_string)] @import.module) @import
(require_expression
  (binary_expression
    left: (name) @_dir (#eq? @_dir "__DIR__")
    right: [(string) (encapsed_string)] @import.module)) @import
(require_once_expression
  (binary_expression
    left: (name) @_dir (#eq? @_dir "__DIR__")
    right: [(string) (encapsed_string)] @import.module)) @import
(include_expression
  (binary_expression
    left: (name) @_dir (#eq? @_dir "__DIR__")
    right: [(string) (encapsed_string)] @import.module)) @import
(include_once_expression
  (binary_expression
    left: (name) @_dir (#eq? @_dir "__DIR__")
    right: [(string) (encapsed_string)] @import.module)) @import
(require_expression
  (binary_expression
    left: (function_call_expression function: (name) @_fn (#eq? @_fn "dirname"))
    right: [(string) (encapsed_string)]) @import.module) @import
(require_once_expression
  (binary_expression
    left: (function_call_expression function: (name) @_fn (#eq? @_fn "dirname"))
    right: [(string) (encapsed_string)]) @import.module) @import
(include_expression
  (binary_expression
    left: (function_call_expression function: (name) @_fn (#eq? @_fn "dirname"))
    right: [(string) (encapsed_string)]) @import.module) @import
(include_once_expression
  (binary_expression
    left: (function_call_expression function: (name) @_fn (#eq? @_fn "dirname"))
    right: [(string) (encapsed_string)]) @import.module) @import
