"""LLVM fast-math flags for the hot rigid-body and contact kernels (numba ``fastmath=``).

``contract`` (fused multiply-add), ``reassoc`` (reassociation, lets sums vectorise), ``arcp``
(reciprocal instead of division) and ``nsz`` (ignore the sign of zero) change results by a few
units in the last place only. ``nnan`` and ``ninf`` are deliberately left out: the kernels detect
blow-ups and singular inertias with comparisons that must see NaN and infinity. Measured on the
18-DoF hexapod RK4 step: about 5 % faster (benchmarks/bench_hexapod_contact.py).
"""

FASTMATH = {"contract", "reassoc", "arcp", "nsz"}
