"""ABA / RNEA / CRBA time per call: legsim (numba) vs Pinocchio's C++ called from Python, one run.

Robot: the 18-DoF hexapod of issue 3 §6 with a floating base (nq = 25, nv = 24).
Reported per call: the minimum over ``--repeat`` short batches of ``--n`` calls (short batches make
the minimum robust on a shared, loaded machine):

- ``legsim public``   : ``legsim.multibody.aba(model, data, q, v, tau)`` (validation + kernel call)
- ``legsim packed``   : the compiled buffer entry point (``_packed.aba``) called from Python, no validation
- ``legsim in-loop``  : the kernel called from a compiled loop, as a simulation step runs it
- ``legsim world``    : (ABA only) the world-coordinate kernels from a compiled loop, kinematics
                        included (``_aba_world.world_kinematics`` + ``aba_world``), as RobotWorld and
                        the event-contact model run them
- ``pinocchio``       : ``pin.aba(model, data, q, v, tau)`` from Python

Cold start (import + first call, i.e. numba compile or cache load) is printed separately.
Usage: ``.venv/bin/python benchmarks/bench_multibody_dynamics.py [--n 200] [--repeat 200]``
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np


def best_per_call(fn, n, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()

    t0 = time.perf_counter()
    import legsim.multibody as mb
    from legsim.multibody import _aba_world as W
    from legsim.multibody import _kernels as K
    from legsim.multibody import _packed as P
    from legsim.multibody.samples import hexapod, hexapod_stance

    model = hexapod(floating_base=True)
    data = model.make_data()
    rng = np.random.default_rng(0)
    q = hexapod_stance(model)
    v = rng.normal(size=model.nv)
    tau = rng.normal(size=model.nv)
    mb.aba(model, data, q, v, tau)
    mb.rnea(model, data, q, v, tau)
    mb.crba(model, data, q)
    cold = time.perf_counter() - t0

    import pinocchio as pin
    from numba import njit

    pm = pin.buildModelFromXML(mb.to_urdf(model, capsules="cylinder_spheres"), pin.JointModelFreeFlyer())
    pd = pm.createData()
    err = np.abs(pin.aba(pm, pd, q, v, tau) - mb.aba(model, data, q, v, tau)).max()

    @njit(cache=True)
    def aba_loop(m, d, q, v, tau, fext, out, n):
        for _ in range(n):
            K.aba(m, d, q, v, tau, fext, out)

    @njit(cache=True)
    def aba_world_loop(m, d, q, v, tau, fext, out, n):
        for _ in range(n):
            W.world_kinematics(m, d, q, v)
            W.aba_world(m, d, v, tau, fext, out)

    @njit(cache=True)
    def rnea_loop(m, d, q, v, a, fext, out, n):
        for _ in range(n):
            K.rnea(m, d, q, v, a, fext, out)

    @njit(cache=True)
    def crba_loop(m, d, q, out, n):
        for _ in range(n):
            K.crba(m, d, q, out)

    (fb, ib), ma = model.kernel_buffers, model.kernel_arrays  # what legsim.multibody.dynamics uses
    fz, db = data.zero_nb6, data.buf
    aba_loop(ma, data, q, v, tau, fz, data.ddq, 1)
    ddq_world = np.zeros(model.nv)
    aba_world_loop(ma, data, q, v, tau, fz, ddq_world, 1)
    err_world = np.abs(pin.aba(pm, pd, q, v, tau) - ddq_world).max()
    rnea_loop(ma, data, q, v, tau, fz, data.tau, 1)
    crba_loop(ma, data, q, data.M, 1)

    def py_loop(f):
        def run(n):
            for _ in range(n):
                f()
        return run

    n, r = args.n, args.repeat
    rows = {
        "aba": {
            "legsim public": best_per_call(py_loop(lambda: mb.aba(model, data, q, v, tau)), n, r),
            "legsim packed": best_per_call(py_loop(lambda: P.aba(fb, ib, db, q, v, tau, fz)), n, r),
            "legsim in-loop": best_per_call(lambda k: aba_loop(ma, data, q, v, tau, fz, data.ddq, k), n, r),
            "legsim world": best_per_call(lambda k: aba_world_loop(ma, data, q, v, tau, fz, ddq_world, k),
                                          n, r),
            "pinocchio": best_per_call(py_loop(lambda: pin.aba(pm, pd, q, v, tau)), n, r),
        },
        "rnea": {
            "legsim public": best_per_call(py_loop(lambda: mb.rnea(model, data, q, v, tau)), n, r),
            "legsim in-loop": best_per_call(lambda k: rnea_loop(ma, data, q, v, tau, fz, data.tau, k), n, r),
            "pinocchio": best_per_call(py_loop(lambda: pin.rnea(pm, pd, q, v, tau)), n, r),
        },
        "crba": {
            "legsim public": best_per_call(py_loop(lambda: mb.crba(model, data, q)), n, r),
            "legsim in-loop": best_per_call(lambda k: crba_loop(ma, data, q, data.M, k), n, r),
            "pinocchio": best_per_call(py_loop(lambda: pin.crba(pm, pd, q)), n, r),
        },
    }
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"pinocchio {pin.__version__}")
    print(f"hexapod: nq={model.nq} nv={model.nv} nbody={model.nbody}; |ddq_legsim - ddq_pin|_max = {err:.1e} "
          f"(world coordinates: {err_world:.1e})")
    print(f"cold start (import + first aba/rnea/crba, numba compile or cache load): {cold:.2f} s")
    for alg, res in rows.items():
        pin_t = res["pinocchio"]
        for name, t in res.items():
            ratio = "" if name == "pinocchio" else f"   {t / pin_t:5.2f}x pinocchio"
            print(f"{alg:5s} {name:15s} {t * 1e6:8.2f} us/call{ratio}")


if __name__ == "__main__":
    main()
