"""Closed kinematic loops of the assembly (``Robot(loops=[LinkageLoop, ...])``): the prismatic CRR leg
built from parts, each cylinder a barrel + piston-rod loop closed by an explicit constraint
(Featherstone (2008) ch. 8). References are independent of the assembly's loop code: the multibody
forward kinematics, finite differences, the torque-mode leg (linkage transmission, world ABA), an
analytic kinetic energy and energy balances. (Before the CRR leg's hand-written prismatic hooks were
removed, the assembled leg reproduced them: θ̈, gas rates, piston force and position bit-identical at 12
random states with the scalar chamber kernel, gas rates to 6.8e-14 with the lane kernel.)
"""

import dataclasses

import numpy as np
import pytest

from legsim.assembly import Contacts, LinkageLoop, PneumaticCylinder, Robot, TorqueSource
from legsim.contact import ContactLaw
from legsim.contact.laws import coulomb, hunt_crossley, linear_penalty, no_friction
from legsim.errors import InputError
from legsim.hybrid import Options
from legsim.multibody import RobotBuilder, crba, energy, forward_kinematics, frame_placement
from legsim.robots.crr_leg import LegBench, crr_leg_bodies
from legsim.robots.crr_leg.geometry import JOINT_LIMITS, LINKS, default_linkages
from legsim.robots.crr_leg.prismatic import (
    _builder_of,
    crr_leg_with_cylinders,
    default_cylinder_inertias,
    massless_cylinders,
)

JOINTS = ("alpha", "beta", "gamma")
LINKAGES = default_linkages()
LO = np.array([r[0] for r in JOINT_LIMITS])
HI = np.array([r[1] for r in JOINT_LIMITS])
BARREL = [3 + 2 * j for j in range(3)]   # q (and v) index of joint j's barrel angle in the 9-DoF tree
PISTON = [4 + 2 * j for j in range(3)]   # ... of its piston coordinate
DEP = [k for j in range(3) for k in (BARREL[j], PISTON[j])]


def _loops():
    return [LinkageLoop(j, f"{j}_barrel", f"{j}_piston", k) for j, k in zip(JOINTS, LINKAGES, strict=True)]


def _cylinders():
    """The valve-driven cylinders of the leg bench, pushing directly on the piston joints."""
    return [PneumaticCylinder(j, f"{j}_piston", a) for j, a in zip(JOINTS, LegBench().actuators, strict=True)]


def _tree(cylinders=None, leg=None):
    return crr_leg_with_cylinders(leg or crr_leg_bodies(), LINKAGES,
                                  cylinders or default_cylinder_inertias(LINKAGES))


def _field(robot, x):
    xd = np.zeros_like(x)
    robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, xd)
    return xd


def _outputs(robot, x):
    y = np.zeros(len(robot.model.output_names))
    robot.model.outputs(0.0, x, robot.model.param_defaults.copy(), 0, y)
    return dict(zip(robot.model.output_names, y, strict=True))


def _gas(robot):
    return robot.model.state_names.index("alpha_p_cap")


@pytest.fixture(scope="module")
def leg():
    """The prismatic CRR leg from parts (massive cylinders)."""
    return Robot(_tree(), loops=_loops(), actuators=_cylinders(), lanes=False)


def _q9(theta):
    q = np.zeros(9)
    q[:3] = theta
    return q


def _G(robot, theta):
    """G (9, 3) of the compiled hooks: the field's q̇ for θ̇ = e_j (dependents' rates = G θ̇)."""
    G = np.zeros((9, 3))
    for j in range(3):
        x = robot.initial_state(_q9(theta), _q9(np.eye(3)[j]))
        G[:, j] = _field(robot, x)[:9]
    return G


def _random_state(robot, rng, theta, pressure_scale=(0.6, 1.4)):
    """At ``theta`` with random rates, chamber pressures and valve commands; returns (x, v)."""
    v = rng.uniform(-3.0, 3.0, 3)
    x = robot.initial_state(_q9(theta), _q9(v))
    g = _gas(robot)
    for j in range(3):
        x[g + 5 * j:g + 5 * j + 2] *= rng.uniform(*pressure_scale, 2)
    xu = robot.model.state_names.index("u_alpha")
    x[xu:xu + 3] = rng.uniform(3.0, 7.0, 3)
    return x


# ------------------------------------------------------------------------- loop closure
def test_each_rod_end_lands_on_its_crank_tip_and_the_state_is_closed(leg):
    tree = leg.mb
    data = tree.make_data()
    rng = np.random.default_rng(1)
    for q in np.vstack([np.linspace(LO, HI, 15), rng.uniform(LO, HI, size=(15, 3))]):
        x = leg.initial_state(_q9(q))
        forward_kinematics(tree, data, x[:9])
        G = _G(leg, q)
        for j, name in enumerate(JOINTS):
            rod_end = frame_placement(tree, data, f"{name}_rod")[:3, 3]
            crank = frame_placement(tree, data, f"{name}_crank_end")[:3, 3]
            assert np.linalg.norm(rod_end - crank) < 1e-10, (name, q)
            # the piston coordinate is the torque mode's piston position, its G entry the lever arm
            xp, _, arm = LINKAGES[j].cylinder(q[j])
            assert x[PISTON[j]] == pytest.approx(float(xp), abs=1e-12)
            assert G[PISTON[j], j] == pytest.approx(float(arm), rel=1e-12)
            np.testing.assert_array_equal(np.delete(G[:, j], [j, BARREL[j], PISTON[j]]), 0.0)
            assert G[j, j] == 1.0


def test_velocity_map_and_convective_term_match_finite_differences(leg):
    # along theta(s) = theta0 + w s + a s^2 / 2 with a the field's own theta_ddot: the field's rates of
    # the dependents are dq/ds and d2q/ds2 of the closed coordinates at s = 0
    rng = np.random.default_rng(5)
    h = 1e-4
    for theta0 in rng.uniform(LO + 0.1, HI - 0.1, size=(6, 3)):
        x = _random_state(leg, rng, theta0)
        w = x[9:12].copy()
        xd = _field(leg, x)
        a = xd[9:12]

        def q_at(s, theta0=theta0, w=w, a=a):
            return leg.initial_state(_q9(theta0 + w * s + 0.5 * a * s * s))[:9]

        def d1(e):
            return (q_at(e) - q_at(-e)) / (2 * e)

        def d2(e):
            return (q_at(e) - 2 * q_at(0.0) + q_at(-e)) / e ** 2

        first = (4 * d1(h / 2) - d1(h)) / 3              # Richardson: O(h^4)
        second = (4 * d2(h / 2) - d2(h)) / 3
        np.testing.assert_allclose(xd[:9], first, atol=1e-8 * np.abs(first).max())
        np.testing.assert_allclose(xd[9:18], second, atol=1e-6 * np.abs(second).max())
        conv = xd[9:18] - _G(leg, theta0) @ a
        assert np.abs(conv[DEP]).max() > 1e-2                  # the convective term is not trivially 0


def test_every_hook_reads_the_closed_coordinates(leg):
    # dependents drifted off gamma(theta) in x: the field and outputs are those of the closed state
    rng = np.random.default_rng(2)
    for _ in range(4):
        x = _random_state(leg, rng, rng.uniform(LO, HI))
        bad = x.copy()
        bad[DEP] += rng.uniform(-0.05, 0.05, 6)
        bad[[9 + k for k in DEP]] += rng.uniform(-1.0, 1.0, 6)
        np.testing.assert_array_equal(_field(leg, bad), _field(leg, x))
        assert _outputs(leg, bad) == _outputs(leg, x)
    closed = leg.initial_state(np.full(9, 0.3), np.full(9, 1.0))   # dependents given: replaced
    ref = leg.initial_state(_q9(np.full(3, 0.3)), _q9(np.ones(3)))
    np.testing.assert_array_equal(closed, ref)


# ------------------------------------------------------------------------- vs the torque mode
def test_massless_cylinders_give_the_rates_of_the_linkage_transmission():
    light = Robot(_tree(massless_cylinders(1e-12)), loops=_loops(), actuators=_cylinders(), lanes=False)
    torque = Robot(crr_leg_bodies(), lanes=False,
                   actuators=[PneumaticCylinder(j, j, a, transmission=k)
                              for j, a, k in zip(JOINTS, LegBench().actuators, LINKAGES, strict=True)])
    rng = np.random.default_rng(7)
    gl, gt = _gas(light), _gas(torque)
    for k in range(10):
        # inside the ranges, and (k >= 7) past a limit so the limit law acts
        q = rng.uniform(LO, HI) if k < 7 else np.where(rng.uniform(size=3) < 0.5, LO - 0.05, HI + 0.05)
        x = _random_state(light, rng, q)
        xt = torque.initial_state(x[:3], x[9:12])
        xt[gt:gt + 15] = x[gl:gl + 15]
        xt[torque.model.state_names.index("u_alpha"):][:3] = x[light.model.state_names.index("u_alpha"):][:3]
        a, b = _field(light, x), _field(torque, xt)
        np.testing.assert_allclose(a[gl:gl + 15], b[gt:gt + 15], rtol=1e-12)
        np.testing.assert_allclose(a[9:12], b[3:6], rtol=1e-8, atol=1e-8 * np.abs(b[3:6]).max())


def test_gamma_gains_exactly_the_kinetic_energy_of_its_cylinder(leg):
    # independent: with the femur still, the barrel turns about its pin A (phi_dot) and the rod turns
    # with it while sliding (x_dot): dM_33 = (I_b + m_b c_b^2) phi'^2 + m_r (x'^2 + (L - c_r)^2 phi'^2)
    #   + I_r phi'^2, L = l2 + x
    tree = leg.mb
    plain = crr_leg_bodies()
    c = default_cylinder_inertias(LINKAGES)[2]
    link = LINKAGES[2]
    rng = np.random.default_rng(3)
    for q in rng.uniform(LO, HI, size=(8, 3)):
        qf = leg.initial_state(_q9(q))[:9]
        G = _G(leg, q)
        dM = G.T @ crba(tree, tree.make_data(), qf) @ G - crba(plain, plain.make_data(), q)
        phi1, x1 = G[BARREL[2], 2], G[PISTON[2], 2]
        r = link.l2 + qf[PISTON[2]] - c.rod_com
        expected = ((c.barrel_transverse + c.barrel_mass * c.barrel_com ** 2) * phi1 ** 2
                    + c.rod_mass * (x1 ** 2 + r ** 2 * phi1 ** 2) + c.rod_transverse * phi1 ** 2)
        assert dM[2, 2] == pytest.approx(expected, rel=1e-10)
        assert np.linalg.eigvalsh(dM).min() > -1e-15
        assert np.linalg.eigvalsh(dM).max() > 1e-4


def test_passive_swing_of_leg_and_cylinders_conserves_energy():
    # no actuators, no joint-limit law, no friction: E = T + V of the 9-body tree is constant, and the
    # recorded dependents follow gamma(theta) to integration accuracy (barrel angles modulo 2 pi: the
    # joints swing past their ranges here, and Gamma's barrel past +-pi) (barrel angles modulo 2 pi: Alpha
    # swings past its range here, and its barrel past +-pi)
    robot = Robot(_tree(leg=crr_leg_bodies(limit_stiffness=0.0, limit_damping=0.0)), loops=_loops())
    res = robot.simulate(1.0, q0=_q9(np.radians([10.0, -40.0, 50.0])), v0=_q9([2.0, 0.5, -1.0]),
                         options=Options(rtol=1e-11, atol=1e-12, record_period=0.005))
    tree = robot.mb
    data = tree.make_data()
    E, drift = [], 0.0
    for x in res.x:
        xc = robot.initial_state(x[:9], x[9:18])
        diff = xc[:18] - x[:18]
        diff[BARREL] = (diff[BARREL] + np.pi) % (2 * np.pi) - np.pi  # phi = atan2(...) wraps, x[phi] not
        drift = max(drift, np.abs(diff).max())
        E.append(sum(energy(tree, data, xc[:9], xc[9:18])))
    E = np.array(E)
    assert np.ptp(res.x[:, :3], axis=0).min() > 0.3               # it really swings (rad)
    assert energy(tree, data, res.x[0, :9], res.x[0, 9:18])[0] > 0.01  # J
    assert np.abs(E - E[0]).max() < 1e-8                          # J
    assert drift < 1e-7


# ------------------------------------------------------------------------- floating base and contact
def _on_free_base(tree, base_mass=2.0):
    """``tree`` (fixed base) hung from a free base body, with a foot ball (r = 2 cm) at the tibia tip."""
    b = _builder_of(tree)
    f = RobotBuilder(f"{tree.name}_free", gravity=b.gravity, friction_velocity=b.friction_velocity,
                     limit_stiffness=b.limit_stiffness, limit_damping=b.limit_damping)
    f.add_body("base", "world", "free", mass=base_mass, inertia=(0.02, 0.02, 0.02))
    f.bodies += [dataclasses.replace(s, parent="base" if s.parent == "world" else s.parent) for s in b.bodies]
    f.frames += b.frames
    f.geometries += b.geometries
    f.add_geometry("tibia", "sphere", radius=0.02, xyz=(0.0, LINKS[2], 0.0), name="foot_ball")
    return f.compile()


def _transfer(src, xs, dst):
    """The state of robot ``dst`` that holds ``xs`` of robot ``src`` (by state name), loops closed."""
    names = {n: i for i, n in enumerate(src.model.state_names)}
    x = dst.model.state_defaults.copy()
    for i, n in enumerate(dst.model.state_names):
        if n in names:
            x[i] = xs[names[n]]
    nq, nv = dst.mb.nq, dst.mb.nv
    return np.concatenate([dst.initial_state(x[:nq], x[nq:nq + nv])[:nq + nv], x[nq + nv:]])


def _dropped(robot, theta, height):
    """q0 with the base at ``height`` above where the foot ball touches the plane z = 0."""
    q = robot.mb.neutral()
    q[7:10] = theta
    x = robot.initial_state(q)
    data = robot.mb.make_data()
    forward_kinematics(robot.mb, data, x[:robot.mb.nq])
    foot = data.op[list(robot.mb.body_names).index("tibia")] + data.oR[
        list(robot.mb.body_names).index("tibia")] @ np.array([0.0, LINKS[2], 0.0])
    q[2] += height - (foot[2] - 0.02)
    return q


def test_floating_leg_with_cylinders_on_a_spring_ground_conserves_energy():
    # frictionless linear-penalty ground: E = T + V_gravity + k delta^2 / 2 is constant while the foot
    # bounces; the contact force enters the projected dynamics as tau_ext = J^T f
    k = 2e4
    robot = Robot(_on_free_base(_tree(leg=crr_leg_bodies(limit_stiffness=0.0, limit_damping=0.0))),
                  loops=_loops(), contacts=Contacts(ContactLaw(linear_penalty(k), no_friction()),
                                                    geometries=["foot_ball"], path="smooth"))
    v0 = np.zeros(robot.mb.nv)
    v0[6:9] = [1.0, -0.5, 0.8]
    res = robot.simulate(0.4, q0=_dropped(robot, np.radians([10.0, -30.0, 60.0]), 0.01), v0=v0,
                         options=Options(rtol=1e-10, atol=1e-12, h_max=1e-3, record_period=1e-3))
    tree = robot.mb
    data = tree.make_data()
    nq, nv = tree.nq, tree.nv
    fn = res.y[:, list(robot.model.output_names).index("fn_total")]
    E = []
    for x, f in zip(res.x, fn, strict=True):
        xc = robot.initial_state(x[:nq], x[nq:nq + nv])
        E.append(sum(energy(tree, data, xc[:nq], xc[nq:nq + nv])) + 0.5 * f * f / k)
    E = np.array(E)
    spring = (0.5 * fn ** 2 / k).max()
    print(f"\nfloating leg + cylinders on a spring ground: peak contact energy {spring:.3f} J, "
          f"max |E - E0| {np.abs(E - E[0]).max():.1e} J")
    assert fn.max() > 20.0                      # N: it lands
    assert spring > 0.02                        # J
    assert np.abs(E - E[0]).max() < 1e-6        # J


def test_floating_massless_cylinder_leg_in_contact_follows_the_linkage_transmission():
    # Hunt-Crossley + Coulomb ground, cylinders driven, a 5 kg free base: massless loops (projected
    # dynamics, tau_ext of the contact wrenches) against the plain leg with linkage transmissions (world
    # ABA). Measured: trajectories within 3e-10 (rad, m) over 0.4 s at rtol 1e-10
    law = ContactLaw(hunt_crossley(2e4, 2.0), coulomb(0.8, 1e-2))
    contacts = Contacts(law, geometries=["foot_ball"], path="smooth")
    light = Robot(_on_free_base(_tree(massless_cylinders(1e-12)), base_mass=5.0), loops=_loops(),
                  actuators=_cylinders(), contacts=contacts, lanes=False)
    plain = Robot(_on_free_base(crr_leg_bodies(), base_mass=5.0), contacts=contacts, lanes=False,
                  actuators=[PneumaticCylinder(j, j, a, transmission=k)
                             for j, a, k in zip(JOINTS, LegBench().actuators, LINKAGES, strict=True)])
    q0 = _dropped(plain, np.radians([10.0, -30.0, 60.0]), 0.0)
    opts = Options(rtol=1e-10, atol=1e-12, h_max=1e-3, record_period=5e-3)
    ref = plain.simulate(0.4, q0=q0, commands0=[6.5, 4.0, 6.0], options=opts)
    run = light.simulate(0.4, x0=_transfer(plain, ref.x[0], light), options=opts)
    fn = ref.y[:, list(plain.model.output_names).index("fn_total")]
    touching = np.flatnonzero(fn > 5.0)
    assert touching.size >= 15 and fn.max() > 30.0      # N: it lands and stays in contact a while
    nqp, nql = plain.mb.nq, light.mb.nq
    gl, gp = _gas(light), _gas(plain)
    for xs in ref.x[touching[::3]]:  # vector fields at the reference's states in contact
        a, b = _field(light, _transfer(plain, xs, light)), _field(plain, xs)
        acc_l, acc_p = a[nql:nql + 9], b[nqp:nqp + 9]      # base (6) and joint accelerations
        np.testing.assert_allclose(acc_l, acc_p, rtol=1e-7, atol=1e-7 * np.abs(acc_p).max())
        np.testing.assert_allclose(a[gl:gl + 15], b[gp:gp + 15], rtol=1e-9)
    np.testing.assert_allclose(run.t, ref.t)
    err = np.abs(run.x[:, :nqp] - ref.x[:, :nqp]).max()
    print(f"\nfloating massless-cylinder leg vs linkage transmission: max |q diff| {err:.1e}")
    assert err < 1e-7


# ------------------------------------------------------------------------- inputs
def test_bad_loops_are_refused_naming_the_item():
    tree = _tree()
    with pytest.raises(InputError, match="LinkageLoop: joint = 3, expected a joint name"):
        LinkageLoop(3, "a_barrel", "a_piston", LINKAGES[0])
    with pytest.raises(InputError, match="three different joints"):
        LinkageLoop("alpha", "alpha", "alpha_piston", LINKAGES[0])
    with pytest.raises(InputError, match="linkage = 0.1, expected a .*JointLinkage"):
        LinkageLoop("alpha", "alpha_barrel", "alpha_piston", 0.1)
    with pytest.raises(InputError, match=r"Robot: 'loops'\[0\] = 'alpha' is not a legsim.assembly.Link"):
        Robot(tree, loops=["alpha"])
    with pytest.raises(InputError, match="LinkageLoop 'alpha': joint 'alpha_barel' does not exist"):
        Robot(tree, loops=[LinkageLoop("alpha", "alpha_barel", "alpha_piston", LINKAGES[0])])
    with pytest.raises(InputError, match="piston joint 'beta_barrel' is revolute, expected a prismatic"):
        Robot(tree, loops=[LinkageLoop("beta", "alpha_barrel", "beta_barrel", LINKAGES[1])])
    with pytest.raises(InputError, match="joint joint 'alpha_piston' is prismatic, expected a revolute"):
        Robot(tree, loops=[LinkageLoop("alpha_piston", "alpha_barrel", "beta_piston", LINKAGES[0])])
    with pytest.raises(InputError, match="barrel joint 'alpha_barrel' hangs from body 'world', expected "
                                         "from 'coxa'"):
        Robot(tree, loops=[LinkageLoop("beta", "alpha_barrel", "alpha_piston", LINKAGES[1])])
    with pytest.raises(InputError, match="piston joint 'beta_piston' hangs from body 'beta_barrel', "
                                         "expected from the barrel's body 'alpha_barrel'"):
        Robot(tree, loops=[LinkageLoop("alpha", "alpha_barrel", "beta_piston", LINKAGES[0])])
    twice = LinkageLoop("alpha", "alpha_barrel", "alpha_piston", LINKAGES[0])
    with pytest.raises(InputError, match="joint 'alpha_barrel' is already a dependent joint of the loop "
                                         "of 'alpha'"):
        Robot(tree, loops=[twice, twice])
    # a loop whose independent joint is alpha's barrel (its barrel hangs where alpha_barrel does: world)
    b = _builder_of(tree)
    b.add_body("second_barrel", "world", "revolute", axis=(0, 0, 1), mass=0.01,
               inertia=(1e-6, 1e-6, 1e-6))
    b.add_body("second_rod", "second_barrel", "prismatic", axis=(0, 1, 0), mass=0.01,
               inertia=(1e-6, 1e-6, 1e-6))
    nested = b.compile()
    with pytest.raises(InputError, match="joint 'alpha_barrel' is a dependent joint of the loop of "
                                         "'alpha'; the independent joint of a loop must be free"):
        Robot(nested, loops=[twice, LinkageLoop("alpha_barrel", "second_barrel", "second_rod", LINKAGES[0])])
    first = LinkageLoop("alpha_barrel", "second_barrel", "second_rod", LINKAGES[0])
    with pytest.raises(InputError, match="joint 'alpha_barrel' is the independent joint of the loop of "
                                         "'alpha_barrel'; it cannot also be a dependent one"):
        Robot(nested, loops=[first, twice])


def test_an_actuator_may_act_on_any_joint_of_a_loop(leg):
    # a torque on the barrel joint reaches theta through G: G^T e_barrel tau = dphi/dtheta tau
    robot = Robot(_tree(), loops=_loops(), actuators=[TorqueSource("t", "gamma_barrel"),
                                                      TorqueSource("s", "gamma")])
    q = np.array([0.2, -0.6, 1.0])
    G = _G(robot, q)
    base = robot.initial_state(_q9(q))
    xu = robot.model.state_names.index("u_t")
    on_barrel, on_joint = base.copy(), base.copy()
    on_barrel[xu] = 1.0
    on_joint[xu + 1] = G[BARREL[2], 2]
    np.testing.assert_allclose(_field(robot, on_barrel)[9:18], _field(robot, on_joint)[9:18], rtol=1e-12)
    assert abs(_field(robot, on_barrel)[11] - _field(robot, base)[11]) > 1e-3


# -------------------------------------------------------------------------------- hardware files
def _loop_toml(j, link, extra=""):
    return (f'[loops.{j}]\njoint = "{j}"\nbarrel = "{j}_barrel"\npiston = "{j}_piston"\n'
            f'linkage = {{ joint = "{link.joint.name}", l1 = {link.l1!r}, l2 = {link.l2!r}, '
            f'l3 = {link.l3!r}, l4 = {link.l4!r}, l5 = {link.l5!r}{extra} }}\n')


def test_a_hardware_file_declares_the_loops_and_its_mistakes_name_the_table():
    from legsim.assembly.hardware import describe, parse_hardware

    head = 'control_period = 0.001\n[actuators.drive]\ntype = "TorqueSource"\njoint = "gamma"\n'
    text = head + "".join(_loop_toml(j, k) for j, k in zip(JOINTS, LINKAGES, strict=True))
    robot = parse_hardware(text, "leg_hardware.toml", model=_tree())
    assert robot.loops == tuple(_loops())
    assert [lp["joint"] for lp in describe(robot)["loops"]] == list(JOINTS)
    same = Robot(_tree(), loops=_loops(), actuators=[TorqueSource("drive", "gamma")])
    x = same.initial_state(_q9([0.2, -0.6, 1.0]), _q9([0.5, -1.0, 2.0]))
    x[same.model.state_names.index("u_drive")] = 0.3
    np.testing.assert_array_equal(_field(robot, x), _field(same, x))
    for body, words in (
            (_loop_toml("alpha", LINKAGES[0]).replace('piston = "alpha_piston"\n', ""),
             ["leg_hardware.toml [loops.alpha]: missing key 'piston'"]),
            (_loop_toml("alpha", LINKAGES[0]).replace('piston =', 'pistn ='),
             ["[loops.alpha]: unknown LinkageLoop key 'pistn'", "piston"]),
            (_loop_toml("alpha", LINKAGES[0], ', type = "LinearLinkage"'),
             ["[loops.alpha.linkage]: a loop's linkage is a JointLinkage"]),
            (_loop_toml("alpha", LINKAGES[0]).replace('"alpha_barrel"', '"alpha_barel"'),
             ["[loops.alpha]: LinkageLoop 'alpha'", "'alpha_barel'"])):
        with pytest.raises(InputError) as err:
            parse_hardware(head + body, "leg_hardware.toml", model=_tree())
        for w in words:
            assert w in str(err.value), (w, str(err.value))
