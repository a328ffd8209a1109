; Protocol Buffers (capture conventions: docs/languages.md).
;
; The package is a symbol of its own (it is a statement, not a block, so it contains
; nothing); messages, enums and services nest as written, with fields, enum values and rpcs
; inside them. The fields of a `oneof` are fields of the enclosing message.

(package (full_ident) @name) @definition.package

(message (message_name) @name) @definition.message
(enum (enum_name) @name) @definition.enum
(service (service_name) @name) @definition.service
(rpc (rpc_name) @name) @definition.rpc

(field (identifier) @name) @definition.field
(map_field (identifier) @name) @definition.field
(oneof_field (identifier) @name) @definition.field
(enum_field (identifier) @name) @definition.enum_member

(import path: (string) @import.module) @import
