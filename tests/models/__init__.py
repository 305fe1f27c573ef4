"""Small hybrid models used only by the engine tests (each hook is a module-level numba function)."""
