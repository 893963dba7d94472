"""Which words a snippet marks (library/search/snippet.py): those the words index matched. Its FTS5 tokenizer
stems ("porter"), so "residents" finds "resident" and "parking" finds "Park"; a newcomer's Words search showed
such hits with nothing marked. Prefixes, phrases, exclusions and CJK are marked as before."""

from __future__ import annotations

from searchapp.library.query.help import marked_text
from searchapp.library.search.snippet import best_snippet, term_spans


def marks(text: str, query: str) -> list[str]:
    snip = best_snippet(text, marked_text(query), 240)
    return [snip.text[a:b] for a, b in snip.spans]


def test_words_the_index_matches_by_their_stem_are_marked():
    assert marks("Tissue-resident macrophages met the Association.", "residents association roof") == [
        "resident", "Association"]
    assert marks("The committee associated itself with roofing.", "residents association roof") == [
        "associated", "roofing"]
    assert marks("A walk around Hyde Park before lunch.", "roof repair parking permits") == ["Park"]
    assert marks("Résidents et RÉSIDENT.", "residents") == ["Résidents", "RÉSIDENT"]  # diacritics folded


def test_words_the_index_does_not_match_stay_unmarked():
    assert marks("Volcanic ash, a parkland and a resin.", "volcano parking residents") == []


def test_prefixes_phrases_exclusions_and_cjk_are_marked_as_before():
    assert marks("baking at the bakery", "bake*") == ["baking", "bakery"]
    assert marks("the roofs were repaired", '"roof repair"') == ["roofs", "repaired"]
    assert marks("parking and gardens", "gardens -parking") == ["gardens"]
    assert marks("火山噴火 and volcanoes", "火山 volcanoes") == ["火山", "volcanoes"]


def test_the_spans_of_a_text_are_the_same_cut_from_it_or_alone():
    text = "Residents of Hyde Park asked the association about parking permits."
    terms = ["residents", "parking"]
    spans = term_spans(text, terms)
    assert [text[a:b] for a, b in spans] == ["Residents", "Park", "parking"]


def test_a_query_word_the_tokenizer_splits_marks_itself_not_its_parts():
    """`e_mail` is a phrase to the words index ("e" then "mail"): every lone "mail" was marked (found by a review)."""
    assert marks("Send the e_mail by mail or mailing list.", "e_mail") == ["e_mail"]


def test_a_short_sentence_before_a_long_one_is_shown_with_the_start_of_the_next():
    """A Similar file's row (no query word to choose a sentence by) showed "Note 334.…": its first sentence alone,
    the long one after it not fitting whole. The room left is filled with the next sentence's start, cut at a word."""
    from searchapp.library.search.snippet import best_snippet

    text = "Note 334. " + " ".join(f"harbour{i} budget roof" for i in range(60)) + "."
    shown = best_snippet(text, []).text
    assert shown.startswith("Note 334. harbour0 budget roof") and shown.endswith("…"), shown
    assert 150 < len(shown) <= 241 and not shown[:-1].endswith(" "), shown
