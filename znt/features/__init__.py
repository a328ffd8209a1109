"""The feature modules: what each command answers, computed from the index.

``znt/api.py`` checks a command's arguments, finds the project and calls one of these; they
return the command's JSON body. They may use ``znt.graph`` (analysis) and ``znt.index``
(storage), never the front ends (``znt.cli``, ``znt.mcp``) or the api above them
(docs/architecture.md).
"""
