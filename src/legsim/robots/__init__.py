"""Robot models built on the legsim engine (one subpackage per robot, e.g. :mod:`legsim.robots.rhex`)."""
