"""Private spans are removed whole, whatever their spelling, and nothing of them comes back."""

from hypothesis import given
from hypothesis import strategies as st

from ledger.private_spans import has_private, strip_private


def test_a_private_span_is_removed_with_its_tags_and_counted():
    result = strip_private("Book the table <private>my PIN is 4417</private> for Friday.")
    assert result.text == "Book the table for Friday."
    assert result.removed == 1


def test_text_without_tags_is_returned_unchanged():
    text = "def f():\n    return  2  # two spaces kept\n"
    assert strip_private(text).text == text
    assert strip_private(text).removed == 0


def test_tags_match_in_any_case_and_with_spaces_inside():
    result = strip_private("a < PRIVATE >secret one</Private > b <private>two</ private> c")
    assert result.text == "a b c"
    assert result.removed == 2


def test_an_unclosed_span_hides_the_rest_of_the_text():
    result = strip_private("Ship it today. <private>the door code is 2291 and")
    assert result.text == "Ship it today."
    assert result.removed == 1


def test_a_closing_tag_without_an_opening_one_hides_what_came_before():
    assert strip_private("card 4111 1111 1111 1111</private> thanks").text == "thanks"


def test_nested_spans_count_once_and_the_outer_span_is_removed_whole():
    result = strip_private("x <private>a <private>b</private> c</private> y")
    assert result.text == "x y"
    assert result.removed == 1


def test_indentation_of_the_kept_lines_survives():
    text = "code:\n    keep()\n<private>token=abc</private>\n    also_keep()"
    assert strip_private(text).text == "code:\n    keep()\n\n    also_keep()"


def test_none_and_empty_are_empty():
    assert strip_private(None).text == ""
    assert not has_private(None)


@given(st.text(), st.text(min_size=1).filter(lambda s: "<" not in s and ">" not in s), st.text())
def test_nothing_inside_a_span_survives(before, secret, after):
    marker = f"\u2063{secret}\u2063"  # an invisible separator makes the secret findable only if it leaked whole
    result = strip_private(f"{before}<private>{marker}</private>{after}")
    assert marker not in result.text
    assert not has_private(result.text)
