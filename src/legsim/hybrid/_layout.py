"""Layouts shared by the engine kernels and the Python driver: option and state vector indices,
method codes, status codes and event kinds (numba reads them as compile-time constants)."""

# ---- option vector layout (floats) ---------------------------------------------------------
OF_T0, OF_TF, OF_RTOL, OF_ATOL, OF_TOL, OF_POWER, OF_HMIN, OF_HMAX, OF_H0 = range(9)
OF_STOP_PREC, OF_REC_PERIOD, OF_SAMPLE_PERIOD, OF_SLIDE_TOL = range(9, 13)
N_OPTF = 13
# ---- option vector layout (integers) ------------------------------------------------------
(OI_METHOD, OI_MAX_STOP_ITER, OI_MAX_TRANS, OI_SLIDING, OI_MAX_STEPS, OI_CHECK_STEPS,
 OI_RESTART_STEP, OI_YIELD_EVERY, OI_NERR) = range(9)
N_OPTI = 9
# ---- persistent state (floats) ------------------------------------------------------------
SF_T, SF_H, SF_H_SAMPLE = range(3)
N_SF = 3
"""``SF_H_SAMPLE``: the step the controller proposed after the first step that followed the last
sample instant whose update changed the state (0: none yet); the first step after the next such
instant starts no larger (:func:`legsim.hybrid._kernels.advance`)."""
# ---- persistent state (integers) ----------------------------------------------------------
(SI_MODE, SI_STARTED, SI_NSTEP, SI_NREJ, SI_NFEV, SI_NTRANS, SI_NEVENT, SI_REC_K, SI_SAMPLE_K,
 SI_NREC, SI_NEV, SI_ERR, SI_ERR_GUARD, SI_SLIDE, SI_SLIDE_GUARD, SI_SLIDE_B, SI_NSTOPIT,
 SI_DONE_FINAL, SI_NSLIDE, SI_PENDING, SI_AFTER_SAMPLE, SI_NJAC) = range(22)
N_SI = 22

# ---- methods -------------------------------------------------------------------------------
M_DP45, M_RK4, M_RK4_FIXED, M_DP5_FIXED, M_EULER = 0, 1, 2, 3, 4
M_RADAU, M_BDF = 5, 6
"""Stiff methods: scipy's implicit solvers, driven between events in Python (never by the kernel)."""
M_ROS23 = 7
"""The compiled stiff method: the linearly implicit Rosenbrock 2(3) pair of MATLAB's ode23s."""

# ---- status codes --------------------------------------------------------------------------
ST_DONE = 0
ST_RECORDS_FULL = 1
ST_EVENTS_FULL = 2
ST_BUDGET = 3
ST_SAMPLED = 4
"""A sample instant whose index k is a multiple of ``OI_YIELD_EVERY``: the model's ``sample`` hook has
run, and the state waits for a controller in Python (the driver may change ``x``); the next call
finishes the instant (its record, the check) and goes on."""
ST_STEP_UNDERFLOW = -1
ST_NONFINITE = -2
ST_CHATTER = -3
ST_LOCATE_FAILED = -4
ST_MODEL_ERROR = -5
ST_CHECK_FAILED = -6

# ---- event kinds in the event log ---------------------------------------------------------
EV_GUARD, EV_SLIDE_START, EV_SLIDE_END, EV_SAMPLE_MODE = 0, 1, 2, 3
