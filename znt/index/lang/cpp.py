"""C++: includes as in C (``"x.hpp"`` -> project file, ``<x>`` -> external); classes,
namespaces, in-class and out-of-class (``void Foo::bar() {}``) method definitions."""

from __future__ import annotations

from znt.index.lang import c
from znt.index.lang.c import import_candidates, local_name, module_name
from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="cpp",
    grammar="cpp",
    extensions=(".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++", ".h++"),
    exclude=("CMakeFiles/", "cmake-build-*/"),
    entrypoints=("main.cc", "main.cpp", "main.cxx"),
    tests=(
        "test_*.cc",
        "test_*.cpp",
        "*_test.cc",
        "*_test.cpp",
        "*_unittest.cc",
        "*_tests.cpp",
        "tests/",
        "test/",
    ),
    self_names=("this",),
    constructor_names=(),
    class_scope_visible=True,
    comment_types=("comment",),
    wrapper_types=("template_declaration",),
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)

# Includes make names visible as in C (``c.INCLUDE_VISIBLE``), across C and C++ files.
INCLUDE_VISIBLE = c.INCLUDE_VISIBLE
FILE_LOCAL = c.FILE_LOCAL
