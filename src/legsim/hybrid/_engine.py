"""The hybrid-system engine with its explicit methods, compiled at import (numba, cached on disk):
:func:`legsim.hybrid._kernels.variant` without the Rosenbrock method."""

from ._kernels import variant

advance = variant(False)
