; Python definitions, references and imports (capture conventions: docs/languages.md).

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
; Anonymous functions are named <lambda1>, <lambda2> … within the code that holds them.
(lambda) @definition.lambda

; Module-level and class-level names bound by assignment are members.
(module (assignment left: (identifier) @name) @definition.variable)
(class_definition body: (block (assignment left: (identifier) @name) @definition.field))

; Base classes.
(class_definition superclasses: (argument_list (identifier) @reference.inherits))
(class_definition superclasses: (argument_list (attribute) @reference.inherits))

; Calls. The callee expression is kept as written.
(call function: (_) @callee) @reference.call

; Builtins that call the functions they are given (``map(f, xs)``, ``sorted(xs, key=k)``):
; the function is called by the code that hands it over.
; (Skipped when the builtin's name is bound in the file: see ``reference.passed``.)
(call function: (identifier) @_builtin arguments: (argument_list [(identifier) (attribute)] @reference.passed) (#any-of? @_builtin "map" "filter"))
(call function: (identifier) @_builtin arguments: (argument_list (keyword_argument name: (identifier) @_key value: [(identifier) (attribute)] @reference.passed)) (#any-of? @_builtin "sorted" "min" "max") (#eq? @_key "key"))

; A loop calls the iteration methods of what it iterates over.
(for_statement right: [(identifier) (attribute) (call)] @reference.iterate)

; Raising a class instantiates it.
(raise_statement [(identifier) (attribute)] @reference.call)

; Decorators are calls of the decorator expression, made by the code around the definition.
(decorator (identifier) @reference.decorator)
(decorator (attribute) @reference.decorator)
; ``@make(...)`` applies what ``make(...)`` returns.
(decorator (call) @reference.decorator)

; Bindings: what a name holds, for calls through it (x = Cls(); x.m() -> Cls.m).
(assignment left: (identifier) @binding.name right: (call function: [(identifier) (attribute)] @binding.instance)) @binding
(assignment left: (identifier) @binding.name right: [(identifier) (attribute)] @binding.alias) @binding
(assignment left: (identifier) @binding.name type: (type [(identifier) (attribute)] @binding.instance)) @binding
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.name right: (call function: [(identifier) (attribute)] @binding.instance)) @binding
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.name right: [(identifier) (attribute)] @binding.alias) @binding
(assignment left: [(pattern_list) (tuple_pattern)] @binding.names right: (_) @binding.values) @binding
(assignment left: (identifier) @binding.names right: [(list) (dictionary) (tuple)] @binding.values) @binding
(assignment left: (subscript) @binding.names right: (_) @binding.values) @binding
(assignment left: (identifier) @binding.name right: (lambda) @binding.lambda) @binding
(return_statement (lambda) @binding.lambda) @binding
(return_statement (parenthesized_expression (lambda) @binding.lambda)) @binding
; A decorated function's name holds what its outermost decorator returns.
(decorated_definition . (decorator) @binding.decorator definition: (function_definition name: (identifier) @binding.name)) @binding
; A parameter's default value is one of the values it holds.
(default_parameter name: (identifier) @binding.name value: [(identifier) (attribute)] @binding.alias) @binding
(default_parameter name: (identifier) @binding.name value: (lambda) @binding.lambda) @binding
(return_statement (call function: [(identifier) (attribute)] @binding.instance)) @binding
(return_statement [(identifier) (attribute)] @binding.alias) @binding
(typed_parameter (identifier) @binding.name type: (type [(identifier) (attribute)] @binding.instance)) @binding
(typed_default_parameter name: (identifier) @binding.name type: (type [(identifier) (attribute)] @binding.instance)) @binding
; ``with Session() as s``: the instance (``__enter__`` returns it, as it nearly always does).
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @binding.instance) alias: (as_pattern_target (identifier) @binding.name))) @binding
; ``def make(...) -> Cls``: what the function returns is an instance of its annotated class.
(function_definition return_type: (type [(identifier) (attribute)] @binding.instance)) @binding

; Names bound locally inside functions shadow outer and imported names.
(parameters (identifier) @local)
(parameters (default_parameter name: (identifier) @local))
(parameters (typed_parameter (identifier) @local))
(parameters (typed_default_parameter name: (identifier) @local))
(parameters (list_splat_pattern (identifier) @local))
(parameters (dictionary_splat_pattern (identifier) @local))
(lambda_parameters (identifier) @local)
(block (assignment left: (identifier) @local))
(for_statement left: (identifier) @local)
(with_item value: (as_pattern alias: (as_pattern_target (identifier) @local)))

; Imports: one match per imported name.
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.wildcard) @import
