"""``legsim simsect``: SimSect init files run unchanged and write SimSect's files (digest §1.1, §6.1-6)."""

import subprocess
import sys

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.simsect import read_rc, run_simsect

SLIP_RC = """# a SimSect user's SLIP file
systemName = "slip"
dataBaseName = "slipdemo"
finalTime = 3
recordPeriod = 0.01
tolerance = 1e-8
maxTimeStep = 1e-3
maxChartCount = 128000
body_mass = 1.0
k = 1000
y = 0.9
xdot = 1.0
"""


def test_slip_rc_writes_data_columns_initial_and_param_files(tmp_path):
    rc = tmp_path / "SimSect.rc"
    rc.write_text(SLIP_RC)
    run = run_simsect(rc, tmp_path, progress=False, echo=lambda s: None)
    assert run.columns_file.read_text().split() == ["time", "x", "y", "xdot", "ydot"]
    data = np.loadtxt(run.data_file)
    assert data.shape == (301, 5)
    assert np.allclose(data[:, 0], np.arange(301) * 0.01, atol=1e-12, rtol=0)
    assert data[-1, 0] == 3.0
    assert np.array_equal(data[:, 1:], run.result.y[:, 1:])
    initial = {k: s.value for k, s in read_rc(tmp_path / "slipdemo.initial").items()}
    param = {k: s.value for k, s in read_rc(tmp_path / "slipdemo.param").items()}
    assert initial["y"] == 0.9 and initial["xdot"] == 1.0
    assert param["k"] == 1000.0 and param["q_rt"] == 1.0


def test_initial_and_param_files_reload_to_the_same_run(tmp_path):
    rc = tmp_path / "SimSect.rc"
    rc.write_text(SLIP_RC)
    first = run_simsect(rc, tmp_path / "a", progress=False, echo=lambda s: None)
    combined = tmp_path / "again.rc"
    engine = "\n".join(line for line in SLIP_RC.splitlines()
                       if line.split("=")[0].strip() in {"systemName", "finalTime", "recordPeriod",
                                                          "tolerance", "maxTimeStep", "maxChartCount"})
    combined.write_text(engine + "\n" + first.initial_file.read_text() + first.param_file.read_text())
    second = run_simsect(combined, tmp_path / "b", progress=False, echo=lambda s: None)
    assert np.array_equal(np.loadtxt(first.data_file), np.loadtxt(tmp_path / "b" / "SimSect.data"))
    assert second.result.status == "done"


def test_unknown_symbols_and_models_get_the_closest_valid_name(tmp_path):
    rc = tmp_path / "bad.rc"
    rc.write_text('systemName = "slip"\nbody_mas = 2\n')
    with pytest.raises(InputError, match=r"bad.rc:2: unknown symbol 'body_mas'.*did you mean 'body_mass'"):
        run_simsect(rc, tmp_path, progress=False)
    rc.write_text('systemName = "slp"\n')
    with pytest.raises(InputError, match="did you mean 'slip'"):
        run_simsect(rc, tmp_path, progress=False)
    rc.write_text('systemName = "slip"\nfinalTime = "soon"\n')
    with pytest.raises(InputError, match="'finalTime' must be a real number"):
        run_simsect(rc, tmp_path, progress=False)


def test_a_chattering_run_stops_with_a_message_and_keeps_its_rows(tmp_path):
    rc = tmp_path / "SimSect.rc"
    rc.write_text('systemName = "coulomb_block"\nfinalTime = 2\nslidingMode = 0\nmaxChartCount = 500\n')
    proc = subprocess.run([sys.executable, "-m", "legsim", "simsect", "-c", str(rc), "--out-dir",
                           str(tmp_path), "-q"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "chattering" in proc.stderr and "mode" in proc.stderr and "forward_stop" in proc.stderr
    assert (tmp_path / "SimSect.data").exists()


def test_the_cli_reports_bad_init_files_without_a_traceback(tmp_path):
    rc = tmp_path / "SimSect.rc"
    rc.write_text("finalTime = = 3\n")
    proc = subprocess.run([sys.executable, "-m", "legsim", "simsect", "-c", str(rc)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "SimSect.rc:1" in proc.stderr


HEXAPOD_RC = """# SimSect Figure 1 style init file for the compliant hexapod, Table 2 names
systemName = "hexapod"
dataBaseName = "hexapod"
recordPeriod = 0.01
measurePeriod = 0.1
useGeomview = 1
framerate = 30
finalTime = 2
maxChartCount = 128000
stopPrecision = 1e-10
maxStopIterations = 128
tolerance = 1e-5
maxTimeStep = 1e-3
minTimeStep = 1e-15
rkPower = 0.33
body_mass = 7.0
friction_coeff = 0.5
rho1_k = 1000
rho1_d = 20
theta0_k = 100
max_torque = 4.6
"""


def test_a_hexapod_init_file_with_table_2_names_runs_unchanged(tmp_path):
    rc = tmp_path / "hexapod.rc"
    rc.write_text(HEXAPOD_RC)
    lines = []
    run = run_simsect(rc, tmp_path, progress=False, echo=lines.append)
    cols = run.columns_file.read_text().split()
    data = np.loadtxt(run.data_file)
    assert data.shape == (201, len(cols))
    assert np.allclose(data[:, cols.index("time")], np.arange(201) * 0.01, atol=1e-12, rtol=0)
    y = data[:, cols.index("y")]
    assert y[-1] > y[0] + 0.2          # it walks forward (+y)
    assert data[:, cols.index("z")].min() > 0.1
    assert len(lines) == 20            # measurePeriod = 0.1 progress messages
    param = {k: s.value for k, s in read_rc(tmp_path / "hexapod.param").items()}
    assert param["body_mass"] == 7.0 and param["rho1_k"] == 1000.0 and param["max_torque"] == 4.6
    assert run.result.options["method"] == "rk4" and run.result.options["tolerance"] == 1e-5


def test_a_wrong_argument_leaves_an_earlier_runs_files_as_they_were(tmp_path):
    """Before session 41 ``run_simsect`` opened ``<base>.data`` for writing (emptying the earlier run's)
    before the engine refused ``progress="no"``, and an ``echo`` of the wrong kind failed in the middle of
    the run at the first ``measurePeriod`` (a TypeError inside the records' writer)."""
    rc = tmp_path / "tiny.rc"
    rc.write_text('systemName = "slip"\nfinalTime = 0.05\ndataBaseName = "tiny"\nrecordPeriod = 0.01\n'
                  'measurePeriod = 0.02\n')
    said = []
    run = run_simsect(rc, tmp_path / "out", progress=False, echo=said.append)
    data = run.data_file.read_text()
    assert data and said == ["t = 0.02 s", "t = 0.04 s"]
    for kw, name in (({"progress": "no"}, "progress"), ({"echo": None}, "echo"), ({"monitor": 3}, "monitor")):
        with pytest.raises(InputError, match=f"run_simsect: '{name}' = "):
            run_simsect(rc, tmp_path / "out", **{"progress": False, "echo": said.append, **kw})
        assert run.data_file.read_text() == data
