"""Pneumatic test benches: the CRR 1-DoF cylinder rig (Daepp 2011) and the RATS single-leg hop
(Wagenknecht 2009), as legsim hybrid models."""
