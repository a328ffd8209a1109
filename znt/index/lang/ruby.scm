; Ruby definitions, references and requires (capture conventions: docs/languages.md).

; Classes and modules (a Ruby module is a namespace; `class A::B` is qualified by A).
(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @qualifier name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.namespace
(module name: (scope_resolution scope: (_) @qualifier name: (constant) @name)) @definition.namespace

; Methods: `def m` and `def self.m` (both named Class.m); `initialize` is the constructor.
(method name: (_) @name) @definition.function
(singleton_method object: (self) name: (_) @name) @definition.function

; Constants.
(assignment left: (constant) @name) @definition.constant

; Base class and mixins.
(class superclass: (superclass [(constant) (scope_resolution)] @reference.inherits))
(call
  !receiver
  method: (identifier) @_mixin (#any-of? @_mixin "include" "prepend")
  arguments: (argument_list [(constant) (scope_resolution)] @reference.implements))

; Calls. A call node spans its receiver, arguments and block, so the callee is built from
; the parts that keep it a plain dotted name:
; - a bare call `m(x)` / `m x`: the method name (declarative calls are not calls);
(call
  !receiver
  method: (identifier) @callee
  (#not-match? @callee "^(require|require_relative|load|include|extend|prepend|attr_accessor|attr_reader|attr_writer|private|protected|public|module_function|private_constant|private_class_method|public_class_method)$")) @reference.call
; - `self.m(...)`: the method name, looked up in the class (class_scope_visible). The setter
;   in `self.m = v` (the left side of an assignment) is no call of `m`: ruby.py's
;   `RubySyntax.callee_text` drops it. (Listing the parents that hold the call as a value
;   instead took 33 alternatives and 0.24 s to compile, in every worker and every rescan.)
(call receiver: (self) method: (identifier) @callee (#not-eq? @callee "class")) @reference.call
; - `Const.new(...)`: a constructor call of Const;
(call
  receiver: [(constant) (scope_resolution)] @callee
  method: (identifier) @_new (#eq? @_new "new")) @reference.new
; - `recv.m` without arguments or block: the call as written;
(call
  receiver: [(identifier) (instance_variable) (class_variable) (global_variable) (call)]
  method: (identifier)
  !arguments
  !block) @reference.call
(call
  receiver: [(constant) (scope_resolution)]
  method: (identifier) @_m (#not-eq? @_m "new")
  !arguments
  !block) @reference.call
; - `recv.m(args)` with parenthesized arguments and no block: `recv.m()`.
(call
  receiver: [(identifier) (instance_variable) (class_variable) (global_variable) (call)]
  method: (identifier)
  arguments: (argument_list "(")
  !block) @reference.call
(call
  receiver: [(constant) (scope_resolution)]
  method: (identifier) @_m (#not-eq? @_m "new")
  arguments: (argument_list "(")
  !block) @reference.call

; Parameters, block parameters and local variables shadow outer names.
(method_parameters (identifier) @local)
(method_parameters (optional_parameter name: (identifier) @local))
(method_parameters (splat_parameter name: (identifier) @local))
(method_parameters (hash_splat_parameter name: (identifier) @local))
(method_parameters (block_parameter name: (identifier) @local))
(method_parameters (keyword_parameter name: (identifier) @local))
(block_parameters (identifier) @local)
(block_parameters (optional_parameter name: (identifier) @local))
(block_parameters (splat_parameter name: (identifier) @local))
(block_parameters (keyword_parameter name: (identifier) @local))
(lambda_parameters (identifier) @local)
(assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(operator_assignment left: (identifier) @local)

; Requires: `require 'x'` and `require_relative 'x'` (marked by @import.name, see ruby.py).
(call
  !receiver
  method: (identifier) @_req (#eq? @_req "require")
  arguments: (argument_list . (string (string_content) @import.module) .)) @import
(call
  !receiver
  method: (identifier) @import.name (#eq? @import.name "require_relative")
  arguments: (argument_list . (string (string_content) @import.module) .)) @import
