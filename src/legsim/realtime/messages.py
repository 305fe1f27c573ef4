"""Wire formats of the software-in-the-loop exchange: the CRR 21-field message and a generic versioned one.

This module imports only the standard library and numpy, and nothing else from legsim, so that an
external controller process (``examples/sil_controller.py``) can import it alone, or a copy of this
file can sit beside a controller on another machine.

Both formats carry a :class:`Packet`: a sequence number, a timestamp [s], an echoed timestamp [s]
(the latest timestamp received from the other side: round-trip measurement, the thesis's
``time_packet``), an acknowledged sequence number (the other side's latest packet used to make this
one: the exchange delay in periods) and the values (float64 array). Two kinds flow: ``SENSORS``
(robot → controller) and ``COMMANDS`` (controller → robot).

**CRR format** (Daepp (2011) App. C.2.4; pneumatic digest §1.5). The SrLib ``msg`` struct has 21
fields ``L11 L12 L13 R11 R12 R13 L21 L22 L23 R21 R22 R23 ori11 … ori33``. The thesis does not state
their type; we choose **float64, little-endian**, packed without padding (168 bytes): the C struct of
21 ``double`` on x86. The fields are used as the thesis's validation code does:

* SENSORS (``SendNewData``): ``L11`` Gamma position, ``L12`` Gamma velocity, ``L13`` Beta position,
  ``R11`` Beta velocity, ``R12`` Alpha position, ``R13`` Alpha velocity [rad, rad/s];
  ``L21…R23`` = 0; ``ori11…ori23`` the first six entries of the thorax orientation (row-major SO(3));
  ``ori31`` the echoed command timestamp (``time_packet``), ``ori32`` the send counter
  (``udp_send_num``: our sequence number), ``ori33`` the simulation time [s].
  Our :class:`Packet` values are ``(q_alpha, q_beta, q_gamma, v_alpha, v_beta, v_gamma)`` optionally
  followed by the six orientation entries (identity rows for a fixed base when absent).
* COMMANDS (``ReceiveNewData``): ``L11 L12 L13`` = Alpha, Beta, Gamma torques [N m] of leg R1;
  ``R11 R12 R13 L21 L22 L23`` = joint angles for the other legs (up to six more values); ``R21`` =
  the timestamp for round-trip analysis. The thesis sets ``R22``, ``R23`` to 0 and never reads
  them; **our addition**: ``R22`` = sequence number, ``R23`` = acknowledged sensor sequence number
  (both exact in a double up to 2**53).

The CRR message has no magic number: it is recognised by its size (168 bytes) and checked for
finite values and whole, non-negative counters.

**Generic format** (legsim's own; any channel count). A 32-byte little-endian header
``magic b"LGSM" | version u8 | kind u8 | n u16 | seq u32 | ack u32 | t f64 | echo f64`` followed by
``n`` float64 values (``n`` ≤ :data:`GENERIC_MAX_VALUES` = 180, so that a packet fits one Ethernet
frame of 1500 bytes without IP fragmentation). ``ack`` = 0xFFFFFFFF means "none yet".

A malformed packet (received) raises :class:`MessageError` with a short ``reason`` (``size``, ``magic``,
``version``, ``kind``, ``count``, ``nonfinite``, ``counter``): the transports count it under that
reason and drop it. A packet that cannot be encoded (too many or too few values for the format, an
unknown kind) is the sender's mistake: ``encode`` raises legsim's ``InputError`` naming 'packet'.
"""

from __future__ import annotations

import math
import numbers
import struct
from dataclasses import dataclass

import numpy as np

__all__ = ["SENSORS", "COMMANDS", "Packet", "MessageError", "CRR_FIELDS", "CRR_SIZE", "CRRFormat",
           "GenericFormat", "GENERIC_MAGIC", "GENERIC_VERSION", "GENERIC_HEADER_SIZE", "GENERIC_MAX_VALUES",
           "NO_ACK", "format_by_name", "MAX_COUNTER"]

SENSORS = 1
"""Packet kind: robot → controller (measurements)."""
COMMANDS = 2
"""Packet kind: controller → robot (actuator commands)."""
NO_ACK = 0xFFFFFFFF
"""``Packet.ack`` when nothing has been received from the other side yet."""


MAX_COUNTER = 2**53
"""Largest sequence number or acknowledgement a :class:`Packet` takes: the CRR message carries them as
doubles, exact up to 2**53 (the generic header keeps their low 32 bits)."""


def _input_error(message: str) -> ValueError:
    """legsim's ``InputError`` (a ValueError) for a wrong argument; a plain ValueError when this module runs
    alone beside a controller, without legsim (it imports nothing from legsim, hence the small checks
    below instead of ``legsim.errors``'s)."""
    try:
        from legsim.errors import InputError
    except ImportError:
        return ValueError(message)
    return InputError(message)


def _shown(value) -> str:
    try:
        return repr(value)
    except ValueError:  # a whole number of more than 4300 digits
        return "<a whole number too long to write>"


def _real(value) -> float:
    """``value`` as a float, NaN when it is not a real number (a string, None, a bool, an array)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _whole(owner: str, name: str, value, lo: int, hi: int) -> int:
    if type(value) is int and lo <= value <= hi:  # the usual case, without a conversion
        return value
    v = _real(value)
    if not (math.isfinite(v) and v == math.floor(v) and lo <= v <= hi):
        raise _input_error(f"{owner}: '{name}' = {_shown(value)}, expected a whole number in [{lo}, {hi}]")
    return int(value)


def _finite(owner: str, name: str, value) -> float:
    if type(value) is float and math.isfinite(value):  # the usual case, without a conversion
        return value
    v = _real(value)
    if not math.isfinite(v):
        raise _input_error(f"{owner}: '{name}' = {_shown(value)}, expected a finite number")
    return v


def _kind(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value not in (SENSORS, COMMANDS):
        raise _input_error(f"{owner}: '{name}' = {_shown(value)}, expected SENSORS ({SENSORS}) or COMMANDS "
                           f"({COMMANDS})")
    return int(value)


class MessageError(ValueError):
    """A packet that is not a valid message; ``reason`` is one short word for the drop counters."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"malformed packet ({reason}): {detail}")
        self.reason = reason


@dataclass
class Packet:
    """One message: ``seq`` (sender's counter), ``t`` [s] (sender's timestamp: the robot's simulation
    time for SENSORS, the controller's clock for COMMANDS), ``echo`` [s] (the latest ``t`` received
    from the other side, NaN-free: 0 before any), ``ack`` (the latest ``seq`` received from the other
    side and used, :data:`NO_ACK` before any) and ``values`` (n,) float64; ``kind`` :data:`SENSORS` or
    :data:`COMMANDS`. The counters are whole numbers in [0, :data:`MAX_COUNTER`], the times and values
    finite (else an InputError naming the field)."""

    seq: int
    t: float
    values: np.ndarray
    echo: float = 0.0
    ack: int = NO_ACK
    kind: int = SENSORS

    def __post_init__(self) -> None:
        o = "Packet"
        self.seq = _whole(o, "seq", self.seq, 0, MAX_COUNTER)
        self.t = _finite(o, "t", self.t)
        self.echo = _finite(o, "echo", self.echo)
        self.ack = _whole(o, "ack", self.ack, 0, MAX_COUNTER)
        self.kind = _kind(o, "kind", self.kind)
        values = self.values
        if type(values) is np.ndarray and values.dtype == np.float64:  # the usual case, without a conversion
            a, numbers_only = values, True
        else:
            try:
                a = np.asarray(values, dtype=np.float64)
                flags = isinstance(values, (list, tuple)) and any(isinstance(v, (bool, np.bool_))
                                                                  for v in values)
                numbers_only = np.asarray(values).dtype.kind in "iuf" and not flags  # no strings or objects
            except (TypeError, ValueError, OverflowError):
                a, numbers_only = np.zeros(0), False
        if not numbers_only or a.ndim != 1 or not np.isfinite(a).all():
            raise _input_error(f"{o}: 'values' = {_shown(values)}, expected (n,) finite numbers")
        self.values = a


def _packet(seq: int, t: float, values: np.ndarray, echo: float = 0.0, ack: int = NO_ACK,
            kind: int = SENSORS) -> Packet:
    """A :class:`Packet` without the checks of its constructor, for the packets legsim makes itself at every
    tick (decoded, or sent by a server from its own state)."""
    p = object.__new__(Packet)
    p.seq, p.t, p.values, p.echo, p.ack, p.kind = seq, t, values, echo, ack, kind
    return p


def _check_finite(values: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(values)):
        raise MessageError("nonfinite", f"{what} holds NaN or infinite numbers")


# ---------------------------------------------------------------------------------------- CRR
CRR_FIELDS = ("L11", "L12", "L13", "R11", "R12", "R13", "L21", "L22", "L23", "R21", "R22", "R23",
              "ori11", "ori12", "ori13", "ori21", "ori22", "ori23", "ori31", "ori32", "ori33")
"""The 21 fields of the SrLib ``msg`` struct, in declaration order (Daepp (2011) App. C.2.4)."""
_CRR = struct.Struct("<21d")
CRR_SIZE = _CRR.size
"""Bytes of one CRR message: 21 float64 = 168."""
_F = {name: i for i, name in enumerate(CRR_FIELDS)}
# SENSORS: our (q_a, q_b, q_g, v_a, v_b, v_g) -> the thesis fields (Gamma first: SendNewData)
_CRR_SENSOR_SLOTS = (_F["R12"], _F["L13"], _F["L11"], _F["R13"], _F["R11"], _F["L12"])
_CRR_ORI_SLOTS = tuple(range(_F["ori11"], _F["ori23"] + 1))
_CRR_COMMAND_SLOTS = (_F["L11"], _F["L12"], _F["L13"], _F["R11"], _F["R12"], _F["R13"], _F["L21"],
                      _F["L22"], _F["L23"])
_IDENTITY_ROWS = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)


def _counter(x: float, what: str) -> int:
    if not (x >= 0.0 and x == math.floor(x) and x <= 2.0 ** 53):
        raise MessageError("counter", f"{what} = {x!r} is not a whole number >= 0")
    return int(x)


class CRRFormat:
    """The CRR 21-field message (168 bytes, 21 little-endian float64; see the module docstring)."""

    name = "crr"
    max_values = {SENSORS: 12, COMMANDS: 9}

    def encode(self, packet: Packet) -> bytes:
        """``packet`` (kind SENSORS: 6 or 12 values; COMMANDS: 3 to 9 values) → 168 bytes."""
        v = np.asarray(packet.values, dtype=np.float64).ravel()
        f = [0.0] * 21
        if packet.kind == SENSORS:
            if v.size not in (6, 12):
                raise _input_error(f"CRRFormat.encode: 'packet' holds {v.size} values; a CRR sensor message "
                                   "takes 6 or 12")
            for slot, x in zip(_CRR_SENSOR_SLOTS, v[:6], strict=True):
                f[slot] = float(x)
            for slot, x in zip(_CRR_ORI_SLOTS, v[6:] if v.size == 12 else _IDENTITY_ROWS, strict=True):
                f[slot] = float(x)
            f[_F["ori31"]], f[_F["ori32"]], f[_F["ori33"]] = packet.echo, float(packet.seq), packet.t
        elif packet.kind == COMMANDS:
            if not 3 <= v.size <= 9:
                raise _input_error(f"CRRFormat.encode: 'packet' holds {v.size} values; a CRR command message "
                                   "takes 3 to 9")
            for slot, x in zip(_CRR_COMMAND_SLOTS, v, strict=False):
                f[slot] = float(x)
            f[_F["R21"]], f[_F["R22"]], f[_F["R23"]] = packet.t, float(packet.seq), float(packet.ack)
        else:
            raise _input_error(f"CRRFormat.encode: 'packet' has kind {packet.kind!r}, expected SENSORS "
                               f"({SENSORS}) or COMMANDS ({COMMANDS})")
        return _CRR.pack(*f)

    def decode(self, data: bytes, kind: int, n: int) -> Packet:
        """168 bytes → :class:`Packet` of ``kind`` with its first ``n`` values (SENSORS: 6 or 12;
        COMMANDS: 3 to 9). Raises :class:`MessageError` on a wrong size or a non-finite field."""
        if len(data) != CRR_SIZE:
            raise MessageError("size", f"{len(data)} bytes, a CRR message has {CRR_SIZE}")
        f = np.frombuffer(data, dtype="<f8")
        _check_finite(f, "the CRR message")
        if kind == SENSORS:
            slots = _CRR_SENSOR_SLOTS + (_CRR_ORI_SLOTS if n == 12 else ())
            return _packet(seq=_counter(f[_F["ori32"]], "ori32 (send counter)"), t=float(f[_F["ori33"]]),
                           values=f[list(slots)].copy(), echo=float(f[_F["ori31"]]), kind=SENSORS)
        ack = _counter(f[_F["R23"]], "R23 (ack)")
        return _packet(seq=_counter(f[_F["R22"]], "R22 (sequence)"), t=float(f[_F["R21"]]),
                       values=f[list(_CRR_COMMAND_SLOTS[:n])].copy(), ack=ack, kind=COMMANDS)

    @staticmethod
    def fields(data: bytes) -> dict[str, float]:
        """The 21 named fields of a CRR message (for logs and debugging)."""
        if len(data) != CRR_SIZE:
            raise MessageError("size", f"{len(data)} bytes, a CRR message has {CRR_SIZE}")
        return dict(zip(CRR_FIELDS, _CRR.unpack(data), strict=True))


# ------------------------------------------------------------------------------------ generic
GENERIC_MAGIC = b"LGSM"
GENERIC_VERSION = 1
_HEADER = struct.Struct("<4sBBHIIdd")
GENERIC_HEADER_SIZE = _HEADER.size
"""Bytes of the generic header: 32."""
GENERIC_MAX_VALUES = 180
"""Most values in one generic packet: (1500 − 20 IP − 8 UDP − 32 header) / 8 = 180."""


class GenericFormat:
    """legsim's versioned format: 32-byte header + n float64 (see the module docstring)."""

    name = "generic"
    max_values = {SENSORS: GENERIC_MAX_VALUES, COMMANDS: GENERIC_MAX_VALUES}

    def encode(self, packet: Packet) -> bytes:
        v = np.ascontiguousarray(packet.values, dtype="<f8").ravel()
        if v.size > GENERIC_MAX_VALUES:
            raise _input_error(f"GenericFormat.encode: 'packet' holds {v.size} values; at most "
                               f"{GENERIC_MAX_VALUES} fit one packet")
        if packet.kind not in (SENSORS, COMMANDS):
            raise _input_error(f"GenericFormat.encode: 'packet' has kind {packet.kind!r}, expected SENSORS "
                               f"({SENSORS}) or COMMANDS ({COMMANDS})")
        head = _HEADER.pack(GENERIC_MAGIC, GENERIC_VERSION, packet.kind, v.size, packet.seq & 0xFFFFFFFF,
                            packet.ack & 0xFFFFFFFF, packet.t, packet.echo)
        return head + v.tobytes()

    def decode(self, data: bytes, kind: int, n: int) -> Packet:
        """Bytes → :class:`Packet`; checks size, magic, version, kind (must be ``kind``), the value
        count (must be ``n``; a negative ``n`` accepts any count) and finiteness."""
        if len(data) < GENERIC_HEADER_SIZE:
            raise MessageError("size", f"{len(data)} bytes, shorter than the "
                               f"{GENERIC_HEADER_SIZE}-byte header")
        magic, version, k, count, seq, ack, t, echo = _HEADER.unpack_from(data)
        if magic != GENERIC_MAGIC:
            raise MessageError("magic", f"magic {magic!r}, expected {GENERIC_MAGIC!r}")
        if version != GENERIC_VERSION:
            raise MessageError("version", f"version {version}, this reader speaks {GENERIC_VERSION}")
        if k != kind:
            raise MessageError("kind", f"kind {k}, expected {kind}")
        if len(data) != GENERIC_HEADER_SIZE + 8 * count:
            raise MessageError("size", f"{len(data)} bytes for {count} values, expected "
                               f"{GENERIC_HEADER_SIZE + 8 * count}")
        if n >= 0 and count != n:
            raise MessageError("count", f"{count} values, expected {n}")
        values = np.frombuffer(data, dtype="<f8", offset=GENERIC_HEADER_SIZE).astype(np.float64)
        _check_finite(values, "the payload")
        if not (math.isfinite(t) and math.isfinite(echo)):
            raise MessageError("nonfinite", "the header's timestamps are not finite")
        return _packet(seq=seq, t=t, values=values, echo=echo, ack=ack, kind=k)


def format_by_name(name: str) -> CRRFormat | GenericFormat:
    """``"crr"`` or ``"generic"`` → the format object (an InputError naming the choices otherwise)."""
    formats: dict[str, type[CRRFormat] | type[GenericFormat]] = {"crr": CRRFormat, "generic": GenericFormat}
    if not (isinstance(name, str) and name in formats):
        raise _input_error(f"format_by_name: 'name' = {_shown(name)}, expected one of {', '.join(formats)}")
    return formats[name]()
