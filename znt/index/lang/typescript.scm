; TypeScript definitions, references and imports (capture conventions: docs/languages.md).
; One query for both the typescript and the tsx grammar, so it names no JSX node type.
; Patterns that may capture the same node are kept mutually exclusive (a variable's value
; is listed by type, never a function or class), since the engine keeps whichever match of
; a node comes first and tree-sitter does not order matches by pattern.

; ---------------------------------------------------------------------------- types
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum_member)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))
(program (variable_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)))
(internal_module body: (statement_block (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))))

; namespace A.B { ... } and the legacy `module A { ... }` (not `declare module "x"`).
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name) @definition.namespace

; ---------------------------------------------------------------------------- functions
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; Methods, getters, setters, the constructor and abstract methods of a class; overload
; signatures without a body are not separate symbols.
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(class_body (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.function)

; Methods of an object literal bound to a module-level name (`const api = { run() {},
; stop: function () {} }`): `api.run`, methods whose `this` is that object. A property
; holding an arrow function is a function of the object: its `this` is not the object.
(program (lexical_declaration (variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method))))
(program (variable_declaration (variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method))))
(program (export_statement declaration: (lexical_declaration (variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method)))))
(program (export_statement declaration: (variable_declaration (variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method)))))
(program (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.method))))
(program (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.method))))
(program (export_statement declaration: (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.method)))))
(program (export_statement declaration: (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.method)))))
(program (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function))))
(program (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function))))
(program (export_statement declaration: (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function)))))
(program (export_statement declaration: (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function)))))

; Functions assigned to members at module level, named as a reader calls them:
; `app.use = function use() {}` -> `app.use` (its `this` is `app`: `this.set()` is `app.set`),
; `Foo.prototype.bar = function () {}` -> `Foo.bar`, `exports.x = ...` and
; `module.exports.x = ...` -> `x` (what `require('./m').x` names), `module.exports = function
; f() {}` -> `f`, the file's default export. Arrow functions for exported names (not for
; `obj.x = () => ...`: an arrow's `this` is not `obj`).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name) right: [(function_expression) (generator_function)]) @definition.method) (#not-match? @qualifier "^(exports|module)$"))
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @qualifier property: (property_identifier) @_proto) property: (property_identifier) @name) right: [(function_expression) (generator_function)]) @definition.method) (#eq? @_proto "prototype"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) @definition.function) (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) @definition.function) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (function_expression name: (identifier) @name)) @definition.function) (#eq? @_module "module") (#eq? @_exports "exports"))
; `module.exports = { run() {}, stop: function () {} }`: the exported object's functions
; are the file's own names (`require('./m').run`). The object has no name: its functions
; (not its arrows, whose `this` is the module's) carry it as `@this_object`, so a `this.x()`
; in them binds to the sibling function `x` of the same object (znt/index/extract.py).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (method_definition name: (property_identifier) @name) @definition.function) @this_object)) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.function) @this_object)) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function))) (#eq? @_module "module") (#eq? @_exports "exports"))

; Members of an interface.
(interface_body (method_signature name: (property_identifier) @name) @definition.function)
(interface_body (property_signature name: (property_identifier) @name) @definition.variable)

; Module-level (and namespace-level) `const f = () => ...` / `function () {}` are functions.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(internal_module body: (statement_block (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))))

; ---------------------------------------------------------------------------- variables
; Other module- and namespace-level bindings; `const x = require('./x')` is an import, not a variable.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable)))
(internal_module body: (statement_block (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable))))
(program (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name !value) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name !value) @definition.variable)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable)))
(internal_module body: (statement_block (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable))))

; Class fields: a field holding a function is a method (`handle = (e) => ...`); the others
; are fields (constants when UPPER_CASE).
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (as_expression) (satisfies_expression) (non_null_expression)] @_value) @definition.variable)
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name !value) @definition.variable)

; ---------------------------------------------------------------------------- base types
(class_declaration (class_heritage (extends_clause value: [(identifier) (member_expression)] @reference.inherits)))
(abstract_class_declaration (class_heritage (extends_clause value: [(identifier) (member_expression)] @reference.inherits)))
(class_declaration (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @reference.implements)))
(abstract_class_declaration (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @reference.implements)))
(interface_declaration (extends_type_clause type: [(type_identifier) (nested_type_identifier) (generic_type)] @reference.inherits))

; ---------------------------------------------------------------------------- calls
; The callee expression is kept as written (`a.b.c`, `this.m`, `obj?.m`; type arguments
; are dropped); dynamic callees (`f()()`, `handlers[k]()`) and `super(...)` are not
; references to a name.
; `require('./m')` loads a module (an import), it calls nothing of the project's.
(call_expression function: (identifier) @callee (#not-eq? @callee "require")) @reference.call
(call_expression function: (member_expression) @callee) @reference.call
(new_expression constructor: [(identifier) (member_expression)] @callee) @reference.new

; Decorators are calls of the decorator expression (`@Dec` and `@Dec(...)`, the latter
; being a call_expression already).
(decorator [(identifier) (member_expression)] @reference.call)

; In .tsx files a JSX element whose name is capitalised renders a component: a call of it.
; The query also serves the typescript grammar, which has no JSX node types, so the
; element is recognised by its text (`<Name`) instead of its node type; no other node with
; a `name` field starts with `<`. Lower-case names are HTML elements, closing tags start
; with `</`.
((_ name: [(identifier) (member_expression)] @reference.call) @_jsx (#match? @_jsx "^<[A-Z]"))

; ---------------------------------------------------------------------------- locals
; Parameters (plain, optional, defaulted, rest, destructured, constructor parameter
; properties) and the single bare parameter of `x => ...`.
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(required_parameter pattern: (rest_pattern (identifier) @local))
(arrow_function parameter: (identifier) @local)
(object_pattern (shorthand_property_identifier_pattern) @local)
(object_pattern (pair_pattern value: (identifier) @local))
(object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local))
(object_pattern (rest_pattern (identifier) @local))
(array_pattern (identifier) @local)
(array_pattern (assignment_pattern left: (identifier) @local))
(array_pattern (rest_pattern (identifier) @local))
; Variables declared inside a function body or block, loop variables, caught errors.
(statement_block (lexical_declaration (variable_declarator name: (identifier) @local)))
(statement_block (variable_declaration (variable_declarator name: (identifier) @local)))
(for_statement initializer: (lexical_declaration (variable_declarator name: (identifier) @local)))
(for_statement initializer: (variable_declaration (variable_declarator name: (identifier) @local)))
(for_in_statement left: (identifier) @local)
(catch_clause parameter: (identifier) @local)

; ---------------------------------------------------------------------------- exports
; The default export (`export default f`, `export default function f`, CommonJS
; `module.exports = f`) and local names exported under another name (`export { f as g }`),
; when they name a definition of the file: an import of that name elsewhere binds it.
(export_statement "default" @export.default declaration: [(function_declaration name: (identifier) @export.value) (generator_function_declaration name: (identifier) @export.value) (class_declaration name: (type_identifier) @export.value) (abstract_class_declaration name: (type_identifier) @export.value)]) @export
(export_statement "default" @export.default value: (identifier) @export.value) @export
(export_statement (export_clause (export_specifier name: (identifier) @export.value alias: (_) @export.name)) !source) @export
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (identifier) @export.value) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)
; `module.exports = function f() {}` and the chain `exports = module.exports = f`.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (function_expression name: (identifier) @export.value)) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)
(program (expression_statement (assignment_expression left: (identifier) right: (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (identifier) @export.value) @export.default) (#eq? @_module "module") (#eq? @_exports "exports")) @export)
; TypeScript `export = f`: what `import x = require('./m')` binds.
(export_statement "=" @export.default (identifier) @export.value) @export

; ---------------------------------------------------------------------------- imports
; import X from 'm'            -> the default export, bound to X
(import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import
; import * as ns from 'm'
(import_statement (import_clause (namespace_import (identifier) @import.alias) @import.wildcard) source: (string) @import.module) @import
; import { A, B as C } from 'm'; import type { T } from 'm'
(import_statement (import_clause (named_imports (import_specifier name: _ @import.name alias: (_)? @import.alias))) source: (string) @import.module) @import
; import X = require('m')       -> the module's `export =`, bound to X
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.module)) @import
; import 'm' (side effects only)
(import_statement . source: (string) @import.module) @import
; export { A, B as C } from 'm', export * from 'm', export * as ns from 'm': re-exports, which
; bind no local name: the local name is `export C`, `export *`, `export ns` (javascript.py)
(export_statement (export_clause (export_specifier name: _ @import.name) @import.alias) source: (string) @import.module) @import
(export_statement "*" @import.wildcard source: (string) @import.module) @import
(export_statement (namespace_export) @import.alias @import.wildcard source: (string) @import.module) @import
; import('m')
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

; CommonJS in TypeScript files: const x = require('m'); const { A } = require('m')
(variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name) value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias)) value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
; const x = require('m').y: the member y of the module, as `const { y: x } = require('m')`
; (no alias when the names are equal: an alias equal to its name marks a re-export)
(variable_declarator name: (identifier) @_local value: (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) property: (property_identifier) @import.name) (#eq? @_local @import.name) (#eq? @_require "require")) @import
(variable_declarator name: (identifier) @import.alias value: (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) property: (property_identifier) @import.name) (#not-eq? @import.alias @import.name) (#eq? @_require "require")) @import
(expression_statement (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
