"""The parse workers' fast paths write exactly what the plain ones wrote.

``document_rows`` weighs and formats ``lex_postings`` rows without the ``csv`` module (a row per
document, its terms and weights as lists), the sink buffers its CSV in memory, and the type
flow tests a value's presence through a set of its compared fields: each must give the bytes
(or the answer) of the code it replaced.
"""

from __future__ import annotations

import csv
import io
from dataclasses import fields
from pathlib import Path

from znt.index.lexical import FIELDS, _path_text, document_rows, symbol_key, tokenize
from znt.index.store import CsvSink, csv_field
from znt.index.syntax import Value
from znt.index.typeflow import _value_key

SOURCE = b'''"""Shapes, and how to draw them."""


class Circle(Shape):
    """A round shape: area_of_circle, radius 12."""

    def area(self, scale=1.5):
        return math.pi * self.radius ** 2 * scale  # caf\xc3\xa9 e_9 A.B.c
'''

SYMBOLS = [
    ("shapes.py", "shapes.py", "shapes", "shapes", "namespace", "module", None, 1, 8, 0,
     len(SOURCE), "", "Shapes, and how to draw them.", "source"),
    ("shapes.py::Circle", "shapes.py", "Circle", "Circle", "declaration", "class",
     "shapes.py", 4, 8, SOURCE.index(b"class"), len(SOURCE), "class Circle(Shape)", "A round shape.", "source"),
]  # fmt: skip


def _csv(rows: list[tuple[object, ...]]) -> str:
    buf = io.StringIO(newline="")
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


def _plain_postings(path: str) -> list[tuple[int, str, float]]:
    """BM25F postings of SYMBOLS computed the plain way: each field and each body tokenized
    on its own, the weights summed in a dict and rounded."""
    rows = []
    for sym in SYMBOLS:
        weighted: dict[str, float] = {}
        body = SOURCE[sym[9] : sym[10]].decode("utf-8", "replace")
        fields = {
            "name": sym[2],
            "qualified_name": sym[3],
            "signature": sym[11],
            "doc": sym[12],
            "path": _path_text(path),
            "body": body,
        }
        for field, text in fields.items():
            terms = tokenize(text)
            weight, b, ref = FIELDS[field]
            for t in terms:
                weighted[t] = weighted.get(t, 0.0) + weight / (1 - b + b * len(terms) / ref)
        rows += [(symbol_key(sym[0]), t, round(w, 3)) for t, w in weighted.items()]
    return rows


def test_postings_text_has_the_plainly_computed_rows_in_csv() -> None:
    for path in ("shapes.py", 'odd, "name"\nhere/x.py', "a b/ü.py"):
        _docs, text = document_rows(path, SYMBOLS, SOURCE)
        rows = list(csv.reader(io.StringIO(text, newline="")))
        parsed = [
            (int(sid), term, float(w))
            for sid, terms, weights in rows
            for term, w in zip(terms.split(" "), weights.split(" "), strict=True)
        ]
        expected = _plain_postings(path)
        assert len(expected) > 20, "the sample must give postings"
        assert sorted(parsed) == sorted(expected)
        # One row per document, in CSV without quoting.
        assert len(rows) == len(SYMBOLS) and text.count("\r\n") == len(rows) and '"' not in text


def test_csv_field_quotes_as_the_writer_does() -> None:
    for value in ("plain", "with,comma", 'with "quote"', "line\nbreak", " lead", ""):
        assert csv_field(value) + ",1\r\n" == _csv([(value, 1)])


def test_sink_writes_the_rows_it_buffers(tmp_path: Path) -> None:
    rows = [("a.py", 1, "x,y", 0.5), ("b.py", -(2**63), 'q"', 1e-7), ("c.py", None, "", 2.0)]
    sink = CsvSink(tmp_path)
    sink.add("refs", rows[:2])
    sink.add_text("refs", _csv(rows[2:]))
    sink.flush()
    (written,) = tmp_path.glob("refs-*.csv")
    assert written.read_bytes().decode("utf-8") == _csv(rows)
    assert sink.sizes() == {str(written): written.stat().st_size}
    sink.add("refs", rows[:1])
    sink.close()  # closing writes what was not flushed
    assert written.read_bytes().decode("utf-8") == _csv(rows + rows[:1])


def test_value_key_holds_what_value_equality_compares() -> None:
    compared = [f.name for f in fields(Value) if f.compare]
    assert compared == ["expr", "instance", "site"], "update typeflow._value_key"
    a, b = Value("f", True, where="here", site=3), Value("f", True, where="there", site=3)
    assert a == b and _value_key(a) == _value_key(b)
    assert _value_key(Value("f", False)) != _value_key(Value("f", True))
