"""gitignore(5) semantics of znt.index.ignore, checked case by case."""

from __future__ import annotations

import pytest

from znt.index.ignore import IgnoreLevel, first_verdict, parse_rules


def ignored(patterns: list[str], path: str, is_dir: bool = False, base: str = "") -> bool:
    level = IgnoreLevel(base, parse_rules(patterns, "test"))
    rule = first_verdict([level], path, is_dir)
    return rule is not None and not rule.negated


@pytest.mark.parametrize(
    ("patterns", "path", "is_dir", "expected"),
    [
        (["*.log"], "a.log", False, True),
        (["*.log"], "deep/er/a.log", False, True),  # no slash: matches at any depth
        (["*.log"], "a.logs", False, False),
        (["/top.txt"], "top.txt", False, True),  # leading slash anchors
        (["/top.txt"], "sub/top.txt", False, False),
        (["doc/*.txt"], "doc/a.txt", False, True),  # inner slash anchors too
        (["doc/*.txt"], "x/doc/a.txt", False, False),
        (["doc/*.txt"], "doc/sub/a.txt", False, False),  # * does not cross folders
        (["build/"], "build", True, True),  # trailing slash: folders only
        (["build/"], "build", False, False),
        (["**/cache"], "a/b/cache", True, True),
        (["a/**/z"], "a/z", False, True),
        (["a/**/z"], "a/b/c/z", False, True),
        (["logs/**"], "logs/x/y", False, True),
        (["*.txt", "!keep.txt"], "keep.txt", False, False),  # negation, last match wins
        (["!keep.txt", "*.txt"], "keep.txt", False, True),
        (["file?.py"], "file1.py", False, True),
        (["file[0-9].py"], "file7.py", False, True),
        (["file[!0-9].py"], "file7.py", False, False),
        (["\\#hash"], "#hash", False, True),  # escaped comment character
        (["# comment", ""], "# comment", False, False),
        (["trailing   "], "trailing", False, True),  # unescaped trailing spaces dropped
    ],
)
def test_gitignore_rules(patterns, path, is_dir, expected):
    assert ignored(patterns, path, is_dir) is expected


def test_nested_level_is_relative_to_its_folder():
    level = IgnoreLevel("pkg", parse_rules(["/gen.py", "*.tmp"], "pkg/.gitignore"))
    assert first_verdict([level], "pkg/gen.py", False) is not None
    assert first_verdict([level], "pkg/sub/gen.py", False) is None
    assert first_verdict([level], "gen.py", False) is None
    assert first_verdict([level], "pkg/sub/x.tmp", False) is not None


def test_deeper_file_overrides_shallower():
    root = IgnoreLevel("", parse_rules(["*.gen"], ".gitignore"))
    deep = IgnoreLevel("keep", parse_rules(["!*.gen"], "keep/.gitignore"))
    rule = first_verdict([root, deep], "keep/a.gen", False)
    assert rule is not None and rule.negated
    assert first_verdict([root, deep], "other/a.gen", False).source == ".gitignore"
