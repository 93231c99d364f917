"""Hostile entrants against what littlego reports: a folder named as a spreadsheet formula in the
tournament's CSV."""

import csv

import pytest

from engine.cli.littlego import main
from tests.test_course_build import PASS_PY


def folder_of(root, name, text=PASS_PY):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "my_player3.py").write_text(text)
    return str(folder)


@pytest.mark.fast
def test_a_folder_named_as_a_formula_is_text_in_the_tournaments_csv(tmp_path):
    root = tmp_path / "class"
    for name in ("=1+2", "@SUM(1+1)", "+1", "-1+1"):
        folder_of(root, name)
    table = tmp_path / "table.csv"
    assert main(["tournament", str(root), "--games", "1", "--jobs", "2", "--csv", str(table), "--no-progress"]) == 0
    rows = list(csv.reader(open(str(table))))
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert {"'=1+2", "'@SUM(1+1)", "'+1", "'-1+1"} <= set(cells) and "vs =1+2" in rows[0]
    assert all(row[0].isdigit() and row[2].isdigit() for row in rows[1:])  # the numbers are numbers


@pytest.mark.fast
def test_a_csv_cell_is_neutralised_only_where_text_begins_as_a_formula():
    from engine.course.report import spreadsheet_cell

    cells = ["=1+2", "+1", "-1+1", "@A1", "\tx", "\rx", "plain", "vs =1", -3, 2.5, 0]
    assert [spreadsheet_cell(cell) for cell in cells] == [
        "'=1+2",
        "'+1",
        "'-1+1",
        "'@A1",
        "'\tx",
        "'\rx",
        "plain",
        "vs =1",
        -3,
        2.5,
        0,
    ]
