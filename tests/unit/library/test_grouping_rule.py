"""How passage candidates become file candidates (library/search/grouping.py): a file's signal on each side is its
best passage's (MaxP) and its rank there the rank of its first passage in that side's list. Two files whose
passages interleave on both sides, so that a worst passage or a last rank would give other figures."""

from __future__ import annotations

from searchapp.library.search.grouping import file_ranking, group_by_file

A, B = 10, 20  # files
FILE_OF = {1: A, 2: A, 3: B, 4: B}  # passages 1, 2 in A; 3, 4 in B
DENSE = [(3, 0.9), (1, 0.8), (4, 0.5), (2, 0.3)]  # best first: B's passage, then A's, then each one's weaker
LEXICAL = [(2, 5.0), (4, 4.0), (1, 1.0)]  # passage 3 shares no word with the query
DENSE_SCORE = dict(DENSE)
LEXICAL_SCORE = {**dict(LEXICAL), 3: None}


def test_a_file_takes_its_best_passages_score_and_its_first_passages_rank_on_each_side():
    groups = group_by_file([3, 1, 2, 4], FILE_OF, DENSE, LEXICAL, DENSE_SCORE, LEXICAL_SCORE)
    assert list(groups) == [B, A]  # in the passage order's first-seen order
    assert groups[A].passages == [1, 2] and groups[B].passages == [3, 4]
    assert (groups[A].dense, groups[A].lexical) == (0.8, 5.0)  # its best passage on each side: 1, then 2
    assert (groups[B].dense, groups[B].lexical) == (0.9, 4.0)
    assert (groups[A].dense_rank, groups[A].lexical_rank) == (2, 1)
    assert (groups[B].dense_rank, groups[B].lexical_rank) == (1, 2)
    assert file_ranking(DENSE, FILE_OF) == [B, A] and file_ranking(LEXICAL, FILE_OF) == [A, B]


def test_a_side_that_holds_none_of_a_files_passages_gives_it_no_signal():
    groups = group_by_file([3], {3: B}, [], [(3, 2.0)], {3: None}, {3: 2.0})
    assert (groups[B].dense, groups[B].dense_rank, groups[B].lexical, groups[B].lexical_rank) == (None, None, 2.0, 1)
