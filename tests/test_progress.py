"""The progress bars of counted work (legsim._progress): one rule for the sweep's runs and the RATS
experiments' tips, firings, hops, thresholds and tuning evaluations."""

from __future__ import annotations

import io
import time

import pytest

from legsim._progress import counter
from legsim.errors import InputError


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_true_shows_the_bar_false_and_none_off_a_terminal_do_not(capsys):
    for progress in (True, False, None):  # pytest's stderr is not a terminal
        with counter(3, unit="tip", desc="range", progress=progress) as bar:
            for _ in range(3):
                bar.update()
        err = capsys.readouterr().err
        assert ("range" in err and "/3" in err) == (progress is True), (progress, err)


def test_none_on_a_terminal_shows_the_bar_once_the_work_has_lasted_two_seconds():
    quick, shown = _Terminal(), _Terminal()
    with counter(2, unit="run", desc="quick", progress=None, file=quick) as bar:
        bar.update(2)   # done at once: nothing was drawn
    assert quick.getvalue() == ""
    with counter(2, unit="run", desc="slow", progress=None, file=shown, mininterval=0.0) as bar:
        time.sleep(2.1)
        bar.update()
    assert "slow" in shown.getvalue() and "1/2" in shown.getvalue()


@pytest.mark.parametrize("call", ["range_run", "endurance_run", "per_leg_hops", "calibrate_tip_model",
                                  "tune_rolling"])
def test_a_progress_that_is_not_a_flag_is_named_before_any_run(call):
    from legsim.robots.rats import experiments as E

    kw = {"interval": 3.0, "firings": 2} if call == "endurance_run" else {}
    with pytest.raises(InputError, match=f"{call}: 'progress' = 'yes', expected True or False"):
        getattr(E, call)(progress="yes", **kw)
