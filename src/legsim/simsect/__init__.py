"""SimSect compatibility: init files (.rc), the engine symbols and SimSect's output files."""

from .rcfile import ALIASES, ENGINE_DEFAULTS, Symbol, format_rc, parse_rc, read_rc, write_rc
from .runner import SimSectRun, SimSectSetup, load_simsect, run_simsect

__all__ = ["ALIASES", "ENGINE_DEFAULTS", "Symbol", "format_rc", "parse_rc", "read_rc", "write_rc",
           "SimSectRun", "SimSectSetup", "load_simsect", "run_simsect"]
