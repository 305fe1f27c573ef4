"""Small hybrid models used as worked examples in the documentation and in the engine tests."""
