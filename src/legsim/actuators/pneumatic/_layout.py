"""Index layout of the flat per-actuator parameter row read by the compiled kernels.

One actuator = one row of ``NPARAM`` floats (struct-of-arrays over N actuators: a (N, NPARAM)
array). Hybrid models embed a row at an offset of their own parameter vector. Integer codes
(valve model, friction model, heat model, voltage reference) are stored as floats.
"""

from __future__ import annotations

# gas and environment
GAS_K = 0
GAS_R = 1
T_SUPPLY = 2
P_SUPPLY = 3
P_EXHAUST = 4
P_ATM = 5
HEAT_MODEL = 6       # HeatModel code
N_POLY = 7           # polytropic exponent (used by HeatModel.POLYTROPIC)
CRIT_RATIO = 8
LAM_RATIO = 9
C1 = 10
C2 = 11
# cylinder
A_CAP = 12           # cap-side piston area [m^2]
A_ROD = 13           # rod-side annulus area [m^2]
A_ROD_CS = 14        # rod cross-section seeing the atmosphere [m^2]
STROKE = 15
L_DEAD_CAP = 16
L_DEAD_ROD = 17
# valve
VALVE_MODEL = 18     # ValveModel code
U_MIN = 19
U_MAX = 20
U_CENTER = 21        # 5 V: "centered" voltage u - 5
U_OFFSET = 22        # 5.25 V: equal-flow point ("adjusted" voltage u - 5.25)
VOLT_REF = 23        # VoltageReference code
UNDERLAP = 24        # [V]
SLOPE_CAP = 25       # linear model c_d*K [m^2/V], cap port (Daepp port 2)
LEAK_CAP = 26        # [m^2]
SLOPE_ROD = 27       # rod port (Daepp port 1)
LEAK_ROD = 28
C_HP_CAP = 29        # tanh cutoffs [V], Daepp (4.2.7)-(4.2.11)
C_LP_CAP = 30
C_HP_ROD = 31
C_LP_ROD = 32
POLY_CAP_POS = 33    # 5 coefficients each, highest power first, A_eq [m^2] of Vc [V]
POLY_CAP_NEG = 38
POLY_ROD_POS = 43
POLY_ROD_NEG = 48
# friction
FRICTION_MODEL = 53  # FrictionModel code
F_S = 54             # static (breakaway) friction [N]
F_C_POS = 55         # Coulomb friction for v > 0 (extension) [N]
F_C_NEG = 56         # Coulomb friction for v < 0 [N]
C_V = 57             # viscous coefficient [N s/m]
V_S = 58             # Stribeck velocity [m/s]
I_EXP = 59           # Stribeck exponent [-]
K_TANH = 60          # tanh slope [s/m]
V_SAT = 61           # steep-linear saturation velocity [m/s]
SIGMA0 = 62          # LuGre bristle stiffness [N/m]
SIGMA1 = 63          # LuGre bristle damping [N s/m]
NPARAM = 64
