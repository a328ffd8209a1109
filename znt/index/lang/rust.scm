; Rust definitions, references and imports (capture conventions: docs/languages.md).

; Types, inline modules, macros.
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro

; `impl Foo` / `impl<T> Trait for Foo<T>` names its items `Foo.item` without being a symbol.
(impl_item type: (type_identifier) @name) @definition.scope
(impl_item type: (generic_type type: (type_identifier) @name)) @definition.scope
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @definition.scope
(impl_item
  type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name))) @definition.scope

; Functions, by where they sit: in an impl they are methods; in a trait, methods by nesting.
(source_file (function_item name: (identifier) @name) @definition.function)
(block (function_item name: (identifier) @name) @definition.function)
(mod_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))
(trait_item
  body: (declaration_list (function_signature_item name: (identifier) @name) @definition.function))
(foreign_mod_item
  body: (declaration_list (function_signature_item name: (identifier) @name) @definition.function))

; Members.
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.enum_member
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

; Base types: supertraits, and the trait an impl implements.
(trait_item
  bounds: (trait_bounds
    [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.inherits))
(impl_item trait: (_) @reference.implements)

; Calls (`f()`, `Foo::new()`, `x.m()`) and struct literals (`Foo { .. }`). Macro
; invocations are not calls: `write!` is not the function `write`.
(call_expression function: (_) @callee) @reference.call
(struct_expression name: [(type_identifier) (scoped_type_identifier)] @callee) @reference.new

; Names bound inside a function: parameters, `let`, closures, `for`, `if let`, `match`.
(parameter pattern: (identifier) @local)
(let_declaration pattern: (identifier) @local)
(closure_parameters (identifier) @local)
(for_expression pattern: (identifier) @local)
(let_condition pattern: (identifier) @local)
(match_pattern (identifier) @local)
(tuple_pattern (identifier) @local)
(tuple_struct_pattern type: (_) (identifier) @local)
(slice_pattern (identifier) @local)
(reference_pattern (identifier) @local)
(ref_pattern (identifier) @local)
(mut_pattern (identifier) @local)
(captured_pattern (identifier) @local)
(or_pattern (identifier) @local)
(field_pattern pattern: (identifier) @local)
(field_pattern name: (shorthand_field_identifier) @local)

; Imports: one match per imported name. `use a::b::C;`, `use a::b::C as D;`, `use a;`,
; `use a::b::*;`, `use a::b::{C, D as E, self, c::F};`. A `self::` / `super::` path is only
; taken at file level: inside an inline `mod` it is relative to that module, which the
; file path does not tell.
((use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
  (#not-match? @import.module "^(self|super)(::|$)"))
((use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
  (#not-match? @import.module "^(self|super)(::|$)"))
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import
((use_declaration
  argument: (use_wildcard [(scoped_identifier) (identifier)] @import.module) @import.wildcard) @import
  (#not-match? @import.module "^(self|super)(::|$)"))
((use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list [(identifier) (self) (scoped_identifier)] @import.name))) @import
  (#not-match? @import.module "^(self|super)(::|$)"))
((use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)))) @import
  (#not-match? @import.module "^(self|super)(::|$)"))

(source_file
  ((use_declaration
    argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
    (#match? @import.module "^(self|super)(::|$)")))
(source_file
  ((use_declaration
    argument: (use_as_clause
      path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
      alias: (identifier) @import.alias)) @import
    (#match? @import.module "^(self|super)(::|$)")))
(source_file
  (use_declaration
    argument: (use_wildcard [(scoped_identifier) (super) (self)] @import.module) @import.wildcard) @import
  (#match? @import.module "^(self|super)(::|$)"))
(source_file
  ((use_declaration
    argument: (scoped_use_list
      path: (_) @import.module
      list: (use_list [(identifier) (self) (scoped_identifier)] @import.name))) @import
    (#match? @import.module "^(self|super)(::|$)")))
(source_file
  ((use_declaration
    argument: (scoped_use_list
      path: (_) @import.module
      list: (use_list (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)))) @import
    (#match? @import.module "^(self|super)(::|$)")))

; `mod x;` declares the module file `x.rs` / `x/mod.rs` (module and alias: see rust.py).
(source_file (mod_item !body name: (identifier) @import.module @import.alias) @import)
