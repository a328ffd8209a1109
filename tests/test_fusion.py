"""Hybrid fusion (znt/index/search.py): z-scores per list, a weighted sum, the lowest z for a
candidate missing from a list, and the code-like switch of the weight.

The rules pinned here are the ones docs/decisions/0006-score-fusion.md measured on CoSQA; each
test fails if the rule it names is replaced (by reciprocal ranks, raw scores, min-max, or a
zero for missing candidates)."""

from __future__ import annotations

import pytest

from znt.index.search import (
    CODE_VECTOR_WEIGHT,
    VECTOR_WEIGHT,
    code_like,
    fuse,
    single,
)


def _order(cands):
    return [c.id for c in cands]


def test_weight_decides_between_a_lexical_and_a_vector_favourite():
    lexical = [("lex_fav", 30.0), ("both", 10.0), ("vec_fav", 1.0)]
    vector = [("vec_fav", 0.9), ("both", 0.5), ("lex_fav", 0.1)]
    assert _order(fuse(lexical, vector, vector_weight=0.8))[0] == "vec_fav"
    assert _order(fuse(lexical, vector, vector_weight=0.2))[0] == "lex_fav"


def test_scale_of_a_list_does_not_matter():
    """z-scores: BM25 scores in the hundreds must not outvote cosines below 1 (a raw sum
    would let them)."""
    lexical = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    vector = [("c", 0.9), ("b", 0.6), ("a", 0.3)]
    small = fuse(lexical, vector, vector_weight=VECTOR_WEIGHT)
    big = fuse([(i, s * 1000) for i, s in lexical], vector, vector_weight=VECTOR_WEIGHT)
    assert _order(small) == _order(big)
    assert [round(c.score, 9) for c in small] == [round(c.score, 9) for c in big]


def test_a_confident_list_speaks_louder_than_its_ranks():
    """``x`` is the lexical list's first in both cases, in the middle of the vector list.
    Standing far above the rest, it rises to the top; barely ahead of a graded list, it does
    not. Reciprocal rank fusion would treat both lexical lists alike."""
    others = [f"v{i}" for i in range(9)]
    vector = [(sid, 0.80 - 0.01 * i) for i, sid in enumerate(others)] + [("x", 0.76)]
    graded = [("x", 10.0)] + [(sid, 9.0 - i) for i, sid in enumerate(others)]
    standout = [("x", 50.0)] + [(sid, 9.0 - i) for i, sid in enumerate(others)]
    assert _order(fuse(standout, vector, vector_weight=0.5))[0] == "x"
    assert _order(fuse(graded, vector, vector_weight=0.5))[0] == "v0"


def test_a_flat_list_leaves_the_other_lists_order():
    vector = [("a", 0.9), ("b", 0.7), ("c", 0.2)]
    flat = [("c", 5.0), ("b", 5.0), ("a", 5.0)]
    assert _order(fuse(flat, vector, vector_weight=0.5)) == ["a", "b", "c"]


def test_missing_from_a_list_counts_as_that_lists_lowest():
    """``only_vec`` is not in the lexical list; ``bottom`` is its last entry. With equal
    vector scores they tie; a zero (the list's mean) for the missing one would lift it above
    ``bottom``, whose z is below the mean."""
    lexical = [("top", 10.0), ("mid", 6.0), ("bottom", 1.0)]
    vector = [("only_vec", 0.5), ("bottom", 0.5), ("top", 0.4), ("mid", 0.3)]
    cands = {c.id: c for c in fuse(lexical, vector, vector_weight=0.6)}
    assert cands["only_vec"].score == pytest.approx(cands["bottom"].score)
    assert cands["only_vec"].lexical_rank is None
    assert cands["only_vec"].found_by == ["vector"]
    assert cands["bottom"].found_by == ["lexical", "vector"]
    assert (cands["bottom"].lexical_rank, cands["bottom"].vector_rank) == (3, 2)


def test_scores_are_shown_from_0_to_1():
    cands = fuse([("a", 4.0), ("b", 2.0)], [("b", 0.9), ("c", 0.1)], vector_weight=0.8)
    assert cands[0].score == pytest.approx(1.0)
    assert cands[-1].score == pytest.approx(0.0)
    assert all(0.0 <= c.score <= 1.0 for c in cands)
    assert [c.score for c in cands] == sorted((c.score for c in cands), reverse=True)


def test_one_empty_list_gives_the_other_lists_order():
    vector = [("a", 0.9), ("b", 0.5), ("c", 0.4)]
    assert _order(fuse([], vector)) == ["a", "b", "c"]
    lexical = [("x", 9.0), ("y", 3.0)]
    assert _order(fuse(lexical, [])) == ["x", "y"]
    assert fuse([], []) == []


def test_ties_are_broken_by_id_so_the_order_is_stable():
    cands = fuse([("b", 1.0), ("a", 1.0)], [("a", 0.5), ("b", 0.5)])
    assert _order(cands) == ["a", "b"]


@pytest.mark.parametrize(
    "query",
    [
        "python check if a variable is iterable",
        "how to make a 2d array with booleans in python",
        "retry backoff",
        "Why does the server return 500 on login?",
    ],
)
def test_plain_language_is_not_code_like(query):
    assert not code_like(query)


@pytest.mark.parametrize(
    "query",
    [
        "parse_config fails on empty files",
        "SemanticStore search",
        "os.path.join drops the drive",
        "calling run() twice hangs",
    ],
)
def test_names_of_code_are_code_like(query):
    assert code_like(query)


def test_code_like_queries_trust_the_lexical_list_more():
    assert CODE_VECTOR_WEIGHT < VECTOR_WEIGHT


def test_single_list_scores():
    lex = single([("a", 8.0), ("b", 2.0)], "lexical")
    assert [(c.id, c.score, c.lexical_rank) for c in lex] == [("a", 1.0, 1), ("b", 0.25, 2)]
    vec = single([("a", 0.7), ("b", -0.1)], "vector")
    assert [(c.id, c.score, c.vector_rank) for c in vec] == [("a", 0.7, 1), ("b", 0.0, 2)]
    assert vec[1].vector_score == -0.1
