"""examples/contact_baselines.py: the force-based laws vs the LCP (Lemke) baseline on the trade-off
cases of Konyev §2 (digest §2; issue 21 §3): bounce, resting contact, sliding. Each number against its
closed form; measured values (quick run: force laws at 0.1 ms, LCP at 1 ms) in the comments."""

import importlib.util
import math
from pathlib import Path

import pytest

G, R, K, EPS, MU, V0, SLOP = 9.81, 0.05, 1e5, 0.5, 0.4, 2.0, 1e-5


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    path = Path(__file__).resolve().parents[1] / "examples" / "contact_baselines.py"
    spec = importlib.util.spec_from_file_location("legsim_example_contact_baselines", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path_factory.mktemp("baselines")
    result = mod.main(["--out", str(out), "--quick"])
    assert (out / "contact_baselines.png").stat().st_size > 10_000
    return result


def test_both_baselines_bounce_with_the_requested_restitution(res):
    force, lcp = res["force"]["bounce"], res["lcp 1e-3"]["bounce"]
    assert lcp["e"] == pytest.approx(EPS, rel=1e-12)  # Newton's law, imposed in one step
    assert lcp["duration"] == pytest.approx(1e-3)  # one impulsive step
    # (2.20) with the exact D inversion, integrated at Ts = 0.1 ms: 0.50000 (the A4 relation is exact
    # for the continuous law; the step adds the rest)
    assert force["e"] == pytest.approx(EPS, abs=1e-3)
    # a penalty contact lasts about pi / sqrt(k/m) = 9.9 ms (measured 10.3 ms) and its peak force is
    # bounded by the stiffness; the LCP's is the impulse over one step (measured 726 N vs 3322 N)
    assert force["duration"] == pytest.approx(math.pi / math.sqrt(K), rel=0.1)
    assert lcp["peak"] > 4 * force["peak"]


def test_resting_contact_carries_the_weight_without_drift(res):
    force, lcp = res["force"]["resting"], res["lcp 1e-3"]["resting"]
    assert force["depth"] == pytest.approx(G / K, rel=1e-9)  # m g / k = 98.1 µm
    assert lcp["depth"] == pytest.approx(SLOP, rel=1e-9)  # the LCP holds the depth it was given
    for r in (force, lcp):
        assert r["f_mean"] == pytest.approx(G, rel=1e-12)
        assert r["f_std"] < 1e-9 and r["drift"] < 1e-15


def test_sliding_sphere_decelerates_at_mu_g_and_ends_rolling(res):
    for method, depth, tol in (("force", G / K, 1e-5), ("lcp 1e-3", SLOP, 1e-9)):
        r = res[method]["sliding"]
        assert r["decel"] == pytest.approx(MU * G, rel=tol)
        # rolling about the contact point, lever r' = R - depth / 2: v = v0 r'^2 / (r'^2 + 2/5 R^2)
        lever = R - depth / 2
        assert r["v_end"] == pytest.approx(V0 * lever**2 / (lever**2 + 0.4 * R**2), rel=1e-5)
        assert r["roll"] == pytest.approx(R / lever, rel=1e-5)  # omega r' = v
