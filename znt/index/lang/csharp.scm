; C# definitions, references and imports (capture conventions: docs/languages.md).

; Namespaces. A block namespace contains its members; a file-scoped namespace
; (`namespace A.B;`) scopes the rest of the file, so the compilation unit is its node and
; every type of the file is qualified by it, as in a block namespace.
(namespace_declaration name: (_) @name) @definition.namespace
(compilation_unit (file_scoped_namespace_declaration name: (_) @name)) @definition.namespace

; Types.
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(delegate_declaration name: (identifier) @name) @definition.type

; Functions: methods, constructors, local functions (nested in a method).
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(local_function_statement name: (identifier) @name) @definition.function

; Members; a `const` field is a constant. A field declaring one name is the symbol's node
; (signature, doc comment); in `int a, b;` each declarator is its own node.
(field_declaration
  (modifier) @_const (#eq? @_const "const")
  (variable_declaration type: (_) . (variable_declarator name: (identifier) @name) .)) @definition.constant
(field_declaration
  (modifier) @_const (#eq? @_const "const")
  (variable_declaration
    (variable_declarator)
    (variable_declarator name: (identifier) @name) @definition.constant))
(field_declaration
  (modifier) @_const (#eq? @_const "const")
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.constant
    (variable_declarator)))
(field_declaration
  (variable_declaration type: (_) . (variable_declarator name: (identifier) @name) .)) @definition.field
(field_declaration
  (variable_declaration
    (variable_declarator)
    (variable_declarator name: (identifier) @name) @definition.field))
(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.field
    (variable_declarator)))
(event_field_declaration
  (variable_declaration type: (_) . (variable_declarator name: (identifier) @name) .)) @definition.event
(event_field_declaration
  (variable_declaration
    (variable_declarator)
    (variable_declarator name: (identifier) @name) @definition.event))
(event_field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.event
    (variable_declarator)))
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.event
(enum_member_declaration name: (identifier) @name) @definition.enum_member

; Base types. C# does not say which base is a class: by the .NET naming rule an `I`-prefixed
; name (`IDisposable`, `Shop.IAuditable<T>`) is an interface. Structs only implement, and an
; interface's bases are interfaces it extends.
(class_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.implements
    (#match? @reference.implements "^(\\w+\\.)*I[A-Z]")))
(class_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.inherits
    (#not-match? @reference.inherits "^(\\w+\\.)*I[A-Z]")))
(record_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.implements
    (#match? @reference.implements "^(\\w+\\.)*I[A-Z]")))
(record_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.inherits
    (#not-match? @reference.inherits "^(\\w+\\.)*I[A-Z]")))
(struct_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.implements))
(interface_declaration
  (base_list [(identifier) (generic_name) (qualified_name)] @reference.inherits))

; Calls and constructions. The callee expression is kept as written.
((invocation_expression function: (_) @callee) @reference.call
 (#not-match? @callee "^base\\s*\\.\\s*[A-Za-z_][A-Za-z0-9_]*$"))
; `base.M()`: looked up in the bases of the enclosing class.
(invocation_expression
  function: (member_access_expression expression: "base" name: (identifier)) @callee) @reference.super
(object_creation_expression type: (_) @callee) @reference.new

; Names bound inside a function shadow members, types and imports.
(parameter name: (identifier) @local)
(implicit_parameter) @local
(local_declaration_statement
  (variable_declaration (variable_declarator name: (identifier) @local)))
(local_declaration_statement
  (variable_declaration (variable_declarator (tuple_pattern name: (identifier) @local))))
(for_statement initializer: (variable_declaration (variable_declarator name: (identifier) @local)))
(using_statement (variable_declaration (variable_declarator name: (identifier) @local)))
(foreach_statement left: (identifier) @local)
(catch_declaration name: (identifier) @local)
(declaration_expression name: (identifier) @local)
(declaration_pattern name: (identifier) @local)

; Imports. `using A.B;` (namespace), `using static A.B.C;` (every static member of one type),
; `using U = A.B.C;` (an alias).
((using_directive !name [(identifier) (qualified_name)] @import.module) @import
  (#not-match? @import "^(global\\s+)?using\\s+static\\s"))
(using_directive "static" @import.wildcard !name [(identifier) (qualified_name)] @import.module) @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import
