"""A saved web page began with its navigation: docling's wiki_duck.html read as the site menu, the table of
contents and 136 language names before "Duck is the common name...". The HTML reader leaves out <nav>,
role="navigation", links to the page in other languages (<a hreflang>) and what the page marks as not shown
(`hidden`, aria-hidden="true"); a page's <header> and <footer> are kept, and a page that is mostly such text
is read whole rather than lost."""

from __future__ import annotations

from pathlib import Path

from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors.html import html_to_text

ARTICLE = "<p>Duck is the common name for numerous species of waterfowl in the family Anatidae.</p>"


def test_navigation_and_hidden_elements_are_left_out(tmp_path: Path) -> None:
    page = (
        "<html><head><title>Duck</title></head><body><a href='#c'>Jump to content</a>"
        "<header><nav aria-label='Site'><ul><li><a href='/'>Main page</a><li>Random article</ul></nav>"
        "<h1>Duck</h1><p class='byline'>By the bird editors</p></header>"
        "<div class='lang'><ul><li><a href='https://de.example/Ente' hreflang='de'>Deutsch</a></li>"
        "<li><a hreflang='fr' href='https://fr.example/Canard'><span>Français</span></a></li></ul></div>"
        "<div role='navigation'><div>Portals:</div> Birds portal</div>"
        "<ul role='list navigation'><li>Sister projects</ul>"
        "<span aria-hidden='true'>★</span><label aria-hidden=TRUE>Toggle menu</label>"
        f"<main>{ARTICLE}<pre hidden><code>$ hidden-command</code></pre>"
        "<div hidden><div>first hidden</div>second hidden</div>"
        "<div hidden='until-found'>found by a browser's find</div><p aria-hidden='false'>shown to all</p></main>"
        "<footer>Text is available under the Creative Commons licence.</footer></body></html>"
    )
    path = tmp_path / "duck.html"
    path.write_text(page, encoding="utf-8")
    doc = extract(path)
    for gone in ("Main page", "Random article", "Deutsch", "Français", "Portals", "Birds portal", "Sister projects",
                 "★", "Toggle menu", "hidden-command", "first hidden", "second hidden"):
        assert gone not in doc.text, gone
    assert doc.text == (
        "Duck\n\nJump to content\n\nDuck\n\nBy the bird editors\n\n"
        "Duck is the common name for numerous species of waterfowl in the family Anatidae.\n\n"
        "found by a browser's find\n\nshown to all\n\n"
        "Text is available under the Creative Commons licence."
    )


def test_a_left_out_block_still_parts_the_text_around_it() -> None:
    assert html_to_text(f"{ARTICLE}before<nav>menu</nav>after").endswith("before\n\nafter")
    assert html_to_text(f"{ARTICLE}in<span aria-hidden='true'>icon</span>line").endswith("inline")


def test_elements_without_an_end_tag_hide_nothing_after_them() -> None:
    """An icon <img aria-hidden>, an <input hidden>, or an <li>/<p> whose end tag HTML lets a page leave out:
    hiding them would hide the rest of the page."""
    markup = (f"{ARTICLE}<img aria-hidden='true' src='i.png'>after the icon<input type='hidden' hidden name=x>"
              "after the input<ul><li aria-hidden=true>an item<li>next item</ul><p hidden>a paragraph<p>the end")
    text = html_to_text(markup)
    for kept in ("after the icon", "after the input", "next item", "the end"):
        assert kept in text, kept


def test_a_page_mostly_hidden_or_navigation_is_read_whole() -> None:
    """Saved while a cookie dialog had set aria-hidden on the rest, or a page that is a list of links: what would
    be left out is more than what is kept, so the page is read as a browser shows it."""
    dialog = (f"<div id='app' aria-hidden='true'><main>{ARTICLE}<p>Ducks are mostly aquatic birds.</p></main></div>"
              "<div role='dialog'>Accept cookies</div>")
    assert "Ducks are mostly aquatic birds." in html_to_text(dialog) and "Accept cookies" in html_to_text(dialog)
    index = "<title>Site map</title><nav><ul><li><a href='a.html'>Anatidae</a><li><a href='b.html'>Geese</a></ul></nav>"
    assert html_to_text(index) == "Site map\n\nAnatidae\nGeese"
    unclosed = f"<p>Short intro.</p><nav><a href='/'>Home</a>{ARTICLE}<p>More prose about ducks.</p>"
    assert "More prose about ducks." in html_to_text(unclosed)


# ------------------------------------------------------------- what the rules must not take (real content)

PROSE = "<p>" + "Intro words about the product. " * 10 + "</p>"  # so that the page is not read whole


def test_an_unclosed_hidden_element_ends_with_the_element_around_it() -> None:
    """Browsers close an element left open when an element around it ends; so does the reader."""
    icon = html_to_text(f"{PROSE * 3}<ul><li>Item one <i class='icon' aria-hidden='true'></li>"
                        "<li>Item two, the important one</li></ul><p>Closing paragraph with the address.</p>")
    assert icon.endswith("Item one\nItem two, the important one\n\nClosing paragraph with the address.")
    span = html_to_text(f"<p>First <span hidden>x</p><p>Second paragraph of words that stay.</p>{PROSE}<p>end</p>")
    assert span.startswith("First\n\nSecond paragraph of words that stay.") and span.endswith("end")
    nav = html_to_text(f"{PROSE}<div><nav><a href='/'>Home</a></div><p>After the menu.</p>")
    assert nav.endswith("After the menu.") and "Home" not in nav


def test_an_inactive_tab_or_accordion_panel_is_read() -> None:
    tabs = html_to_text(f"<h1>Widget 3000</h1>{PROSE}<div role='tablist'><button>Overview</button></div>"
                        "<div role='tabpanel'>Overview text.</div><div role='tabpanel' hidden><table>"
                        "<tr><td>Weight</td><td>1.2 kg</td></tr></table></div><div role=region hidden>Warranty: 2 years"
                        "</div>")
    assert tabs.endswith("Overview text.\n\nWeight 1.2 kg\n\nWarranty: 2 years")
    faq = html_to_text(f"<h1>FAQ</h1>{PROSE}<div class='q'>How do I reset my password?</div>"
                       "<div class='a' aria-hidden='true'>Go to Settings, choose Security, then Reset password.</div>")
    assert faq.endswith("How do I reset my password?\n\nGo to Settings, choose Security, then Reset password.")


def test_a_formula_keeps_its_visible_text() -> None:
    """KaTeX writes a formula twice: MathML for screen readers (not read here) and the visible text, aria-hidden."""
    katex = ("<span class='katex'><span class='katex-mathml'><math><semantics><mi>E</mi><annotation>E=mc^2"
             "</annotation></semantics></math></span><span class='katex-html' aria-hidden='true'><span>E</span>"
             "<span>=</span><span>mc</span><sup>2</sup></span></span>")
    assert html_to_text(f"{PROSE}<p>Energy is {katex} as shown.</p>").endswith("Energy is E=mc2 as shown.")


def test_a_link_in_another_language_is_left_out_only_in_a_list() -> None:
    prose = html_to_text(f"{PROSE}<p>Read the <a hreflang='de' href='/de'>German original</a> for details.</p>")
    assert prose.endswith("Read the German original for details.")
    picker = html_to_text(f"{PROSE}<ul><li><a hreflang='de' href='/de'>Deutsch</a><li><a hreflang=fr>Français</a></ul>"
                          "<p>After the list.</p>")
    assert "Deutsch" not in picker and "Français" not in picker and picker.endswith("After the list.")


def test_a_stray_end_tag_in_a_left_out_element_ends_it_only_if_its_element_is_open() -> None:
    """A page that leaves its <li> and <p> unclosed, as HTML allows, counted them open for good: a stray </li> or
    </p> much later, inside a <nav> or a [hidden] element, showed the rest of it (a review's three cases)."""
    nav = html_to_text(f"<ul><li>Item one<li>Item two</ul>{PROSE}<nav><a>Home</a></li><a>About us</a></nav>")
    assert "About us" not in nav and nav.startswith("Item one\nItem two")
    hidden = html_to_text(f"<p>Intro{PROSE}<div hidden>secret one</p>secret two</div><p>end</p>")
    assert "secret" not in hidden and hidden.endswith("end")
    nested = html_to_text(f"<ul><li>a<ul><li>b</ul><li>c</ul>{PROSE}<nav><a>Home</a></li>Menu words</nav>")
    assert "Menu words" not in nested and nested.split()[:3] == ["a", "b", "c"]
