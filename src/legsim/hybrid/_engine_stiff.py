"""The engine's stiff variant, compiled at import (numba, cached on disk): every method of
:mod:`legsim.hybrid._engine` and the Rosenbrock pair (``method="ros23"``;
:func:`legsim.hybrid._kernels.variant`)."""

from ._kernels import variant

advance = variant(True)
