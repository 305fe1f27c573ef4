"""Joint linkages: pneumatic digest §2.6, §7 A8 (T·θ̇ = F·ẋ, law-of-cosines maps)."""

import math

import numpy as np
import pytest

from legsim.actuators.pneumatic import Joint, JointLinkage, LinearLinkage
from legsim.actuators.pneumatic.linkage import JOINT_LIMITS_DEG
from legsim.errors import InputError

# lengths are not in the source (digest ⚠ 13): user values [m] chosen so that the pivot angle
# gamma stays inside (0, pi) over each joint's range
LINKS = {
    Joint.ALPHA: JointLinkage(Joint.ALPHA, l1=0.05, l2=0.02, l3=0.06, l4=0.0594, l5=0.045),
    Joint.BETA: JointLinkage(Joint.BETA, l1=0.05, l2=0.09, l3=0.06, l4=0.02, l5=0.01),
    Joint.GAMMA: JointLinkage(Joint.GAMMA, l1=0.06, l2=0.06, l3=0.05, l4=0.015),
}


@pytest.mark.parametrize("joint", list(Joint))
def test_torque_times_joint_rate_equals_force_times_piston_rate(joint):
    link = LINKS[joint]
    lo, hi = np.radians(JOINT_LIMITS_DEG[joint])
    theta = np.linspace(lo, hi, 25)
    theta_dot = np.linspace(-2.0, 3.0, 25)
    force = 150.0
    x, xdot, arm = link.cylinder(theta, theta_dot)
    torque = link.torque(force, theta)
    np.testing.assert_allclose(torque * theta_dot, force * xdot, rtol=1e-12, atol=1e-12)
    # the lever arm is the derivative of the position map (central differences)
    h = 1e-6
    xp, _, _ = link.cylinder(theta + h)
    xm, _, _ = link.cylinder(theta - h)
    np.testing.assert_allclose(arm, (xp - xm) / (2 * h), rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("joint", list(Joint))
def test_torque_magnitude_is_the_law_of_sines_moment_arm(joint):
    # (5.2.7)-(5.2.9): |T| = l3 F l1 sin(gamma) / (l2 + x)
    link = LINKS[joint]
    theta = np.radians(np.mean(JOINT_LIMITS_DEG[joint]))
    x, _, _ = link.cylinder(theta)
    length = x + link.l2
    gamma = math.acos((link.l1 ** 2 + link.l3 ** 2 - length ** 2) / (2 * link.l1 * link.l3))
    expected = link.l3 * 100.0 * link.l1 * math.sin(gamma) / length
    assert abs(link.torque(100.0, theta)) == pytest.approx(expected, rel=1e-12)
    # Gamma's angle runs against gamma (dgamma/dtheta = -1): its torque sign is reversed
    sign = -1.0 if joint == Joint.GAMMA else 1.0
    assert np.sign(link.torque(100.0, theta)) == sign * np.sign(math.sin(gamma))


@pytest.mark.parametrize("joint", list(Joint))
def test_chosen_lengths_keep_the_pivot_angle_inside_the_triangle_over_the_joint_range(joint):
    link = LINKS[joint]
    theta = np.radians(np.linspace(*JOINT_LIMITS_DEG[joint], 50))
    x, _, arm = link.cylinder(theta)
    assert np.all(x > -link.l2)
    # x(theta) is monotone over the range, so one stroke maps to one joint interval
    assert np.all(np.sign(np.diff(x)) == np.sign(np.diff(x))[0])


@pytest.mark.parametrize("joint", list(Joint))
def test_inverse_map_recovers_the_joint_angle(joint):
    link = LINKS[joint]
    theta = np.radians(np.linspace(*JOINT_LIMITS_DEG[joint], 11))
    x, _, _ = link.cylinder(theta)
    np.testing.assert_allclose(link.angle(x), theta, atol=1e-10)


def test_linear_protractor_map_is_affine_and_power_consistent():
    lin = LinearLinkage(theta0=0.3, x0=0.0, theta1=1.6, x1=0.04445)
    x, xd, arm = lin.cylinder(1.6, 2.0)
    assert x == pytest.approx(0.04445) and xd == pytest.approx(2.0 * arm)
    assert lin.torque(10.0) * 2.0 == pytest.approx(10.0 * xd)


def test_impossible_lengths_raise_input_errors():
    with pytest.raises(InputError, match="l4"):
        JointLinkage(Joint.BETA, l1=0.05, l2=0.1, l3=0.06, l4=0.2)
    with pytest.raises(InputError, match="l1"):
        JointLinkage(Joint.GAMMA, l1=-0.05, l2=0.1, l3=0.06, l4=0.01)
