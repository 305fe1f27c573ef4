"""Collision benchmarks: GJK/EPA per query vs coal (hpp-fcl), and broad-phase scaling.

Run: .venv/bin/python benchmarks/bench_collision_gjk_broadphase.py
Prints cold compile time, per-query times for legsim's compiled GJK/EPA (called in a compiled loop,
and from Python) and coal's distance (from Python) on the same box-box and sphere-box queries, and
the cost of a full collide() pass on N spheres at constant density (near-linear scaling).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from legsim.contact import Box, Scene, Sphere, _gjk, collide, convex_distance, make_contacts
from legsim.contact.detection import make_work


@njit(cache=True)
def _loop(sv, P1, R1, P2, R2, wk, res, out):
    for i in range(P1.shape[0]):
        _gjk.gjk_epa(sv, 0, -1, P1[i], R1[i], 1, -1, P2[i], R2[i], wk, res)
        out[i] = res[0]


def _rand_rot(rng, n):
    from scipy.spatial.transform import Rotation

    return Rotation.random(n, random_state=rng).as_matrix()


def bench_pairs(shapes, nq=2000):
    rng = np.random.default_rng(0)
    s = Scene()
    s.add(shapes[0], body=0)
    s.add(shapes[1], body=1)
    m = s.compile()
    P1 = np.zeros((nq, 3))
    P2 = rng.uniform(-0.4, 0.4, (nq, 3))
    R1 = _rand_rot(rng, nq)
    R2 = _rand_rot(rng, nq)
    wk = _gjk.new_work()
    res = np.zeros(10)
    out = np.zeros(nq)
    t = time.perf_counter()
    sv = (m.gtype, m.gsize, m.gvadr, m.gvnum, m.vert, m.gfadr, m.face)
    _loop(sv, P1[:1], R1[:1], P2[:1], R2[:1], wk, res, out)
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    _loop(sv, P1, R1, P2, R2, wk, res, out)
    ours = (time.perf_counter() - t) / nq
    convex_distance(m, 0, 1, np.array([P1[0], P2[0]]), np.array([R1[0], R2[0]]))  # warm-up
    t = time.perf_counter()
    for i in range(200):
        convex_distance(m, 0, 1, np.array([P1[i], P2[i]]), np.array([R1[i], R2[i]]))
    ours_py = (time.perf_counter() - t) / 200
    try:
        import coal
    except ImportError:
        return compile_s, ours, ours_py, float("nan"), float("nan")

    def cgeom(sh):
        if isinstance(sh, Box):
            return coal.Box(*(2 * np.asarray(sh.half_extents)))
        return coal.Sphere(sh.radius)

    g1, g2 = cgeom(shapes[0]), cgeom(shapes[1])
    req = coal.DistanceRequest()
    req.enable_signed_distance = True
    cres = coal.DistanceResult()
    T1 = coal.Transform3s()
    T2 = coal.Transform3s()
    err = 0.0
    t = time.perf_counter()
    for i in range(nq):
        T1.setRotation(R1[i])
        T2.setRotation(R2[i])
        T2.setTranslation(P2[i])
        cres.clear()
        d = coal.distance(g1, T1, g2, T2, req, cres)
        err = max(err, abs(d - out[i]))
    theirs = (time.perf_counter() - t) / nq
    return compile_s, ours, ours_py, theirs, err


def bench_broadphase(ns=(125, 250, 500, 1000, 2000), reps=20):
    rows = []
    for n in ns:
        rng = np.random.default_rng(1)
        side = (n / 125.0) ** (1 / 3)  # constant density: 125 spheres per m^3
        s = Scene()
        for i in range(n):
            s.add(Sphere(0.1), body=i)
        m = s.compile()
        c = make_contacts(m, 20 * n)
        P = rng.uniform(0, side, (n, 3))
        R = np.array([np.eye(3)] * n)
        wk = make_work()
        collide(m, P, R, c, wk)
        t = time.perf_counter()
        for _ in range(reps):
            P += rng.normal(0, 0.005, P.shape)
            k = collide(m, P, R, c, wk)
        dt = (time.perf_counter() - t) / reps
        rows.append((n, dt, k))
    return rows


def main():
    print("GJK/EPA queries (random poses, ~half penetrating)")
    for name, shapes in (
        ("box-box", (Box((0.2, 0.1, 0.15)), Box((0.1, 0.2, 0.1)))),
        ("sphere-box", (Sphere(0.1), Box((0.2, 0.1, 0.15)))),
    ):
        comp, ours, ours_py, theirs, err = bench_pairs(shapes)
        print(
            f"  {name:10s} legsim compiled loop {ours * 1e6:7.2f} us/query | legsim from Python "
            f"{ours_py * 1e6:7.2f} us | coal from Python {theirs * 1e6:7.2f} us | "
            f"ratio coal/legsim(compiled) {theirs / ours:5.1f} | max |d - d_coal| {err:.2e} m | "
            f"first call (compile or cache load) {comp:.2f} s"
        )
    print("Broad phase + narrow phase, N spheres at constant density")
    rows = bench_broadphase()
    for n, dt, k in rows:
        print(f"  N={n:5d}  {dt * 1e6:9.1f} us/pass  {dt / n * 1e9:7.1f} ns/body  contacts={k}")
    print(
        f"  cost ratio N={rows[-1][0]} vs N={rows[0][0]}: {rows[-1][1] / rows[0][1]:.1f} "
        f"(linear would be {rows[-1][0] / rows[0][0]:.0f})"
    )


if __name__ == "__main__":
    main()
