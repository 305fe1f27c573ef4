"""Extended Mobility Analysis and the Jacobian-rank tests of CJTC (digest §3.3, §3.4, §3.6; Figs. 9–12).

**Stage one** (§3.3, Fig. 9). Gruebler's count under the full environmental constraints gives a; b := a.
If s < a the robot is underactuated and CJTC is refused. Each candidate control variable, in the
designer's order, is fixed by a kinematic constraint and Gruebler rerun: accepted if b drops by exactly
the number of coordinates it fixes (r += that number), else rejected with b unchanged and the
constraint removed. After the candidates b must be 0, else the set is reported as dependent.

**Stage two** (§3.4, Fig. 10). For each requested force an environmental constraint is relaxed in one
direction (an interaction force or moment) or an internal displacement constraint is relaxed (an internal
force); accepted if b rises by exactly 1 — the force is marked by a spring and r += 1 — else the
constraint is restored. It stops at r = s. b is then the Gruebler count with the accepted relaxations in
place; each of those DOF is taken up by its controlled force, so none is left uncontrolled.

The environment's ground contacts at named points (pins, welds, sliders and roll-slides along x, y, z)
and the control variables are both held as sets of fixed coordinates per point, so fixing a coordinate
the environment already fixes changes nothing; each state is drawn as joints by
:func:`legsim.control.mechanism.draw_fixed_coordinates` (the §4.4 table's slider block, pin and weld).

**Rank tests** (§3.6). Gruebler counts and can be fooled by special geometry, so the numerical test is
authoritative: a = n − rank(∂c/∂p) and b = n − rank([∂c/∂p; ∂u/∂p]) by central finite differences and
an SVD with a relative tolerance; the CJTC admissibility test rank J = r for the r × s Jacobian; and a
scanner of σ_min and the rank over a sweep of configurations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, as_floats, check_flag, check_number, check_whole, describe_failure, shown
from .mechanism import (
    COORDINATES,
    Mechanism,
    PlanarPoses,
    _axis,
    _catalogued,
    _label,
    _mechanism,
    draw_fixed_coordinates,
    gruebler,
    joint_kind,
)

__all__ = ["ControlCandidate", "ForceCandidate", "EMAStep", "MobilityResult", "extended_mobility_analysis",
           "format_mobility", "FD_STEP", "MAX_FD_STEP", "RANK_RTOL", "finite_difference_jacobian",
           "numerical_rank",
           "RankMobility", "rank_mobility", "mechanism_rank_mobility", "AdmissibilityTest", "cjtc_rank_test",
           "SingularityRow", "SingularityScan", "scan_singularities"]

FD_STEP = 1e-6
"""Central-difference step h in the units of p (m or rad): truncation O(h²) ≈ 1e-12, round-off ≈ 1e-10."""
MAX_FD_STEP = 1e6
"""The largest central-difference step h [m or rad] a rank test or :func:`finite_difference_jacobian` takes
(a step is > 0): far beyond any length or angle of a mechanism (a step of a metre is already no derivative),
while p ± h of a configuration within ±1e12 stays finite with digits to spare."""
RANK_RTOL = 1e-6
"""A singular value counts toward the rank when σ > RANK_RTOL · σ_max."""


@dataclass(frozen=True)
class ControlCandidate:
    """A stage-one candidate: fix coordinates ``coords`` of the named ``point`` (§3.3).

    coords : translations ``"x"``, ``"y"`` (``"z"``) [m] and orientations (planar ``"theta"``; spatial
        ``"alpha"``, ``"beta"``, ``"gamma"``) [rad]. Several coordinates are one candidate (foot 3's x and
        y: a pin, Fig. 21): accepted only if b drops by their number.
    labels : the control variables' names, one per coordinate (default ``"<coord>_<point>"``).
    ``name``, ``point`` and the labels are non-empty strings; whether the point and the coordinates exist in
    the mechanism is :func:`extended_mobility_analysis`'s to check.
    """

    name: str
    point: str
    coords: tuple[str, ...]
    labels: tuple[str, ...] | None = None

    def __post_init__(self):
        o = f"candidate {_label('ControlCandidate', 'name', self.name)!r}"
        _label(o, "point", self.point)
        coords = (self.coords,) if isinstance(self.coords, str) else _strings(self.coords)
        if not coords or len(set(coords)) != len(coords) or not set(coords) <= set(COORDINATES):
            raise InputError(f"{o}: coords = {shown(self.coords)}, expected distinct coordinates among "
                             f"{', '.join(COORDINATES)}")
        labels = (tuple(f"{c}_{self.point}" for c in coords) if self.labels is None else
                  (self.labels,) if isinstance(self.labels, str) else _strings(self.labels))
        if len(labels) != len(coords) or not all(labels):
            raise InputError(f"{o}: labels = {shown(self.labels)}, expected None or {len(coords)} "
                             f"non-empty names")
        object.__setattr__(self, "coords", coords)
        object.__setattr__(self, "labels", labels)


@dataclass(frozen=True)
class ForceCandidate:
    """A stage-two candidate (§3.4): a controlled force named ``name``.

    Either ``point`` and ``coord``: relax the environment's constraint on that coordinate (an interaction
    force along x, y or a moment about θ), or ``joint`` and ``relax_to``: replace that joint of the mechanism
    (an internal displacement constraint) by one of kind ``relax_to`` with ``axis`` (an internal force).
    """

    name: str
    point: str | None = None
    coord: str | None = None
    joint: str | None = None
    relax_to: str | None = None
    axis: str | tuple[float, ...] | None = None

    def __post_init__(self):
        o = f"force {_label('ForceCandidate', 'name', self.name)!r}"
        for name in ("point", "joint"):
            _label(o, name, getattr(self, name), optional=True)
        if not (self.coord is None or (isinstance(self.coord, str) and self.coord in COORDINATES)):
            raise InputError(f"{o}: coord = {shown(self.coord)}, expected None or one of "
                             f"{', '.join(COORDINATES)}")
        if self.relax_to is not None:
            _catalogued(self.relax_to, f"{o}: 'relax_to'")
        object.__setattr__(self, "axis", _axis(o, self.axis, (2, 3)))
        by_point = self.point is not None and self.coord is not None and self.joint is None
        by_joint = self.joint is not None and self.relax_to is not None and self.point is None
        if not (by_point or by_joint):
            raise InputError(f"force {self.name!r}: expected either point and coord (an environmental "
                             f"constraint) or joint and relax_to (an internal one), got "
                             f"point={self.point!r}, coord={self.coord!r}, joint={self.joint!r}, "
                             f"relax_to={self.relax_to!r}")


def _strings(value) -> tuple:
    """``value`` as a tuple if it is a list or tuple of strings, else an empty tuple (which the caller
    refuses)."""
    ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    return tuple(value) if ok else ()


def _candidates(owner: str, name: str, value, kind: type) -> tuple:
    """``value`` as a tuple of ``kind`` (a list or tuple of them), else an InputError naming ``name``."""
    if not (isinstance(value, (list, tuple)) and all(isinstance(v, kind) for v in value)):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a list of {kind.__name__}")
    return tuple(value)


def _fd_step(owner: str, step) -> float:
    """A central-difference step [m or rad] checked: in (0, :data:`MAX_FD_STEP`]."""
    return check_number(owner, "step", step, lo=0.0, hi=MAX_FD_STEP, lo_open=True)


def _rank_options(owner: str, rtol, step) -> tuple[float, float]:
    """The rank test's (rtol, step) checked: rtol in [0, 1], step in (0, :data:`MAX_FD_STEP`] (as
    :func:`numerical_rank` and :func:`finite_difference_jacobian` take them)."""
    return check_number(owner, "rtol", rtol, lo=0.0, hi=1.0), _fd_step(owner, step)


@dataclass(frozen=True)
class EMAStep:
    """One row of the analysis log: the constraint state after ``candidate`` and its Gruebler count.

    stage : 0 (full environment), 1 or 2. accepted : None on the stage-0 row. b_rank : the numerical
    rank test's DOF count for the same state (None unless asked for).
    """

    step: int
    stage: int
    candidate: str
    constraint: str
    l: int
    j: int
    f1: int
    f2: int
    b: int
    accepted: bool | None
    reason: str
    b_rank: int | None = None


@dataclass(frozen=True)
class MobilityResult:
    """Outcome of :func:`extended_mobility_analysis`.

    status : ``"admissible"`` (b = 0 after stage one), ``"underactuated"`` (s < a, refused),
    ``"dependent"`` (b > 0 after stage one), ``"over-constrained"`` (b < 0: Gruebler counts redundant
    constraints) or ``"singular"`` (Gruebler admits the set but the rank test
    finds DOF left at this configuration). control_variables : the accepted stage-one labels in order;
    forces : the accepted forces; steps : the log; final : the mechanism with every accepted constraint,
    relaxation and spring marker.
    """

    mechanism: str
    space: str
    a: int
    s: int
    r: int
    b: int
    status: str
    message: str
    control_variables: tuple[str, ...]
    forces: tuple[str, ...]
    steps: tuple[EMAStep, ...]
    final: Mechanism = field(repr=False, compare=False)

    @property
    def admissible(self) -> bool:
        return self.status == "admissible"

    @property
    def control_vector(self) -> tuple[str, ...]:
        """Accepted control variables then forces (r of them)."""
        return self.control_variables + self.forces


Source = tuple[str, str]  # ("environment", joint name) or ("control", candidate name)


class _State:
    """The robot (links, internal and opaque joints) plus the fixed coordinates of its points."""

    def __init__(self, mechanism: Mechanism):
        self.base = mechanism.copy()
        self.fixed: dict[str, dict[str, Source]] = {}
        self.markers: list[tuple[str, str, str, str | None]] = []  # (name, link_a, link_b, point)
        kept = []
        for joint in self.base.joints:
            coords = self._environment_coords(joint)
            if coords is None or joint.point is None:
                kept.append(joint)
                continue
            for c in coords:
                self.fixed.setdefault(joint.point, {})[c] = ("environment", joint.name)
        self.base.joints = kept

    def _environment_coords(self, joint) -> tuple[str, ...] | None:
        """The coordinates a ground contact fixes at its point, or None to keep it as a plain joint."""
        m = self.base
        if joint.role != "environment" or m.ground not in (joint.link_a, joint.link_b) or joint.point is None:
            return None
        axes, orient = m.axes, m.orientation_coords
        if joint.kind == "weld":
            return axes + orient
        if (m.space, joint.kind) in (("planar", "pin"), ("spatial", "spherical")):
            return axes
        if joint.kind in ("roll_slide", "slider") and joint.axis in axes:
            if joint.kind == "roll_slide":
                return (joint.axis,)
            return tuple(a for a in axes if a != joint.axis) + orient
        return None

    def copy(self) -> _State:
        new = object.__new__(_State)
        new.base = self.base.copy()
        new.fixed = {p: dict(cs) for p, cs in self.fixed.items()}
        new.markers = list(self.markers)
        return new

    def build(self) -> tuple[Mechanism, dict[str, str]]:
        """The mechanism with the fixed coordinates drawn as joints; and a description per link."""
        m = self.base.copy()
        m.name = self.base.name
        by_link: dict[str, list[str]] = {}
        for point, coords in self.fixed.items():
            if coords:
                by_link.setdefault(m.points[point].link, []).append(point)
        roles = {p: {c: src[0] for c, src in cs.items()} for p, cs in self.fixed.items()}
        described = {link: draw_fixed_coordinates(m, link, {p: roles[p] for p in points})
                     for link, points in by_link.items()}
        for name, link_a, link_b, at in self.markers:
            m.add_joint(f"force:{name}", "spring", link_a, link_b, role="force", point=at)
        return m, described


def _rank_b(mechanism: Mechanism, rtol: float, step: float) -> int:
    poses = PlanarPoses(mechanism)
    return rank_mobility(poses._constraints, poses.p0, rtol=rtol, step=step).a


def extended_mobility_analysis(mechanism: Mechanism, candidates: Sequence[ControlCandidate],
                               forces: Sequence[ForceCandidate] = (), *, rank: bool = False,
                               rtol: float = RANK_RTOL, step: float = FD_STEP) -> MobilityResult:
    """Run stages one and two of the Extended Mobility Analysis (§3.3 Fig. 9, §3.4 Fig. 10).

    Parameters
    ----------
    mechanism : the robot under its full environmental constraints (ground contacts with role
        ``"environment"`` at named points). Contacts that cannot be written as fixed coordinates (a
        spatial revolute, a rolling contact, a contact without a point) stay plain joints: a candidate at
        their point is then judged by counting alone, so check it with ``rank``.
    candidates : stage-one control variables in the designer's priority order.
    forces : stage-two forces in order.
    rank : also run the numerical rank test on every row (planar mechanisms with point positions); the
        result is ``"singular"`` if it finds DOF that Gruebler's count says are controlled.
    rtol, step : the rank test's relative tolerance in [0, 1] and finite-difference step in
        (0, :data:`MAX_FD_STEP`] [m, rad].

    Returns
    -------
    MobilityResult; the log's first row is the full environment (b = a).
    """
    o = "extended_mobility_analysis"
    _mechanism(o, mechanism)
    candidates = _candidates(o, "candidates", candidates, ControlCandidate)
    forces = _candidates(o, "forces", forces, ForceCandidate)
    if check_flag(o, "rank", rank) and mechanism.space != "planar":
        raise InputError(f"{o}: 'rank' = True for the {mechanism.space} mechanism {mechanism.name!r}: the "
                         "rank test takes planar mechanisms")
    rtol, step = _rank_options(o, rtol, step)
    state = _State(mechanism)
    for cand in candidates:
        _check_point(state.base, cand.point, cand.name)
        for c in cand.coords:
            _check_coord(state.base, c, cand.name)
    steps: list[EMAStep] = []

    def log(stage: int, name: str, st: _State, where: str | None, accepted, reason: str, what: str = ""):
        mech, drawn = st.build()
        cnt = gruebler(mech)
        b_rank = _rank_b(mech, rtol, step) if rank else None
        constraint = "; ".join(drawn.values()) if where is None else drawn.get(where, "")
        steps.append(EMAStep(len(steps), stage, name, " ".join(x for x in (constraint, what) if x) or "-",
                             cnt.l, cnt.j, cnt.f1, cnt.f2, cnt.F, accepted, reason, b_rank))
        return cnt.F

    a = log(0, "full environment", state, None, None, "environmental constraints only")
    s = mechanism.s
    b, r = a, 0
    chosen: list[str] = []
    accepted_forces: list[str] = []
    if s < a:
        msg = (f"underactuated: s = {s} active joints < a = {a} DOF under the full environmental "
               f"constraints; CJTC cannot be used (§3.3 Fig. 9; springs and free floating count as no "
               f"constraint, §3.5)")
        return MobilityResult(mechanism.name, mechanism.space, a, s, 0, a, "underactuated", msg, (), (),
                              tuple(steps), state.build()[0])

    for cand in candidates:
        trial = state.copy()
        held = trial.fixed.setdefault(cand.point, {})
        before = {c: held[c] for c in cand.coords if c in held}
        for c in cand.coords:
            held.setdefault(c, ("control", cand.name))
        link = state.base.points[cand.point].link
        mech, _ = trial.build()
        F, k = gruebler(mech).F, len(cand.coords)
        ok = F == b - k and F >= 0
        if ok:
            reason = f"b dropped by {k}: admissible"
        elif F == b:
            reason = f"b unchanged: {_held_by(before)}"
        elif F < 0:
            reason = (f"over-constrains (b would be {F}): all a DOF are already controlled; try it in "
                      f"stage two")
        elif b - F < k:
            reason = f"fixes only {b - F} of its {k} coordinates: {_held_by(before)}"
        else:
            reason = f"b went from {b} to {F}, expected {b - k}"
        log(1, cand.name, trial if ok else state, link, ok, reason)
        if not ok and F != b:  # the log shows the state kept; say what the trial gave
            steps[-1] = _with(steps[-1], reason=f"{reason} (b would be {F})")
        if ok:
            state, b, r = trial, F, r + k
            chosen.extend(cand.labels or ())

    if b != 0:
        status = "dependent" if b > 0 else "over-constrained"
        msg = (f"dependent: b = {b} DOF left after stage one with r = {r} control variables; the "
               f"candidate set does not control all a = {a} DOF (§3.3 Fig. 9)" if b > 0 else
               f"over-constrained: b = a = {b}, Gruebler counts {-b} redundant constraint(s); relax one or "
               f"check the geometry with the rank test (§3.6)")
        return MobilityResult(mechanism.name, mechanism.space, a, s, r, b, status, msg, tuple(chosen),
                              (), tuple(steps), state.build()[0])

    for force in forces:
        if r >= s:
            steps.append(_with(steps[-1], step=len(steps), stage=2, candidate=force.name, accepted=False,
                               constraint="-", reason=f"not tried: r = s = {s}, no actuator left (§3.4)"))
            continue
        trial, where, marked, problem = _relax(state, force)
        if problem:
            log(2, force.name, state, where, False, problem)
            continue
        F = gruebler(trial.build()[0]).F
        ok = F == b + 1
        if ok:
            reason = "b rose by 1: controllable force, marked by a spring"
        elif F == b:
            reason = "b unchanged: the mechanism cannot move (push) in that direction; constraint restored"
        else:
            reason = f"b went from {b} to {F}, expected {b + 1}: relax one direction at a time; restored"
        log(2, force.name, trial if ok else state, where, ok, reason,
            (marked + " + spring marker" if ok else marked + " (restored)").strip())
        if not ok and F != b:
            steps[-1] = _with(steps[-1], reason=f"{reason} (b would be {F})")
        if ok:
            state, b, r = trial, F, r + 1
            accepted_forces.append(force.name)

    status, msg = "admissible", (f"admissible: r = {r} control variables and forces with s = {s} actuators, "
                                 f"a = {a} (§3.3, §3.4)")
    stage_one_rank = [row.b_rank for row in steps if row.stage <= 1 and row.accepted is not False][-1]
    if rank and stage_one_rank:
        status = "singular"
        msg = (f"singular: Gruebler's count leaves b = 0 but the rank test finds {stage_one_rank} "
               f"uncontrolled DOF in this configuration (special geometry, §3.6)")
    final, _ = state.build()
    return MobilityResult(mechanism.name, mechanism.space, a, s, r, 0, status, msg, tuple(chosen),
                          tuple(accepted_forces), tuple(steps), final)


def _with(row: EMAStep, **changes) -> EMAStep:
    return dataclasses.replace(row, **changes)


def _held_by(sources: dict[str, Source]) -> str:
    if not sources:
        return "no coordinate of it was fixed before"
    env = sorted({n for kind, n in sources.values() if kind == "environment"})
    ctl = sorted({n for kind, n in sources.values() if kind == "control"})
    parts = ([f"already fixed by the environment ({', '.join(env)})"] if env else []) + (
        [f"already fixed by earlier choices ({', '.join(ctl)})"] if ctl else [])
    return f"{', '.join(sorted(sources))} " + " and ".join(parts)


def _relax(state: _State, force: ForceCandidate) -> tuple[_State, str, str, str | None]:
    """The trial state with ``force``'s constraint relaxed: (trial, link whose drawing to log, what changed
    in words, why it cannot be relaxed or None)."""
    trial = state.copy()
    m = trial.base
    if force.joint is not None and force.relax_to is not None:
        joint = m.joint(force.joint)
        old, new = joint_kind(joint.kind, m.space), joint_kind(force.relax_to, m.space)
        if new.dof(m.space) <= old.dof(m.space):
            raise InputError(f"force {force.name!r}: relax_to = {force.relax_to!r} allows "
                             f"{new.dof(m.space)} DOF, expected more than joint {joint.name!r} "
                             f"({old.name}, {old.dof(m.space)} DOF)")
        m.replace_joint(joint.name, kind=new.name, axis=force.axis if force.axis is not None else joint.axis)
        trial.markers.append((force.name, joint.link_a, joint.link_b, None))
        return trial, "", f"{joint.name}: {old.name} -> {new.name}", None
    point, coord = force.point, force.coord
    assert point is not None and coord is not None  # ForceCandidate.__post_init__
    _check_point(m, point, force.name)
    _check_coord(m, coord, force.name)
    link = m.points[point].link
    src = trial.fixed.get(point, {}).get(coord)
    if src is None:
        return trial, link, "", f"nothing to relax: {coord} of {point} is not constrained; b unchanged"
    if src[0] == "control":
        return trial, link, "", (f"{coord} of {point} is fixed by control variable {src[1]}, not by the "
                                 f"environment")
    del trial.fixed[point][coord]
    trial.markers.append((force.name, link, m.ground, point))
    return trial, link, "", None


def _check_point(m: Mechanism, point: str, owner: str):
    if point not in m.points:
        raise InputError(f"{owner!r}: point {point!r} does not exist in mechanism {m.name!r}, expected "
                         f"one of {sorted(m.points)}")


def _check_coord(m: Mechanism, coord: str, owner: str):
    allowed = m.axes + m.orientation_coords
    if coord not in allowed:
        raise InputError(f"{owner!r}: coordinate {coord!r}, expected one of {allowed} for a {m.space} "
                         f"mechanism")


def format_mobility(result: MobilityResult) -> str:
    """The analysis log as a text table, with a, s, r and the verdict."""
    if not isinstance(result, MobilityResult):
        raise InputError(f"format_mobility: 'result' = {shown(result)}, expected a MobilityResult of "
                         "extended_mobility_analysis")
    head = ["step", "stage", "candidate", "constraint", "l", "j", "f1", "f2", "b"]
    with_rank = any(row.b_rank is not None for row in result.steps)
    head += (["b_rank"] if with_rank else []) + ["result", "reason"]
    table = []
    for row in result.steps:
        verdict = {None: "-", True: "accepted", False: "rejected"}[row.accepted]
        cells = [row.step, row.stage, row.candidate, row.constraint, row.l, row.j, row.f1, row.f2, row.b]
        cells += ([row.b_rank] if with_rank else []) + [verdict, row.reason]
        table.append([str(c) for c in cells])
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(head)]
    lines = [f"Extended Mobility Analysis of {result.mechanism} ({result.space}): a = {result.a}, "
             f"s = {result.s}, r = {result.r}",
             "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(t, widths, strict=True)).rstrip() for t in table]
    lines.append(f"control vector: [{', '.join(result.control_vector)}]")
    lines.append(result.message)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- rank tests
def finite_difference_jacobian(fun: Callable, p0, step: float = FD_STEP) -> np.ndarray:
    """∂fun/∂p (m, n) at ``p0`` (n,) by central differences (f(p + h e_i) − f(p − h e_i)) / 2h.

    ``fun`` returns a scalar or an (m,) array; ``step`` h is absolute, in the units of p, in
    (0, :data:`MAX_FD_STEP`].
    """
    o = "finite_difference_jacobian"
    if not callable(fun):
        raise InputError(f"{o}: fun = {shown(fun)}, expected a function of p returning a scalar or an (m,) "
                         "array")
    p0 = as_floats(p0)
    if p0.ndim != 1 or p0.size == 0 or not np.all(np.abs(p0) <= 1e12):
        raise InputError(f"{o}: p0 of shape {p0.shape}: expected a finite (n,) vector (within ±1e12)")
    step = _fd_step(o, step)

    def value(p):
        try:
            v = as_floats(fun(p))
        except Exception as exc:  # the user's function: say where it failed, keep its traceback chained
            raise InputError(f"{o}: fun failed at p = {p.tolist()} (p0 has {p0.size} values): "
                             f"{describe_failure(exc)}") from exc
        if v.ndim > 1 or not np.all(np.abs(v) <= 1e150):
            raise InputError(f"{o}: fun gave {shown(v)} at p = {p.tolist()}: expected a finite scalar or "
                             "(m,) array")
        return np.atleast_1d(v)

    cols: list[np.ndarray] = []
    for i in range(p0.size):
        e = np.zeros_like(p0)
        e[i] = step
        hi, lo = value(p0 + e), value(p0 - e)
        if hi.shape != lo.shape or (cols and hi.shape != cols[0].shape):
            raise InputError(f"{o}: fun gave values of different sizes at different p")
        cols.append((hi - lo) / (2.0 * step))
    return np.column_stack(cols) if cols else np.zeros((value(p0).size, 0))


def numerical_rank(A, rtol: float = RANK_RTOL) -> tuple[int, np.ndarray]:
    """(rank, singular values) of ``A``: the number of σ > rtol · σ_max (0 for an empty or zero matrix)."""
    given = A
    try:
        A = np.asarray(given, dtype=float)
    except (TypeError, ValueError, OverflowError):
        A = np.full((1, 1), np.nan)
    if A.ndim > 2 or not np.all(np.abs(A) <= 1e150):
        raise InputError(f"numerical_rank: 'A' = {shown(given)}, expected a finite matrix (entries within "
                         "±1e150)")
    A = np.atleast_2d(A)
    rtol = check_number("numerical_rank", "rtol", rtol, lo=0.0, hi=1.0)
    if A.size == 0:
        return 0, np.zeros(0)
    sigma = np.linalg.svd(A, compute_uv=False)
    return (int(np.sum(sigma > rtol * sigma[0])) if sigma[0] > 0 else 0), sigma


@dataclass(frozen=True)
class RankMobility:
    """Numerical mobility: n coordinates, k constraint rows, m control rows; a = n − rank(∂c/∂p) and
    b = n − rank([∂c/∂p; ∂u/∂p]); singular values of both matrices; the step and tolerance used."""

    n: int
    k: int
    m: int
    rank_env: int
    a: int
    rank_total: int
    b: int
    sigma_env: np.ndarray = field(repr=False)
    sigma_total: np.ndarray = field(repr=False)
    step: float = FD_STEP
    rtol: float = RANK_RTOL


def rank_mobility(constraint: Callable, p0, controls: Sequence[Callable] = (), *, step: float = FD_STEP,
                  rtol: float = RANK_RTOL) -> RankMobility:
    """The authoritative mobility test of §3.6 at configuration ``p0`` (n,).

    Parameters
    ----------
    constraint : c(p) -> (k,), the environmental constraints (zero when satisfied).
    controls : u_i(p) -> scalar or array, the chosen control variables.
    """
    if not callable(constraint):
        raise InputError(f"rank_mobility: constraint = {shown(constraint)}, expected a function c(p) -> (k,)")
    if isinstance(controls, str) or not (isinstance(controls, Sequence) and all(map(callable, controls))):
        raise InputError(f"rank_mobility: controls = {shown(controls)}, expected a list of functions u(p)")
    C = finite_difference_jacobian(constraint, p0, step)
    rows = [np.atleast_2d(finite_difference_jacobian(u, p0, step)) for u in controls]
    U = np.vstack(rows) if rows else np.zeros((0, C.shape[1]))
    n = C.shape[1]
    rank_env, s_env = numerical_rank(C, rtol)
    rank_total, s_total = numerical_rank(np.vstack([C, U]), rtol)
    return RankMobility(n, C.shape[0], U.shape[0], rank_env, n - rank_env, rank_total, n - rank_total,
                        s_env, s_total, step, rtol)


def mechanism_rank_mobility(mechanism: Mechanism, candidates: Sequence[ControlCandidate] = (), *,
                            step: float = FD_STEP, rtol: float = RANK_RTOL) -> RankMobility:
    """:func:`rank_mobility` of a planar mechanism at its reference configuration (:class:`PlanarPoses`),
    with the candidates' coordinates as control variables: a is its mobility under all its joints.
    ``step`` in (0, :data:`MAX_FD_STEP`] [m, rad], ``rtol`` in [0, 1]."""
    o = "mechanism_rank_mobility"
    poses = PlanarPoses(_mechanism(o, mechanism))
    candidates = _candidates(o, "candidates", candidates, ControlCandidate)
    rtol, step = _rank_options(o, rtol, step)
    controls = [poses.coordinate(c.point, coord) for c in candidates for coord in c.coords]
    return rank_mobility(poses._constraints, poses.p0, controls, step=step, rtol=rtol)


@dataclass(frozen=True)
class AdmissibilityTest:
    """CJTC's test rank J = r for an r × s Jacobian (§3.6); message says why not."""

    r: int
    s: int
    rank: int
    admissible: bool
    singular_values: np.ndarray = field(repr=False)
    message: str = ""


def cjtc_rank_test(J, *, rtol: float = RANK_RTOL) -> AdmissibilityTest:
    """Is the control vector with Jacobian ``J`` = ∂u/∂q (r, s) admissible: rank J = r (eq. 11, §3.6)?"""
    J = as_floats(J)
    if J.ndim != 2 or J.size == 0 or not np.all(np.abs(J) <= 1e150):
        raise InputError(f"cjtc_rank_test: J has shape {J.shape}, expected a finite (r, s) matrix (entries "
                         "within ±1e150)")
    r, s = J.shape
    rank, sigma = numerical_rank(J, rtol)
    if rank == r:
        msg = f"admissible: rank J = r = {r} (s = {s})"
    elif r > s:
        msg = f"over-constrained: r = {r} control variables > s = {s} actuators"
    else:
        msg = f"over-constrained or singular: rank J = {rank} < r = {r}; the control variables are dependent"
    return AdmissibilityTest(r, s, rank, rank == r, sigma, msg)


@dataclass(frozen=True)
class SingularityRow:
    """One configuration of a scan: rank, σ_min, σ_max, their ratio and whether it is flagged, why."""

    index: int
    rank: int
    sigma_min: float
    sigma_max: float
    ratio: float
    flagged: bool
    reason: str


@dataclass(frozen=True)
class SingularityScan:
    """Result of :func:`scan_singularities`."""

    rows: tuple[SingularityRow, ...]
    expected_rank: int
    ratio_threshold: float
    rtol: float

    @property
    def flagged(self) -> tuple[int, ...]:
        """Indices of the flagged configurations."""
        return tuple(row.index for row in self.rows if row.flagged)


def scan_singularities(jacobian: Callable, configurations: Iterable, *, expected_rank: int | None = None,
                       ratio_threshold: float = 1e-3, rtol: float = RANK_RTOL) -> SingularityScan:
    """Control-vector singularities over a sweep (§3.6): configurations where rank J drops or σ_min/σ_max
    falls below ``ratio_threshold``.

    Parameters
    ----------
    jacobian : q -> J (r, s), finite entries within ±1e150 (as :func:`numerical_rank` takes them).
    configurations : the q to test (an iterable of anything ``jacobian`` takes; not a string).
    expected_rank : the rank away from singularities, a whole number >= 0 (default min(r, s) of the first J).
    ratio_threshold : in [0, 1]; rtol : :func:`numerical_rank`'s, in [0, 1].
    """
    o = "scan_singularities"
    if not callable(jacobian):
        raise InputError(f"{o}: 'jacobian' = {shown(jacobian)}, expected a function q -> J (r, s)")
    if isinstance(configurations, (str, bytes)) or not hasattr(configurations, "__iter__"):
        raise InputError(f"{o}: 'configurations' = {shown(configurations)}, expected an iterable of "
                         "configurations q")
    if expected_rank is not None:
        expected_rank = check_whole(o, "expected_rank", expected_rank)
    ratio_threshold = check_number(o, "ratio_threshold", ratio_threshold, lo=0.0, hi=1.0)
    rtol = check_number(o, "rtol", rtol, lo=0.0, hi=1.0)
    rows: list[SingularityRow] = []
    for i, q in enumerate(configurations):
        try:
            J = np.atleast_2d(as_floats(jacobian(q)))
        except Exception as exc:  # the user's function: say where it failed, keep its traceback chained
            raise InputError(f"{o}: jacobian failed at configurations[{i}] = {shown(q)}: "
                             f"{describe_failure(exc)}") from exc
        if J.ndim != 2 or J.size == 0 or not np.all(np.abs(J) <= 1e150):
            raise InputError(f"{o}: jacobian gave {shown(J)} at configurations[{i}] = {shown(q)}: expected a "
                             "finite (r, s) matrix (entries within ±1e150)")
        rank, sigma = numerical_rank(J, rtol)
        if expected_rank is None:
            expected_rank = min(J.shape)
        smin = float(sigma[min(J.shape) - 1]) if sigma.size else 0.0
        smax = float(sigma[0]) if sigma.size else 0.0
        ratio = smin / smax if smax > 0 else 0.0
        reasons = ([f"rank {rank} < {expected_rank}"] if rank < expected_rank else []) + (
            [f"σ_min/σ_max = {ratio:.3g} < {ratio_threshold:g}"] if ratio < ratio_threshold else [])
        rows.append(SingularityRow(i, rank, smin, smax, ratio, bool(reasons), "; ".join(reasons)))
    return SingularityScan(tuple(rows), int(expected_rank or 0), ratio_threshold, rtol)
