; Markdown headings (capture conventions: docs/languages.md).
;
; The grammar opens a `section` at every ATX heading (`#`, `##`, ...) and nests the sections
; of deeper headings inside it, so a section is a symbol named by its heading text (the
; `inline` node, without the `#` marks) and nesting gives the heading path `Install.Linux`.

(section . (atx_heading heading_content: (inline) @name)) @definition.section

; A setext heading (`Title` underlined with `===` or `---`) opens a section only when it is
; the first thing in one; a later setext heading shares its section, so the heading alone is
; the symbol.
(section . (setext_heading heading_content: (paragraph (inline) @name))) @definition.section
(section (_) . (setext_heading heading_content: (paragraph (inline) @name)) @definition.section)
