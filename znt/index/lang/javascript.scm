; JavaScript definitions, references and imports (capture conventions: docs/languages.md).
; Patterns that may capture the same node are kept mutually exclusive (a variable's value
; is listed by type, never a function or class), since the engine keeps whichever match of
; a node comes first and tree-sitter does not order matches by pattern.

; ---------------------------------------------------------------------------- classes
(class_declaration name: (identifier) @name) @definition.class
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))
(program (variable_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)))
; `module.exports = class Application extends Emitter {}`: the file's default export.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (class name: (identifier) @name) @definition.class) (#eq? @_module "module") (#eq? @_exports "exports")))

; ---------------------------------------------------------------------------- functions
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; Methods, getters, setters and the constructor of a class.
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.function)

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
; One function under several names of one object (`res.set = res.header = function header()
; {}`): the innermost assignment is the symbol (`res.header`), the names before it are its
; `@alias`es (`res.set()` binds to it; an alias of another object is dropped, extract.py).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) property: (property_identifier)) @alias right: (assignment_expression left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name) right: [(function_expression) (generator_function)]) @definition.method)) (#not-match? @qualifier "^(exports|module)$"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) property: (property_identifier)) @alias right: (assignment_expression left: (member_expression object: (identifier) property: (property_identifier)) @alias right: (assignment_expression left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name) right: [(function_expression) (generator_function)]) @definition.method))) (#not-match? @qualifier "^(exports|module)$"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) @definition.function) (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) @definition.function) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (function_expression name: (identifier) @name)) @definition.function) (#eq? @_module "module") (#eq? @_exports "exports"))
; An anonymous default export (`module.exports = (req, res) => {}`, `= function () {}`) is
; named `exports`, as the file reads it (`module.exports(req, res)`).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports @name) right: [(arrow_function) (function_expression !name) (generator_function !name)]) @definition.function) (#eq? @_module "module") (#eq? @_exports "exports"))
; `module.exports = { run() {}, stop: function () {} }`: the exported object's functions
; are the file's own names (`require('./m').run`). The object has no name: its functions
; (not its arrows, whose `this` is the module's) carry it as `@this_object`, so a `this.x()`
; in them binds to the sibling function `x` of the same object (znt/index/extract.py).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (method_definition name: (property_identifier) @name) @definition.function) @this_object)) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (property_identifier) @name value: [(function_expression) (generator_function)]) @definition.function) @this_object)) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (property_identifier) @name value: (arrow_function)) @definition.function))) (#eq? @_module "module") (#eq? @_exports "exports"))

; Module-level `const f = () => ...` / `function () {}` are functions.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))

; ---------------------------------------------------------------------------- variables
; Other module-level bindings; `const x = require('./x')` is an import, not a variable.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (jsx_element) (jsx_self_closing_element)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (jsx_element) (jsx_self_closing_element)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (jsx_element) (jsx_self_closing_element)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (jsx_element) (jsx_self_closing_element)] @_value (#not-match? @_value "^require\\s*\\(")) @definition.variable)))
(program (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name !value) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name !value) @definition.variable)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name !value) @definition.variable)))

; Class fields: a field holding a function is a method (`handle = (e) => ...`); the others
; are fields (constants when UPPER_CASE).
(class_body (field_definition property: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
(class_body (field_definition property: [(property_identifier) (private_property_identifier)] @name value: [(identifier) (number) (string) (template_string) (true) (false) (null) (undefined) (object) (array) (call_expression) (new_expression) (member_expression) (subscript_expression) (binary_expression) (unary_expression) (ternary_expression) (await_expression) (parenthesized_expression) (regex) (update_expression) (assignment_expression) (augmented_assignment_expression) (sequence_expression) (this) (yield_expression) (jsx_element) (jsx_self_closing_element)] @_value) @definition.variable)
(class_body (field_definition property: [(property_identifier) (private_property_identifier)] @name !value) @definition.variable)

; ---------------------------------------------------------------------------- base classes
(class_declaration (class_heritage [(identifier) (member_expression)] @reference.inherits))
(program (lexical_declaration (variable_declarator value: (class (class_heritage [(identifier) (member_expression)] @reference.inherits)))))
(program (export_statement declaration: (lexical_declaration (variable_declarator value: (class (class_heritage [(identifier) (member_expression)] @reference.inherits))))))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (class (class_heritage [(identifier) (member_expression)] @reference.inherits))) (#eq? @_module "module") (#eq? @_exports "exports")))

; ---------------------------------------------------------------------------- calls
; The callee expression is kept as written (`a.b.c`, `this.m`, `obj?.m`); dynamic callees
; (`f()()`, `handlers[k]()`) and `super(...)` are not references to a name.
; `require('./m')` loads a module (an import), it calls nothing of the project's.
(call_expression function: (identifier) @callee (#not-eq? @callee "require")) @reference.call
(call_expression function: (member_expression) @callee) @reference.call
(new_expression constructor: [(identifier) (member_expression)] @callee) @reference.new

; Decorators are calls of the decorator expression (`@dec` and `@dec(...)`, the latter
; being a call_expression already).
(decorator [(identifier) (member_expression)] @reference.call)

; A JSX element whose name is capitalised renders a component: a call of it. Lower-case
; names are HTML elements.
(jsx_opening_element name: [(identifier) (member_expression)] @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element name: [(identifier) (member_expression)] @reference.call (#match? @reference.call "^[A-Z]"))

; ---------------------------------------------------------------------------- locals
; Parameters (plain, defaulted, rest, destructured) and the single bare parameter of `x => ...`.
(formal_parameters (identifier) @local)
(formal_parameters (assignment_pattern left: (identifier) @local))
(formal_parameters (rest_pattern (identifier) @local))
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

; ---------------------------------------------------------------------------- type flow
; A name holding an instance of a class (`const app = new Koa()`, `app = new Koa()`): its
; methods are the class's (JavaScriptSyntax in javascript.py).
(variable_declarator name: (identifier) @binding.name value: (new_expression constructor: [(identifier) (member_expression)] @binding.instance)) @binding
(assignment_expression left: (identifier) @binding.name right: (new_expression constructor: [(identifier) (member_expression)] @binding.instance)) @binding

; What a function fills an object with at run time (`mixin(app, proto)`, `Object.assign(app,
; proto)`, `Object.setPrototypeOf(app, proto)`, `app = Object.create(proto)`): a `mixes` fact
; of the function (refs, never an edge) naming the source object, which znt.graph.resolve
; reads for a call of what that function returns (`var app = express(); app.use()`).
((call_expression function: (identifier) @_mix arguments: (arguments . (identifier) . (identifier) @reference.mixes)) (#eq? @_mix "mixin"))
((call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments . (identifier) . (identifier) @reference.mixes)) (#eq? @_object "Object") (#any-of? @_assign "assign" "setPrototypeOf"))
((variable_declarator value: (call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_create) arguments: (arguments . (identifier) @reference.mixes))) (#eq? @_object "Object") (#eq? @_create "create"))
; A name holding what a call returns (`var app = express()`): its members are those of the
; objects the function fills (`mixes`); `require()` loads a module (an import).
(variable_declarator name: (identifier) @binding.name value: (call_expression function: [(identifier) (member_expression)] @binding.instance) (#not-eq? @binding.instance "require")) @binding
; A chained declaration (`var app = module.exports = express()`, `const x = exports.x = new
; C()`): the name holds what the assignment's right side holds.
(variable_declarator name: (identifier) @binding.name value: (assignment_expression right: (call_expression function: [(identifier) (member_expression)] @binding.instance)) (#not-eq? @binding.instance "require")) @binding
(variable_declarator name: (identifier) @binding.name value: (assignment_expression right: (new_expression constructor: [(identifier) (member_expression)] @binding.instance))) @binding

; ---------------------------------------------------------------------------- exports
; The default export (`export default f`, `export default function f`, CommonJS
; `module.exports = f`) and local names exported under another name (`export { f as g }`),
; when they name a definition of the file: an import of that name elsewhere binds it.
(export_statement "default" @export.default declaration: [(function_declaration name: (identifier) @export.value) (generator_function_declaration name: (identifier) @export.value) (class_declaration name: (identifier) @export.value)]) @export
(export_statement "default" @export.default value: (identifier) @export.value) @export
(export_statement (export_clause (export_specifier name: (identifier) @export.value alias: (_) @export.name)) !source) @export
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (identifier) @export.value) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)
; `module.exports = function f() {}` and the chain `exports = module.exports = f`.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (function_expression name: (identifier) @export.value)) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)
(program (expression_statement (assignment_expression left: (identifier) right: (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (identifier) @export.value) @export.default) (#eq? @_module "module") (#eq? @_exports "exports")) @export)
; `var app = exports = module.exports = {}`, `var app = module.exports = {}`: the object `app`.
(program (variable_declaration (variable_declarator name: (identifier) @export.value value: (assignment_expression left: (identifier) @_e right: (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)))) @export.default) (#eq? @_e "exports") (#eq? @_module "module") (#eq? @_exports "exports")) @export
(program (variable_declaration (variable_declarator name: (identifier) @export.value value: (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports))) @export.default) (#eq? @_module "module") (#eq? @_exports "exports")) @export
; `module.exports = class C {}` and an anonymous `module.exports = () => {}` (named `exports`).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (class name: (identifier) @export.value)) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports @export.value) right: [(arrow_function) (function_expression !name) (generator_function !name)]) @export.default (#eq? @_module "module") (#eq? @_exports "exports")) @export)

; ---------------------------------------------------------------------------- imports
; import X from 'm'            -> the default export, bound to X
(import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import
; import * as ns from 'm'
(import_statement (import_clause (namespace_import (identifier) @import.alias) @import.wildcard) source: (string) @import.module) @import
; import { A, B as C } from 'm'
(import_statement (import_clause (named_imports (import_specifier name: _ @import.name alias: (_)? @import.alias))) source: (string) @import.module) @import
; import 'm' (side effects only)
(import_statement . source: (string) @import.module) @import
; export { A, B as C } from 'm', export * from 'm', export * as ns from 'm': re-exports, which
; bind no local name: the local name is `export C`, `export *`, `export ns` (javascript.py)
(export_statement (export_clause (export_specifier name: _ @import.name) @import.alias) source: (string) @import.module) @import
(export_statement "*" @import.wildcard source: (string) @import.module) @import
(export_statement (namespace_export) @import.alias @import.wildcard source: (string) @import.module) @import
; import('m')
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

; CommonJS: const x = require('m'); const { A, B: c } = require('m'); require('m')
(variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name) value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias)) value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
; const x = require('m').y: the member y of the module, as `const { y: x } = require('m')`
; (no alias when the names are equal: an alias equal to its name marks a re-export)
(variable_declarator name: (identifier) @_local value: (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) property: (property_identifier) @import.name) (#eq? @_local @import.name) (#eq? @_require "require")) @import
(variable_declarator name: (identifier) @import.alias value: (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) property: (property_identifier) @import.name) (#not-eq? @import.alias @import.name) (#eq? @_require "require")) @import
(expression_statement (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)) (#eq? @_require "require")) @import
; `module.exports = require('./lib/x')` (also `exports = module.exports = require(...)`): the
; file re-exports that module, its default export as its own (the alias `module.exports`
; marks it, javascript.py).
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) @import.alias right: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .))) (#eq? @_module "module") (#eq? @_exports "exports") (#eq? @_require "require")) @import)
(program (expression_statement (assignment_expression left: (identifier) right: (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) @import.alias right: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .)))) (#eq? @_module "module") (#eq? @_exports "exports") (#eq? @_require "require")) @import)
