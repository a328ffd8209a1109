"""Source text at answer time: the code of the symbols an answer lists."""

from __future__ import annotations

from typing import Any

from znt.project import Project


def attach_code(project: Project, results: list[dict[str, Any]], max_lines: int) -> None:
    cache: dict[str, list[str] | None] = {}
    for item in results:
        f = item["file"]
        if f not in cache:
            try:
                cache[f] = (project.root / f).read_text("utf-8", "replace").splitlines()
            except OSError:
                cache[f] = None
        lines = cache[f]
        if lines is None or not item.get("start_line"):
            continue
        start, end = int(item["start_line"]), int(item["end_line"] or item["start_line"])
        chunk = lines[start - 1 : min(end, start - 1 + max_lines)]
        item["code"] = "\n".join(chunk)
        if end - start + 1 > max_lines:
            item["code_truncated"] = True
