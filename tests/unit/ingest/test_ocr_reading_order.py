"""The order OCR text boxes are read in (searchapp/ingest/ocr/reading_order.py, columns.py), on boxes laid
out here as a page's layouts set them: columns of prose, tables, a sidebar, a page number between columns."""

from __future__ import annotations

from searchapp.ingest.ocr.columns import is_running_text, is_sentence
from searchapp.ingest.ocr.reading_order import lines_in_reading_order, rows_of

H, PITCH = 20, 30  # text height and line pitch, in pixels


def _box(x0, y0, x1, y1, text):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], text, 0.9


def _read(boxes) -> list[str]:
    return lines_in_reading_order(reversed(boxes)).splitlines()  # engines give boxes in any order


def _prose(side: str, n: int) -> list[str]:
    return [f"{side} column, line {i} of the running text" for i in range(n)]


def test_boxes_are_read_column_by_column_under_a_full_width_title():
    boxes = [_box(0, 0, 600, H, "Quarterly report of the lighthouse")]
    for i in range(4):  # two columns whose lines sit at the same heights, as a two-column page sets them
        y = 60 + i * PITCH
        boxes.append(_box(0, y, 280, y + H, f"left column, line {i} of prose"))
        boxes.append(_box(320, y, 600, y + H, f"right column, line {i} of prose"))
    boxes.append(_box(0, 60 + 4 * PITCH + 30, 600, 60 + 4 * PITCH + 30 + H, "Footnote across the page"))
    assert _read(boxes) == (["Quarterly report of the lighthouse"] + [f"left column, line {i} of prose" for i in range(4)]
                            + [f"right column, line {i} of prose" for i in range(4)] + ["Footnote across the page"])
    # the same layout with a table's short cells: each row is read across
    cells = [_box(0, 60 + i * PITCH, 80, 60 + i * PITCH + H, f"00{i}") for i in range(4)]
    cells += [_box(320, 60 + i * PITCH, 400, 60 + i * PITCH + H, f"${i}.50") for i in range(4)]
    assert lines_in_reading_order(cells).splitlines() == [f"00{i} ${i}.50" for i in range(4)]


def test_a_caption_with_two_labels_on_the_right_is_read_row_by_row():
    boxes = [_box(0, 0, 200, 20, "Plaintiff,"), _box(400, 0, 560, 20, "CIVIL ACTION NO."),
             _box(0, 30, 40, 50, "v."),
             _box(0, 60, 220, 80, "HIRE DYNAMICS, LLC,"), _box(400, 60, 600, 80, "JURY TRIAL DEMANDED"),
             _box(0, 90, 120, 110, "Defendant.")]
    assert lines_in_reading_order(boxes).splitlines() == [
        "Plaintiff, CIVIL ACTION NO.", "v.", "HIRE DYNAMICS, LLC, JURY TRIAL DEMANDED", "Defendant."]


def test_a_table_of_long_names_and_figures_is_read_row_by_row():
    # a price list: code, a long name in capitals or Title Case, two figures; the names are as long as a
    # line of prose, yet they are not running text, so the rows are read across (the old rule split them)
    names = ["ESCITALOPRAM OXALATE TABLETS 10MG 500", "FLUOXETINE CAPSULES 20MG 1000",
             "Rio Grande Valley (formerly McAllen)", "Southwest Border Sectors Total"]
    boxes = []
    for i, name in enumerate(names):
        y = i * PITCH
        boxes += [_box(0, y, 120, y + H, f"00093-58{i}1-05"), _box(140, y, 480, y + H, name),
                  _box(520, y, 600, y + H, f"${i}08.16"), _box(640, y, 700, y + H, f"{i}.71")]
    assert _read(boxes) == [f"00093-58{i}1-05 {name} ${i}08.16 {i}.71" for i, name in enumerate(names)]


def test_a_table_beside_a_column_of_text_with_a_chart_is_read_table_first():
    # a research note: a table of labels and figures on the left; on the right a paragraph above a chart's
    # short labels. The table's rows are read across, then the right column (labels and all) to its end
    labels = ["Revenue (US$ m)", "EBITDA (US$ m)", "Net interest exp", "Profit after tax", "Adjusted net income"]
    boxes = []
    for i, label in enumerate(labels):
        y = i * PITCH
        boxes += [_box(0, y, 200, y + H, label), _box(260, y, 320, y + H, f"{i}15.9"),
                  _box(360, y, 420, y + H, f"{i}82.7")]
    text = _prose("right", 3)
    boxes += [_box(460, i * PITCH, 900, i * PITCH + H, t) for i, t in enumerate(text)]
    chart = ["60", "40", "Oct-18", "Jan-19", "KL.N"]
    boxes += [_box(460 + 80 * i, 3 * PITCH, 500 + 80 * i, 3 * PITCH + H, t) for i, t in enumerate(chart)]
    assert _read(boxes) == ([f"{label} {i}15.9 {i}82.7" for i, label in enumerate(labels)] + text
                            + [" ".join(chart)])


def test_a_narrow_gutter_and_a_page_number_inside_it_still_part_the_columns():
    # a gutter 0.45 text heights wide (the old rule wanted 0.5) with the page number sitting in it
    left, right = _prose("left", 5), _prose("right", 5)
    boxes = []
    for i in range(5):
        y = i * PITCH
        boxes += [_box(0, y, 400, y + H, left[i]), _box(409, y, 809, y + H, right[i])]
    boxes.append(_box(400, 5 * PITCH + 10, 409, 5 * PITCH + 10 + H, "7"))
    lines = _read(boxes)
    assert lines[:10] == left + right
    assert lines[10] == "7"


def test_a_wide_gap_across_the_page_parts_two_sections_before_their_columns():
    # two articles stacked, each in two columns on the same gutter: the first is read to its end (both its
    # columns) before the second begins, because the gap between them is far wider than the gutter
    top_l, top_r, low_l, low_r = _prose("top left", 3), _prose("top right", 3), _prose("low left", 3), _prose("low right", 3)
    boxes = []
    for i in range(3):
        boxes += [_box(0, i * PITCH, 400, i * PITCH + H, top_l[i]), _box(420, i * PITCH, 820, i * PITCH + H, top_r[i])]
        y = 3 * PITCH + 4 * H + i * PITCH
        boxes += [_box(0, y, 400, y + H, low_l[i]), _box(420, y, 820, y + H, low_r[i])]
    assert _read(boxes) == top_l + top_r + low_l + low_r


def test_running_text_is_told_from_names_labels_and_figures():
    assert is_sentence("the raw stuff was either poured in or dumped")
    assert not is_sentence("Rio Grande Valley (formerly McAllen)")  # Title Case: a name
    assert not is_sentence("METHYLPHENIDATE HCL ER CAP (CD) 10MG 100")
    assert not is_sentence("a short line")  # too short to tell
    column = [(0, i * PITCH, 400, i * PITCH + H, t) for i, t in enumerate(_prose("left", 3))]
    assert is_running_text(column)
    assert not is_running_text(column[:2])  # two lines: a caption's labels, not a column
    figures = [(0, i * PITCH, 60, i * PITCH + H, f"{i}.71") for i in range(6)]
    assert is_running_text(column + figures)  # most of its characters are still running text
    assert not is_running_text([(0, 0, 60, H, "1,382.7")] * 3)


def test_lines_whose_boxes_touch_are_still_parted_under_a_title_that_touches_them():
    # OCR boxes are padded: a title's box touches the first lines, and each line's box overlaps the next by 2 px.
    # Each box counts ROW_PAD text heights shorter at both ends, so a gap across is still found under the title
    # and between the lines, and the two columns are read one after the other; counted at full height no gap
    # is left, and each row would be read across both columns.
    left, right = _prose("left", 4), _prose("right", 4)
    boxes = [_box(0, 0, 600, H + 2, "Minutes of the harbour board")]
    for i in range(4):
        y = H + i * (H - 2)
        boxes += [_box(0, y, 280, y + H, left[i]), _box(320, y, 600, y + H, right[i])]
    assert _read(boxes) == ["Minutes of the harbour board"] + left + right


def test_a_gap_across_a_few_gutters_wide_parts_sections_and_a_paragraph_break_does_not():
    # Two articles stacked on the same 20 px gutter. A gap of 50 px between them (2.5 gutters, past SECTION_GAP)
    # parts them: the first is read to its end, both its columns, before the second. A gap of 25 px (1.25
    # gutters) is a paragraph break within the columns: each column is read from top to bottom.
    def page(gap: int) -> list[str]:
        boxes = []
        for i in range(3):
            boxes += [_box(0, i * PITCH, 400, i * PITCH + H, top_l[i]), _box(420, i * PITCH, 820, i * PITCH + H, top_r[i])]
            y = 2 * PITCH + H + gap + i * PITCH
            boxes += [_box(0, y, 400, y + H, low_l[i]), _box(420, y, 820, y + H, low_r[i])]
        return _read(boxes)

    top_l, top_r, low_l, low_r = _prose("top left", 3), _prose("top right", 3), _prose("low left", 3), _prose("low right", 3)
    assert page(50) == top_l + top_r + low_l + low_r
    assert page(25) == top_l + low_l + top_r + low_r


def test_boxes_are_one_line_when_they_overlap_by_half_the_smaller_height():
    # A word set a little lower (a baseline drift, a subscript) is on its line: 12 px of 20 overlap. Two lines
    # set tight overlap by a few pixels only (3 px of 20): they stay two lines.
    drift = [(0, 0, 100, H, "Tide"), (110, 8, 200, 8 + H, "tables")]
    assert [[b[4] for b in row] for row in rows_of(drift)] == [["Tide", "tables"]]
    tight = [(0, 0, 100, H, "first"), (110, 0, 200, H, "line"), (0, H - 3, 100, 2 * H - 3, "second")]
    assert [[b[4] for b in row] for row in rows_of(tight)] == [["first", "line"], ["second"]]
    # through the whole reading: 9 px of 20 overlap leaves no gap across (ROW_PAD shortens each box by 4 px
    # only), and still the two boxes are two lines
    assert lines_in_reading_order([_box(0, 0, 100, H, "upper"), _box(0, H - 9, 100, 2 * H - 9, "lower")]) == \
        "upper\nlower"
