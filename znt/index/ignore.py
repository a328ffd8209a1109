"""Gitignore matching, written here because it sits on the hot path of every scan.

``pathspec`` would do, but importing it costs ~60 ms, which is most of the budget of a
no-op rescan run from a git hook. The rules follow gitignore(5): ``!`` negation, a trailing
``/`` for directories only, a slash elsewhere anchors the pattern to its file's folder,
``**`` matches across folders, and the last matching pattern wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


def _glob_to_regex(glob: str) -> str:
    """Translate one gitignore glob (already stripped of ``!`` and anchoring) to a regex."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                before_ok = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2 : i + 3]
                if before_ok and after == "/":
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if before_ok and after == "":
                    out.append(".*")
                    i += 2
                    continue
                out.append("[^/]*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "]") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    pattern: str
    negated: bool
    dir_only: bool
    regex: str
    source: str


def parse_rules(lines: Iterable[str], source: str) -> list[Rule]:
    rules: list[Rule] = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if not line or line.startswith("#"):
            continue
        # Trailing spaces are ignored unless escaped with a backslash.
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        if not line:
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        body = line.rstrip("/")
        if not body:
            continue
        anchored = "/" in body
        body = body.lstrip("/")
        regex = _glob_to_regex(body)
        if not anchored:
            regex = UNANCHORED + regex
        rules.append(Rule(line, negated, dir_only, regex, source))
    return rules


@dataclass
class IgnoreLevel:
    """The rules of one ignore file, matched against paths relative to its folder."""

    base: str  # folder of the ignore file, relative to the project root ("" at the root)
    rules: list[Rule]
    _groups: list[_Group] = field(default_factory=list)
    # The groups that can match a folder / a file, last first, and one alternation of all
    # their names and one of all their paths: a path that matches neither (most paths) is
    # rejected with one or two regex tests, whatever the number of groups.
    _for: dict[bool, tuple[list[_Group], re.Pattern[str] | None, re.Pattern[str] | None]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        # Consecutive rules with the same sign and dir-only flag share one alternation, so
        # a path is tested against a few regexes instead of every pattern. A pattern without
        # a slash matches the last component at any depth: its alternation is tried on the
        # name alone, not on every folder boundary of the path.
        groups: list[tuple[bool, bool, list[Rule]]] = []
        for rule in self.rules:
            if groups and groups[-1][0] == rule.negated and groups[-1][1] == rule.dir_only:
                groups[-1][2].append(rule)
            else:
                groups.append((rule.negated, rule.dir_only, [rule]))
        for _negated, dir_only, members in groups:
            names = [r.regex[len(UNANCHORED) :] for r in members if _unanchored(r)]
            paths = [r.regex for r in members if not _unanchored(r)]
            self._groups.append(_Group(dir_only, _alternation(names), _alternation(paths), members))

    def _groups_for(
        self, is_dir: bool
    ) -> tuple[list[_Group], re.Pattern[str] | None, re.Pattern[str] | None]:
        # Compiled the first time a folder (or a file) is matched: most ignore files of a
        # tree are only ever asked about one of the two.
        kept = [g for g in reversed(self._groups) if is_dir or not g.dir_only]
        members = [r for g in reversed(kept) for r in g.members]
        names = [r.regex[len(UNANCHORED) :] for r in members if _unanchored(r)]
        paths = [r.regex for r in members if not _unanchored(r)]
        got = self._for[is_dir] = (kept, _alternation(names), _alternation(paths))
        return got

    def match(self, rel: str, is_dir: bool) -> Rule | None:
        """The last rule that matches ``rel`` (a path relative to the project root)."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1 :]
        groups, any_name, any_path = self._for.get(is_dir) or self._groups_for(is_dir)
        name = rel[rel.rfind("/") + 1 :]
        if not (
            (any_name is not None and any_name.match(name))
            or (any_path is not None and any_path.match(rel))
        ):
            return None
        for group in groups:
            if (group.names is not None and group.names.match(name)) or (
                group.paths is not None and group.paths.match(rel)
            ):
                if len(group.members) == 1:
                    return group.members[0]
                for rule in reversed(group.members):
                    if re.match(rule.regex + r"\Z", rel):
                        return rule
        return None


UNANCHORED = "(?:.*/)?"  # what ``parse_rules`` puts before a pattern without a slash


def _unanchored(rule: Rule) -> bool:
    return rule.regex.startswith(UNANCHORED)


def _alternation(regexes: list[str]) -> re.Pattern[str] | None:
    # The end anchor applies to every alternative (outside the group it would bind to
    # the last one only).
    if not regexes:
        return None
    return re.compile("(?:" + "|".join(f"(?:{r})" for r in regexes) + r")\Z")


@dataclass
class _Group:
    dir_only: bool
    names: re.Pattern[str] | None  # matched against the last component of the path
    paths: re.Pattern[str] | None  # matched against the whole path
    members: list[Rule]


def first_verdict(levels: list[IgnoreLevel], rel: str, is_dir: bool) -> Rule | None:
    """Deeper ignore files override shallower ones; within a file the last match wins."""
    for level in reversed(levels):
        rule = level.match(rel, is_dir)
        if rule is not None:
            return rule
    return None
