"""Source text at answer time: the code of the symbols an answer lists.

Read through ``fsguard.read_source``: the index may name a path that has since become a link
(or, in an index a repository shipped, a path outside the project); such a file gets no
code, never the text of what the link points to."""

from __future__ import annotations

from typing import Any

from znt.project import Project


def read_text(project: Project, rel: str) -> bytes | None:
    """The bytes of project file ``rel`` as they are now, or None when it is gone, unsafe
    (a link, not a regular file, outside the project) or unreadable."""
    from znt.fsguard import read_source

    try:
        data, _st = read_source(project.root, rel)
    except (OSError, ValueError):
        return None
    return data


def attach_code(project: Project, results: list[dict[str, Any]], max_lines: int) -> None:
    cache: dict[str, list[str] | None] = {}
    for item in results:
        f = item["file"]
        if f not in cache:
            data = read_text(project, f)
            cache[f] = data.decode("utf-8", "replace").splitlines() if data is not None else None
        lines = cache[f]
        if lines is None or not item.get("start_line"):
            continue
        start, end = int(item["start_line"]), int(item["end_line"] or item["start_line"])
        chunk = lines[start - 1 : min(end, start - 1 + max_lines)]
        item["code"] = "\n".join(chunk)
        if end - start + 1 > max_lines:
            item["code_truncated"] = True
