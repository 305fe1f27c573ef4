"""SimSect init files: parsing, defaults, aliases, round trip (digest §1.2–§1.3, §6.3-1)."""

import pytest

from legsim.errors import InputError
from legsim.simsect import ENGINE_DEFAULTS, format_rc, parse_rc, read_rc, write_rc
from legsim.simsect.runner import options_from_symbols

FIGURE_1 = """# This is a comment
recordPeriod = 0.01
measurePeriod = 0.1
dataBaseName = "hexapod"
useGeomview = 1
framerate = 30
# Integration engine related parameters
finalTime = 5
maxChartCount = 128000
stopPrecision = 1e-10
maxStopIterations = 128
tolerance = 1e-5
maxTimeStep = 1e-3
minTimeStep = 1e-15
rkPower = 0.33
"""


def test_figure_1_parses_with_both_spellings_of_the_aliased_symbols():
    table = parse_rc(FIGURE_1)
    assert table["maxStopIter"].value == 128.0
    assert table["power"].value == 0.33
    assert table["dataBaseName"].value == "hexapod"
    assert table["finalTime"].value == 5.0
    assert "maxStopIterations" not in table and "rkPower" not in table


def test_engine_defaults_are_the_manuals():
    assert ENGINE_DEFAULTS == {
        "systemName": "hexapod", "dataBaseName": "SimSect", "useGeomview": 0.0,
        "stopPrecision": 1e-10, "maxStopIter": 128.0, "recordPeriod": 0.0, "measurePeriod": 0.0,
        "maxChartCount": 128.0, "finalTime": 1.0, "tolerance": 1e-4, "maxTimeStep": 1e-2,
        "minTimeStep": 1e-15, "power": 0.33}
    opts = options_from_symbols({}, "x.rc")
    assert opts.tolerance == 1e-4 and opts.h_max == 1e-2 and opts.h_min == 1e-15
    assert opts.stop_precision == 1e-10 and opts.max_stop_iter == 128
    assert opts.max_transitions == 128 and opts.power == 0.33 and opts.record_period == 0.0


def test_written_symbols_read_back_identically(tmp_path):
    table = parse_rc(FIGURE_1)
    values = {k: s.value for k, s in table.items()}
    values["oddReal"] = 0.1 + 0.2
    values["quoted"] = 'say "hi" \\ there'
    values["lines"] = "two\nlines\tand a tab"
    values["letters"] = "Müller, 漢字"  # before session 39 read back as 'MÃ¼ller, æ¼¢å\xad\x97'
    path = tmp_path / "round.rc"
    write_rc(path, values, header="round trip")
    assert path.read_text(encoding="utf-8") == format_rc(values, header="round trip")
    again = {k: s.value for k, s in read_rc(path).items()}
    assert again == values
    assert parse_rc('name = "Müller"  # as a user types it in a UTF-8 file')["name"].value == "Müller"


def test_trailing_comments_and_space_separated_values_are_read():
    table = parse_rc('a = 1.5   # comment\nb 2\nname = "x # not a comment"\n')
    assert table["a"].value == 1.5 and table["b"].value == 2.0
    assert table["name"].value == "x # not a comment"


@pytest.mark.parametrize("text, fragment", [
    ("finalTime = abc\n", "expected a real number"),
    ("finalTime =\n", "cannot read"),
    ("1abc = 3\n", "not a symbol name"),
    ("finalTime = nan\n", "finite"),
    ('name = "unterminated\n', "cannot read"),
    ('name = "half \\x7"\n', "truncated \\xXX escape"),  # was the codec's UnicodeDecodeError
    ('name = "\\N{no such letter}"\n', "unknown Unicode character name"),
])
def test_malformed_lines_name_the_file_line_and_problem(text, fragment):
    with pytest.raises(InputError) as exc:
        parse_rc(text, "bad.rc")
    assert "bad.rc:1" in str(exc.value) and fragment in str(exc.value)


def test_a_missing_init_file_is_reported_by_name(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_rc(tmp_path / "nope.rc")
