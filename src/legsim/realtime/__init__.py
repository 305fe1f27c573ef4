"""The real-time loop and the transports: software in the loop (DESIGN.md "Real time and transports").

* :mod:`.messages` — the wire formats (CRR 21-field message, generic versioned); standard library and
  numpy only, importable alone by an external controller.
* :mod:`.loop` — :class:`RealtimeLoop`, a fixed-rate loop on the wall clock, and its :class:`LoopStats`.
* :mod:`.transport` — one interface (:class:`Endpoint`) over in-process queues and UDP.
* :mod:`.timing` — EtherCAT cycle, network delay, pauses, loss and jitter, in simulated time.
* :mod:`.sil` — :class:`SilServer`: an assembled robot stepped in real time behind an endpoint.

Nothing is imported here: ``import legsim.realtime.messages`` loads that module alone, and the names
below load their module on first use.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "RealtimeLoop": "loop", "LoopStats": "loop",
    "Packet": "messages", "CRRFormat": "messages", "GenericFormat": "messages", "MessageError": "messages",
    "Endpoint": "transport", "InProcessLink": "transport", "UdpEndpoint": "transport",
    "LinkStats": "transport",
    "EtherCATTiming": "timing", "LinkModel": "timing", "ClockPlant": "timing", "run_ethercat": "timing",
    "run_exchange": "timing", "run_tick_delays": "timing",
    "SilServer": "sil", "RobotPlant": "sil", "crr_leg_robot": "sil",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
