"""The lexical index: a code-aware tokenizer and BM25F postings kept in our own tables.

DuckDB's ``fts`` extension downloads at run time and rebuilds its index from scratch, so the
postings live in ordinary tables that a scan keeps up to date with the rest of a file's rows:

* ``lex_docs(file, sym, sid, dl, role, type, kind)``: one document per symbol, ``sid`` its
  integer key (``symbol_key``), ``dl`` its weighted length, and what ranking needs to know
  of it without a trip to ``symbols``; replaced with its file's other rows;
* ``lex_terms(term, bucket, df, syms, wtfs)``: each term's postings (a document's key and the
  weighted frequency of the term in it) as two lists per bucket of files (``TERM_BUCKETS``),
  into which a scan folds the postings the parse workers stage (``document_rows``,
  ``refresh_terms``: only the terms and buckets of changed files on an incremental scan),
  found through an ART index on ``term``. A query reads a handful of rows instead of
  filtering 1.7 M postings (sympy), and aggregates integers instead of string ids: about
  3x less CPU on an index attached for one call (docs/decisions/0012-lexical-term-lists.md).
  ``lex_postings`` is a view of it, a posting per row (decision 0034).

Fields and weights (BM25F: each field normalised for its own length, then weighted and
summed before BM25's saturation): the name counts most, then the qualified name, the
signature, the docstring, the path, and the words of the body, so a long body does not
drown a name that matches. Document frequencies are counted at query time from the postings a query
touches, so nothing global has to be maintained when a file changes. See docs/search.md.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate, chain
from typing import Any, TypeVar

_K = TypeVar("_K")

# field: (weight, length normalisation b, reference length in terms). The reference lengths
# are constants rather than corpus averages, so a file's postings never depend on other files
# and an incremental scan stays exact.
FIELDS: dict[str, tuple[float, float, float]] = {
    "name": (6.0, 0.0, 1.0),
    "qualified_name": (3.0, 0.0, 1.0),
    "signature": (2.0, 0.3, 10.0),
    "doc": (1.5, 0.75, 30.0),
    "path": (1.0, 0.0, 1.0),
    "body": (1.0, 0.75, 150.0),
}
K1 = 1.2
MAX_BODY_BYTES = 200_000  # the body of a symbol is read up to this much (a whole module too)

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|[0-9]{2,}")
# The same pattern as one group, for ``split``: the file's tokens and the text between them,
# which give the tokens and where they start without a match object per token.
_TOKEN_SPLIT = re.compile(b"(" + _TOKEN.pattern.encode() + b")")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# Words too common in prose and code to tell documents apart. Kept short on purpose: a word
# that names things in code (``get``, ``set``, ``list``) stays searchable.
_STOP_TEXT = """
    a an and are as at be been but by can could did do does for from had has have how i if
    in into is it its me my no not of on or our so such that the their them then there these
    they this those to was we were what when where which while who why will with would you
    your self cls def return none true false null var let const
"""
STOPWORDS = frozenset(_STOP_TEXT.split())


@lru_cache(maxsize=1 << 15)
def stem(word: str) -> str:
    """A light plural/verb-ending stemmer: enough to meet ``files`` with ``file`` and
    ``parsing`` with ``parse``, cautious enough not to mangle identifiers. Cached: the parts
    of identifiers repeat far more than the identifiers do."""
    n = len(word)
    if n <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and n > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and n > 5:
        word = word[:-3]
        if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]
    elif word.endswith("ed") and n > 4:
        word = word[:-2]
        if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]  # parse, parses, parsed, parsing -> pars
    return word


def _identifier_terms(ident: str, out: list[str]) -> None:
    lower = ident.lower()
    parts = [p.lower() for chunk in ident.split("_") for p in _PART.findall(chunk)]
    if len(parts) <= 1:
        word = parts[0] if parts else lower.strip("_")
        if word and word not in STOPWORDS:
            out.append(stem(word))
        return
    out.append(lower.strip("_"))  # the whole identifier, unstemmed
    for part in parts:
        if len(part) > 1 and part not in STOPWORDS:
            out.append(stem(part))


class _Memo(dict[_K, tuple[str, ...]]):
    """``compute(key)``, computed once per key: a hit is one lookup in C, with no Python
    call (``lru_cache`` makes one per hit). Cleared by ``document_rows`` beyond
    ``_MEMO_MAX`` keys."""

    def __init__(self, compute: Callable[[_K], tuple[str, ...]]) -> None:
        super().__init__()
        self._compute: Callable[[_K], tuple[str, ...]] = compute

    def __missing__(self, key: _K) -> tuple[str, ...]:
        value = self[key] = self._compute(key)
        return value


_MEMO_MAX = 1 << 17  # keys a memo keeps before it is cleared (tens of MB in a worker)


def _identifier_term_tuple(ident: str) -> tuple[str, ...]:
    out: list[str] = []
    _identifier_terms(ident, out)
    return tuple(out)


# An identifier's terms. Dotted tokens and qualified names are made of identifiers that
# repeat far more than they do (``sympy.core.basic.Basic.args``): each part is a lookup
# here, where a token cache missed on every new combination and split every part again.
_IDENT_TERMS = _Memo(_identifier_term_tuple)


@lru_cache(maxsize=1 << 16)
def _token_terms(token: str) -> tuple[str, ...]:
    """The terms of one token (cached: a scan meets the same identifiers over and over)."""
    if "." in token:
        parts = map(_IDENT_TERMS.__getitem__, token.split("."))
        return (token.lower(), *chain.from_iterable(parts))
    if token[0].isdigit():
        return (token,)
    return _IDENT_TERMS[token]


def tokenize(text: str) -> list[str]:
    """Terms of ``text``: every identifier whole (lower-cased) and split at camelCase,
    snake_case and digit boundaries; dotted names whole and by component; prose words
    stemmed lightly; stop words dropped."""
    return list(chain.from_iterable(map(_token_terms, _TOKEN.findall(text))))


def query_terms(query: str) -> dict[str, float]:
    """Distinct query terms with a weight that grows slowly with repetition (long queries,
    such as a pasted issue, repeat what matters)."""
    counts = Counter(tokenize(query))
    return {t: 1.0 + math.log(c) for t, c in counts.items()}


def _path_text(path: str) -> str:
    stem_path = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return stem_path.replace("/", " ").replace("-", "_")


def symbol_key(sym_id: str) -> int:
    """A symbol's 64-bit integer key in the lexical tables (lists of integers aggregate and
    join several times faster than string ids). A hash rather than a counter, so a file's
    rows never depend on the rest of the index; two of sympy's 48 k symbols collide with
    odds of about 1 in 10^10, and a collision only merges two documents' scores."""
    from hashlib import blake2b  # scan-time only: a search never hashes

    digest = blake2b(sym_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@lru_cache(maxsize=1 << 14)
def _name_terms(text: str) -> tuple[str, ...]:
    """``tokenize`` of a name or qualified name (cached: method names and the qualified
    names of a class's members repeat within a file and across files)."""
    return tuple(tokenize(text))


def _source_token_terms(token: bytes) -> tuple[str, ...]:
    return _token_terms(token.decode("ascii"))


# A token's terms by its bytes in the source: a hit needs no decoding. The dict of a file's
# distinct tokens it replaces was a fifth of ``document_rows`` with warm caches; in a whole
# scan, where a file's first sight of a token is a miss either way, the gain is a few
# percent (docs/benchmarks/scan.md, fifteenth session).
_SOURCE_TERMS = _Memo(_source_token_terms)


def document_rows(
    path: str, symbols: Sequence[Sequence[Any]], source: bytes
) -> tuple[list[tuple[Any, ...]], str]:
    """The ``lex_docs`` rows of one file's symbols, and its ``lex_postings`` as the CSV text
    a sink's writer would write (``store.CsvSink.add_text``), in the columns they are staged
    in (``store.STAGED_COLUMNS``): one row per document, its ``sid``, its terms and their
    weights, each a list separated by spaces, in the same order (the load unnests them
    side by side and adds the file). A row per posting repeated the 20 digits of its
    ``sid``: 357 against 156 MB staged on the monorepo benchmark, and a load of 1.25 s
    against 1.02 s.

    ``symbols`` are rows in the order of store.TABLES["symbols"] (id, file, name,
    qualified_name, type, kind, parent_id, start_line, end_line, start_byte, end_byte,
    signature, doc, role). The file is tokenized once, and its tokens are expanded once into
    the sequence of their terms; a symbol's body is then one slice of that sequence,
    counted in C, so nested symbols (module, class, method) neither tokenize the same text
    again nor loop in Python over its tokens. The postings are formatted as they are
    weighed, without a tuple per posting: on 1,500 files of the monorepo benchmark this is
    ~20% less CPU than tuples formatted afterwards, and on sympy ~27% (the same rows).
    A term is made of ``_TOKEN``'s characters (letters, digits, ``_``, ``.``: never quoted in
    CSV) and never holds a space; the weight is written rounded to 3 decimals, the same value
    ``round(w, 3)`` gives."""
    docs: list[tuple[Any, ...]] = []
    lines: list[str] = []
    path_terms = _name_terms(_path_text(path))
    pieces = _TOKEN_SPLIT.split(source)  # gap, token, gap, ..., token, gap
    tokens = pieces[1::2]
    starts = list(accumulate(map(len, pieces[:-1])))[::2]  # the end of each gap
    for memo in (_SOURCE_TERMS, _IDENT_TERMS):
        if len(memo) > _MEMO_MAX:
            memo.clear()
    per_token = list(map(_SOURCE_TERMS.__getitem__, tokens))
    term_seq = list(chain.from_iterable(per_token))
    term_at = [0, *accumulate(map(len, per_token))]  # token i's terms start at term_at[i]
    body_weight, body_b, body_ref = FIELDS["body"]
    for row in symbols:
        sym_id, name, qname = row[0], row[2] or "", row[3] or ""
        start_b, end_b, signature, doc = row[9], row[10], row[11] or "", row[12] or ""
        weighted: dict[str, float] = {}
        length = 0
        for field, terms in (
            ("name", _name_terms(name)),
            ("qualified_name", _name_terms(qname)),
            ("signature", tokenize(signature)),
            ("doc", tokenize(doc)),
            ("path", path_terms),
        ):
            if not terms:
                continue
            weight, b, ref = FIELDS[field]
            norm = weight / (1 - b + b * len(terms) / ref)
            for t in terms:
                weighted[t] = weighted.get(t, 0.0) + norm
            length += len(terms)
        body: Counter[str] | None = None
        body_norm = 0.0
        if start_b is not None and end_b is not None:
            end = min(int(end_b), int(start_b) + MAX_BODY_BYTES)
            lo, hi = bisect_left(starts, int(start_b)), bisect_left(starts, end)
            first, last = term_at[lo], term_at[hi]
            if last > first:
                body = Counter(term_seq[first:last])
                body_norm = body_weight / (1 - body_b + body_b * (last - first) / body_ref)
                length += last - first
        if not weighted and not body:
            continue
        sid = symbol_key(sym_id)
        docs.append((path, sym_id, sid, float(length), row[13], row[4], row[5]))
        posted: list[str] = []
        weights: list[str] = []  # each followed by a space
        if body:
            # A term of the fields and the body weighs both (two terms added, so the order
            # of the addition cannot change the value); it leaves the body's count.
            pop = body.pop
            for t in weighted:
                n = pop(t, 0)
                if n:
                    weighted[t] += n * body_norm
            # The rest weigh by their count alone: one weight per distinct count, formatted
            # once and looked up in C for each term that has it.
            counts = body.values()
            weight_of = {n: f"{n * body_norm:.3f} " for n in set(counts)}
            posted.extend(body)
            weights.extend(map(weight_of.__getitem__, counts))
        posted.extend(weighted)
        weights += [f"{w:.3f} " for w in weighted.values()]
        lines.append(f"{sid},{' '.join(posted)},{''.join(weights)[:-1]}\r\n")
    return docs, "".join(lines)


# Files the query names. An issue or a question often says where the trouble is: a path
# (``src/flask/cli.py``, ``card.py``, a traceback's ``/site-packages/astropy/io/fits/card.py``)
# or a dotted module name (``astropy.io.fits.card.Card``). Symbols of a named file get their
# score multiplied by ``1 + MENTION_BOOST``: a hint, not a filter, since the file a text names
# is not always the one to change. A mention that fits more than ``MENTION_MAX_FILES`` files
# (``__init__.py``, ``utils.py`` in a large tree) says little and is ignored.
MENTION_BOOST = 0.5
MENTION_MAX_FILES = 3
_MENTION = re.compile(r"[A-Za-z0-9_.\-]*[A-Za-z0-9_](?:[/\\][A-Za-z0-9_.\-]+)*")
_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")


def mention_keys(query: str) -> list[list[tuple[str, bool]]]:
    """Per path-like or dotted mention in ``query``, what it may name, most specific first:
    ``(key, is_module)``. A path (``a/b/c.py``) gives its ``/``-suffixes, compared with
    file paths; a dotted name (``a.b.c.D``) gives its prefixes of two components or more as
    module keys (a path without its extension and without a trailing ``__init__``); a
    bare file name (``cli.py``) is compared with file names."""
    out: list[list[tuple[str, bool]]] = []
    seen: set[str] = set()
    for match in _MENTION.finditer(query):
        tok = match.group().replace("\\", "/").strip(".-/")
        if tok in seen or len(tok) < 3 or tok[0].isdigit():
            continue
        seen.add(tok)
        cands: list[tuple[str, bool]] = []
        if "/" in tok:
            parts = [p for p in tok.split("/") if p not in ("", ".", "..")]
            is_module = not _EXT.search(parts[-1]) if parts else False
            cands = [("/".join(parts[i:]), is_module) for i in range(len(parts))]
        elif "." in tok:
            parts = tok.split(".")
            if not all(parts):
                continue
            if len(parts) == 2:
                cands.append((tok, False))
            cands += [("/".join(parts[:n]), True) for n in range(len(parts), 1, -1)]
        if cands:
            out.append(cands)
    return out


def mentioned_files(con: Any, query: str) -> list[str]:
    """Indexed files that ``query`` names: per mention, the most specific candidate that
    matches any file, when it matches at most ``MENTION_MAX_FILES`` (see ``mention_keys``).
    The matching runs in one statement over ``files`` (a path, or its module key, equal to
    the candidate or ending in ``/`` + it), and only when the query has a mention."""
    mentions = mention_keys(query)
    if not mentions:
        return []
    flat = [
        (m, pos, cand, is_module)
        for m, cands in enumerate(mentions)
        for pos, (cand, is_module) in enumerate(cands)
    ]
    rows = con.execute(
        f"""
        WITH c AS (
            SELECT unnest(?::INTEGER[]) AS mention, unnest(?::INTEGER[]) AS pos,
                   unnest(?::VARCHAR[]) AS cand, unnest(?::BOOLEAN[]) AS is_module
        ),
        f AS (
            SELECT path, regexp_replace(regexp_replace(path, '{_EXT.pattern}', ''),
                                        '/__init__$', '') AS key
            FROM files
        )
        SELECT c.mention, c.pos, f.path FROM c JOIN f
          ON CASE WHEN c.is_module THEN f.key = c.cand OR ends_with(f.key, '/' || c.cand)
                  ELSE f.path = c.cand OR ends_with(f.path, '/' || c.cand) END
        """,
        [[r[0] for r in flat], [r[1] for r in flat], [r[2] for r in flat], [r[3] for r in flat]],
    ).fetchall()
    hits: defaultdict[tuple[int, int], set[str]] = defaultdict(set)
    for mention, pos, path in rows:
        hits[mention, pos].add(path)
    files: set[str] = set()
    for m, cands in enumerate(mentions):
        for pos in range(len(cands)):
            hit = hits.get((m, pos))
            if hit:
                if len(hit) <= MENTION_MAX_FILES:
                    files |= hit
                break
    return sorted(files)


def _literal_list(terms: Sequence[str]) -> str:
    return ", ".join("'" + t.replace("'", "''") + "'" for t in terms)


def bm25_sql(
    weights: dict[str, float], filtered: bool, boosted: bool = False, whole: bool = False
) -> str:
    """The ranking query for the query terms and their ``weights``, inlined as literals: a
    constant IN-list is what lets DuckDB answer it from the ART index on
    ``lex_terms(term)``, and constant weights spare a join. Parameters: (when ``boosted``)
    the files whose symbols get ``MENTION_BOOST``, then (when ``filtered``) a regular
    expression the file must match, then the number of results. Per-field length
    normalisation is already in ``wtf``; what is left is BM25's saturation and the inverse
    document frequency. Scores are summed per integer key; only the best ``limit`` keys meet
    ``lex_docs`` for the id, file and facts, unless a filter or boost needs every hit's
    file first. ``whole``: from a read copy's ``lex_term_lists`` (a term's buckets in one
    list, with its document frequency; znt/index/readcopy.py) instead of ``lex_terms``."""
    literal = _literal_list(list(weights))
    qw = " ".join(f"WHEN {_literal_list([t])} THEN {float(w)!r}" for t, w in weights.items())
    if whole:
        lists = f"lex_term_lists WHERE term IN ({literal})"
        head = "WITH"
    else:
        # The query's lists are read once, by the index, into ``t``: left inline, the window
        # that sums a term's document frequency over its buckets made DuckDB read them again
        # by a filtered scan of the whole table. Cold, in a fresh process on sympy (load
        # 3-5), the ten queries of benchmarks/query.py: median 59 -> 47 ms; a three-term
        # query 96 -> 34 ms.
        lists = "(SELECT term, sum(df) OVER (PARTITION BY term) AS df, syms, wtfs FROM t)"
        head = f"""WITH t AS MATERIALIZED (
            SELECT term, df, syms, wtfs FROM lex_terms WHERE term IN ({literal})
        ),"""
    scored = f"""
        {head}
        s AS (
            SELECT sid,
                   sum((CASE term {qw} END)
                       * ln(1 + ((SELECT count(*) FROM lex_docs) - df + 0.5) / (df + 0.5))
                       * wtf * {K1 + 1} / (wtf + {K1})) AS score
            FROM (SELECT term, df, unnest(syms) AS sid, unnest(wtfs) AS wtf FROM {lists})
            GROUP BY sid
        )"""
    facts = "d.role, d.type, d.kind, d.file"
    if not (filtered or boosted):
        return f"""{scored},
        top AS (SELECT sid, score FROM s ORDER BY score DESC, sid LIMIT ?)
        SELECT d.sym, top.score AS score, {facts}
        FROM top JOIN lex_docs d USING (sid)
        ORDER BY score DESC, d.sym
        """
    where = "WHERE regexp_full_match(d.file, ?)" if filtered else ""
    boost = (
        f" * CASE WHEN list_contains(?::VARCHAR[], d.file) THEN {1 + MENTION_BOOST} ELSE 1 END"
        if boosted
        else ""
    )
    return f"""{scored}
        SELECT d.sym, s.score{boost} AS score, {facts}
        FROM s JOIN lex_docs d USING (sid)
        {where}
        ORDER BY score DESC, d.sym
        LIMIT ?
        """


DocFacts = tuple[str | None, str | None, str | None, str]  # role, type, kind, file


def rank(
    con: Any,
    query: str,
    limit: int,
    path_regex: str | None = None,
    facts: dict[str, DocFacts] | None = None,
) -> list[tuple[str, float]]:
    """(symbol id, BM25F score) pairs, best first; symbols of files the query names are
    boosted (see ``mentioned_files``). ``facts``, when given, receives each hit's role,
    type, kind and file, which the query has at hand anyway: search then looks up only the
    page it shows in ``symbols``."""
    weights = query_terms(query)
    if not weights:
        return []
    params: list[Any] = []
    named = mentioned_files(con, query)
    if named:
        params.append(named)
    if path_regex is not None:
        params.append(path_regex)
    params.append(limit)
    from znt.index.store import read_copy

    sql = bm25_sql(weights, path_regex is not None, bool(named), read_copy(con) is not None)
    out = []
    for sym, score, role, type_, kind, file in con.execute(sql, params).fetchall():
        out.append((sym, float(score)))
        if facts is not None:
            facts[sym] = (role, type_, kind, file)
    return out


# -- lex_terms: the per-term lists queries read, built from the staged postings ---------------

# A term's postings are split by the file they come from into ``TERM_BUCKETS`` lists, so that
# a rescan of one file re-aggregates the lists of its own bucket (a 64th of a common term's
# postings) instead of the whole list of every term it has: ``self`` or ``return`` are in
# nearly every file of a Python project (sympy: 55,000 postings), and re-listing those was
# most of a one-file rescan (docs/benchmarks/scan.md). The bucket is a stable function of the
# path (md5), computed per file, never per posting.
TERM_BUCKETS = 64


def _bucket_sql(column: str) -> str:
    return f"(md5_number_lower({column}) % {TERM_BUCKETS})::SMALLINT"


_BUCKET_SQL = _bucket_sql("path")
FILE_BUCKETS_SQL = f"SELECT path AS file, {_BUCKET_SQL} AS bucket FROM files"

# A list's postings are in no particular order (the same in ``syms`` and ``wtfs``, which one
# aggregation builds side by side): a ranking sums them by symbol, and sorting them, or the
# rows, was 1.0 of the monorepo's 1.8 s build (docs/benchmarks/scan.md, fifteenth session).
# Two builds of one index hold the same postings in each list, not always in the same order.
# ``_LISTED``: ``lex_terms``' rows from (term, bucket, sid, wtf) rows (``{rows}``, a query).
# A scan lists the staged postings with it (``refresh_terms``); ``TERM_LISTS_SQL`` lists
# postings stored one row each (an exported dataset's ``lex_postings``, znt/export/dataset.py).
_LISTED = (
    "SELECT term, bucket, count(*)::INTEGER AS df, list(sid) AS syms, list(wtf) AS wtfs "
    "FROM ({rows}) GROUP BY term, bucket"
)
TERM_LISTS_SQL = _LISTED.format(
    rows="SELECT p.term, b.bucket, p.sid, p.wtf FROM lex_postings p "
    f"JOIN ({FILE_BUCKETS_SQL}) b ON b.file = p.file"
)


def _staged_postings(source: str, docs_where: str = "") -> str:
    """(term, bucket, sid, wtf) rows of the postings staged in ``source`` (one row per
    document, store.STAGED_COLUMNS), each document's file, hence bucket, found by its
    ``sid`` in ``lex_docs`` (those of ``docs_where``), which the scan has loaded already."""
    # Documents meet their files before their terms are unnested: joining the 9.6 M
    # postings of the monorepo benchmark instead took 2.0-2.4 s against 1.5-1.8 s, at a
    # peak ~520 MB higher.
    return f"""
        SELECT unnest(string_split(p.terms, ' ')) AS term, d.bucket, p.sid,
               unnest(string_split(p.wtfs, ' ')::FLOAT[]) AS wtf
        FROM {source} p
        JOIN (SELECT sid, {_bucket_sql("file")} AS bucket FROM lex_docs {docs_where}) d
          ON d.sid = p.sid
    """


_CHANGED = "(SELECT unnest(?::VARCHAR[]))"


def forget_postings(con: Any, changed: Sequence[str]) -> None:
    """Before an incremental scan deletes the ``changed`` files' ``lex_docs`` rows: the keys
    of their documents, whose postings ``refresh_terms`` takes out of the lists."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE lex_gone AS "
        f"SELECT DISTINCT sid FROM lex_docs WHERE file IN {_CHANGED}",
        [list(changed)],
    )


def refresh_terms(
    con: Any, changed: Sequence[str] | None = None, new_postings: str | None = None
) -> None:
    """Fold the postings staged in ``new_postings`` (``store.load_csv_folder``'s source of
    them; None when the files have none) into ``lex_terms``: all of it (``changed`` None,
    a full build, ``lex_docs`` loaded), or, in the buckets of the changed files, the lists
    that held a posting of theirs (``forget_postings``) or get one now. Each such list is
    rebuilt from its postings of other files and the new ones, so the result holds the
    postings a full build gives. No table keeps the postings one row each: lists hold
    them all, and a table of 9.6 M rows on the monorepo benchmark cost ~0.7 s of its cold
    build and 59 MB of its index (docs/decisions/0034-postings-only-in-term-lists.md)."""
    if changed is None:
        con.execute("DELETE FROM lex_terms")
        if new_postings is not None:
            rows = _staged_postings(new_postings)
            con.execute("INSERT INTO lex_terms " + _LISTED.format(rows=rows))
        return
    paths = [list(changed)]
    if new_postings is not None:
        staged = _staged_postings(new_postings, f"WHERE file IN {_CHANGED}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE lex_new AS {staged}", paths)
    else:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE lex_new "
            "(term VARCHAR, bucket SMALLINT, sid BIGINT, wtf FLOAT)"
        )
    buckets = f"(SELECT DISTINCT {_BUCKET_SQL} FROM (SELECT unnest(?::VARCHAR[]) AS path))"
    # The changed buckets' lists are read once, with their row ids; those holding a removed
    # document are found by unnesting them and joining the removed keys (``list_has_any``
    # against the list of those keys hashed that list again for every row: a 400-file
    # rescan of sympy spent 27 s here), and are deleted by row id, not by a join of the
    # whole table on (term, bucket).
    con.execute(
        "CREATE OR REPLACE TEMP TABLE lex_bucket AS "
        f"SELECT rowid AS rid, term, bucket, syms, wtfs FROM lex_terms WHERE bucket IN {buckets}",
        paths,
    )
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE lex_redo AS
        WITH held AS (
            SELECT DISTINCT u.rid
            FROM (SELECT rid, unnest(syms) AS sid FROM lex_bucket) u
            SEMI JOIN lex_gone g ON g.sid = u.sid
            UNION
            SELECT b.rid FROM lex_bucket b
            SEMI JOIN lex_new n ON n.term = b.term AND n.bucket = b.bucket
        )
        SELECT b.* FROM lex_bucket b SEMI JOIN held h ON h.rid = b.rid
        """
    )
    con.execute("DELETE FROM lex_terms WHERE rowid IN (SELECT rid FROM lex_redo)")
    kept = """
        SELECT term, bucket, sid, wtf
        FROM (SELECT term, bucket, unnest(syms) AS sid, unnest(wtfs) AS wtf FROM lex_redo)
        WHERE sid NOT IN (SELECT sid FROM lex_gone)
        UNION ALL
        SELECT term, bucket, sid, wtf FROM lex_new
    """
    con.execute("INSERT INTO lex_terms " + _LISTED.format(rows=kept))
    for table in ("lex_new", "lex_bucket", "lex_redo", "lex_gone"):
        con.execute(f"DROP TABLE {table}")
