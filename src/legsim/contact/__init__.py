"""Contact processing: collision detection and force-based contact response (Konyev 2011, ch. 2).

Digest: ../shared/spec/contact-processing-anton-rotto.md §1–§3, §7.1. Pipeline (Fig. 2.1/2.8):
shapes and terrain (:mod:`.shapes`) placed by world poses -> :func:`collide` (broad phase, narrow
phase, contact buffer) -> :func:`contact_forces` with a :class:`LawTable` (normal law + friction
law per material pair, per-contact state) -> wrenches on the bodies. :mod:`.impulse` holds the
impulse-based baseline; :class:`RigidWorld` is a small free-body world for tests and examples.
"""

from .bodies import RigidWorld, WorldResult
from .detection import Contacts, collide, convex_distance, make_contacts, make_work
from .impulse import collide_spheres_1d, newton_impulse_pair
from .laws import (
    ContactLaw,
    FrictionLaw,
    LawTable,
    NormalLaw,
    anchor_spring,
    coulomb,
    engelson,
    hertz,
    hunt_crossley,
    kelvin_voigt,
    kelvin_voigt_damping,
    linear_penalty,
    no_friction,
    restitution,
    restitution_damping_exact,
    restitution_damping_thesis,
    restitution_of_damping,
    stribeck,
    threshold,
)
from .response import ContactState, accumulate_wrenches, contact_forces, free_body_velocities, make_state
from .scene import Scene, geom_world_poses
from .shapes import (
    Box,
    Capsule,
    Cone,
    ConvexMesh,
    Cylinder,
    HeightField,
    HeightFunction,
    Plane,
    Sphere,
    TerrainMesh,
    TriangleMesh,
    check_closed_mesh,
    inclined_plane,
    mass_properties,
)

__all__ = [
    "RigidWorld",
    "WorldResult",
    "Contacts",
    "collide",
    "convex_distance",
    "make_contacts",
    "make_work",
    "collide_spheres_1d",
    "newton_impulse_pair",
    "ContactLaw",
    "FrictionLaw",
    "LawTable",
    "NormalLaw",
    "anchor_spring",
    "coulomb",
    "engelson",
    "hertz",
    "hunt_crossley",
    "kelvin_voigt",
    "kelvin_voigt_damping",
    "linear_penalty",
    "no_friction",
    "restitution",
    "restitution_damping_exact",
    "restitution_damping_thesis",
    "restitution_of_damping",
    "stribeck",
    "threshold",
    "ContactState",
    "accumulate_wrenches",
    "contact_forces",
    "free_body_velocities",
    "make_state",
    "Scene",
    "geom_world_poses",
    "Box",
    "Capsule",
    "Cone",
    "ConvexMesh",
    "Cylinder",
    "HeightField",
    "HeightFunction",
    "Plane",
    "Sphere",
    "TerrainMesh",
    "TriangleMesh",
    "check_closed_mesh",
    "inclined_plane",
    "mass_properties",
]
