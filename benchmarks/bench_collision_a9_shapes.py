"""Run-time of each A9 shape on the triangle-mesh surface (digest §3.1: analytic sphere fastest).

Run: .venv/bin/python benchmarks/bench_collision_a9_shapes.py
One 1 kg body at rest on the surface, fixed step 0.1 ms, 5000 steps, multi-point manifold and
single-witness (SOLID) mode; prints microseconds per step (collision + response + integration)
and the ratio to the analytic sphere measured in the same run.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial.transform import Rotation

from legsim.contact import (
    Box,
    Capsule,
    ContactLaw,
    Cylinder,
    LawTable,
    RigidWorld,
    Sphere,
    TerrainMesh,
    anchor_spring,
    restitution,
)
from legsim.contact.meshes import box_mesh, capsule_mesh, grid_surface, sphere_mesh

LAW = ContactLaw(restitution(2e5, 0.5, v_min=0.05), anchor_spring(0.8, 3e4, n=1.0, brk=1.5, damping=100.0))
LYING = Rotation.from_euler("x", 90, degrees=True).as_matrix()
SHAPES = [
    ("analytic sphere", Sphere(0.1), None, 0.1),
    ("mesh sphere", sphere_mesh(0.1), None, 0.1),
    ("box", Box((0.1, 0.08, 0.06)), None, 0.06),
    ("mesh box", box_mesh((0.1, 0.08, 0.06)), None, 0.06),
    ("analytic capsule", Capsule(0.06, 0.1), LYING, 0.06),
    ("mesh capsule", capsule_mesh(0.06, 0.1), LYING, 0.06),
    ("cylinder", Cylinder(0.08, 0.06), None, 0.06),
]


def run(shape, rot, h, single, steps=5000):
    w = RigidWorld(LawTable(1, LAW), capacity=512, single=single)
    V, F = grid_surface(lambda x, y: 0.0 * x, 4.0, 40)
    w.scene.add(TerrainMesh(V, F))
    w.add_solid(shape, mass=1.0, pos=(0.31, 0.17, h - 1e-5), rot=rot)
    w.simulate(0.2, 1e-4)  # settle + compile / cache load
    t = time.perf_counter()
    res = w.simulate(steps * 1e-4, 1e-4, record_every=steps)
    return (time.perf_counter() - t) / steps, res.ncontact[-1]


def main():
    for single in (False, True):
        print(f"{'single-witness (SOLID)' if single else 'multi-point manifold'} mode, 0.1 ms step")
        base = None
        for name, shape, rot, h in SHAPES:
            dt, nc = run(shape, rot, h, single)
            base = dt if base is None else base
            print(f"  {name:17s} {dt * 1e6:8.2f} us/step  ({dt / base:5.1f}x sphere)  contacts={nc}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
