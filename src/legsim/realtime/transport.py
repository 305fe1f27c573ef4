"""One transport interface for a simulated and a real robot: in-process queues or UDP datagrams.

Konyev (2011) §3.3 (contact-processing digest §5, §7.3): software in the loop means the controller
talks to the real robot or to a virtual one *through the same interface*. Here that interface is an
:class:`Endpoint`: ``send(packet)`` and ``recv_latest()``. A controller holds the controller-side
endpoint of a link and never learns whether the robot behind it is simulated in this process, in
another process over UDP, or real hardware speaking the same message format.

Every datagram received is decoded by the link's message format (:mod:`.messages`) and checked
(size, magic and version, kind, value count, finite numbers). A malformed one is counted under its
reason in :class:`LinkStats` and dropped: nothing a peer sends can stop the loop. Of the valid packets
waiting, :meth:`Endpoint.recv_latest` keeps the newest (highest sequence number; a sender restarting
from 0 is recognised) and counts the others as ``superseded`` (older ones than the newest already
taken: ``stale``), the zero-order hold of a sampled receiver.

UDP binds to the loopback address by default; any other address (another machine, the whole
network) works but warns (:class:`ExposedAddressWarning`): the robot's port then takes commands from
whoever can reach it.
"""

from __future__ import annotations

import ipaddress
import selectors
import socket
import time
import warnings
from collections import deque
from dataclasses import asdict, dataclass, field

from ..errors import InputError, as_float, check_whole, shown
from .messages import COMMANDS, SENSORS, CRRFormat, GenericFormat, MessageError, Packet

__all__ = ["Endpoint", "LinkStats", "InProcessLink", "UdpEndpoint", "ExposedAddressWarning", "is_loopback",
           "robot_side", "controller_side"]

_RESTART_GAP = 1000
"""A sequence number this far below the newest taken means the sender restarted (not a stale packet)."""


class ExposedAddressWarning(UserWarning):
    """A UDP endpoint bound to an address other than loopback: reachable from the network."""


@dataclass
class LinkStats:
    """Counters of one endpoint. ``received``: valid packets decoded; ``taken``: returned by
    ``recv_latest``; ``superseded``: valid but a newer one arrived in the same drain; ``stale``: valid
    but not newer than the newest already taken (reordered or duplicated); ``malformed``: dropped by
    the format check, by reason in ``malformed_by_reason``; ``foreign``: from another address than
    the fixed peer; ``send_errors``: sends the operating system refused."""

    sent: int = 0
    received: int = 0
    taken: int = 0
    superseded: int = 0
    stale: int = 0
    malformed: int = 0
    malformed_by_reason: dict[str, int] = field(default_factory=dict)
    foreign: int = 0
    send_errors: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def _check_link(owner: str, fmt, send_kind, recv_kind, recv_count,
                count_name: str = "recv_count") -> tuple[int, int, int]:
    """(send_kind, recv_kind, recv_count) as ints, else an InputError naming ``owner`` and the argument
    (``count_name``: what the caller calls ``recv_count``): a message format, packet kinds or a value count
    an endpoint cannot use."""
    if not isinstance(fmt, (CRRFormat, GenericFormat)):
        raise InputError(f"{owner}: 'fmt' = {shown(fmt)}, expected a CRRFormat or a GenericFormat "
                         "(legsim.realtime.messages)")
    names = {SENSORS: "SENSORS", COMMANDS: "COMMANDS"}
    kinds = []
    for name, kind in (("send_kind", send_kind), ("recv_kind", recv_kind)):
        if as_float(kind) not in names:  # (NaN for a bool, a string or None)
            raise InputError(f"{owner}: '{name}' = {shown(kind)}, expected SENSORS ({SENSORS}) or COMMANDS "
                             f"({COMMANDS}) of legsim.realtime.messages")
        kinds.append(int(kind))
    if kinds[0] == kinds[1]:
        raise InputError(f"{owner}: 'send_kind' = 'recv_kind' = {names[kinds[1]]}: an endpoint receives the "
                         "other kind than it sends")
    if isinstance(fmt, CRRFormat):
        allowed = (6, 12) if kinds[1] == SENSORS else tuple(range(3, 10))
        n = check_whole(owner, count_name, recv_count, 0, 12)
        if n not in allowed:
            carries = "6 or 12" if kinds[1] == SENSORS else "3 to 9"
            raise InputError(f"{owner}: '{count_name}' = {shown(recv_count)}: a CRR {names[kinds[1]]} "
                             f"message carries {carries} values")
    else:  # a negative count (-1) takes any count (GenericFormat.decode)
        n = check_whole(owner, count_name, recv_count, -1, fmt.max_values[kinds[1]])
    return kinds[0], kinds[1], n


class Endpoint:
    """One side of a link: sends packets of ``send_kind``, receives packets of ``recv_kind`` (the other
    kind: :data:`~.messages.SENSORS` or :data:`~.messages.COMMANDS`) with ``recv_count`` values each
    (CRR: 6 or 12 sensor values, 3 to 9 commands; generic: 0 to 180, or -1 for any count), in message format
    ``fmt`` (:class:`~.messages.CRRFormat` or :class:`~.messages.GenericFormat`). Subclasses move the bytes
    (``_send_bytes``, ``_drain``)."""

    def __init__(self, fmt: CRRFormat | GenericFormat, send_kind: int, recv_kind: int, recv_count: int):
        self.send_kind, self.recv_kind, self.recv_count = _check_link(type(self).__name__, fmt, send_kind,
                                                                      recv_kind, recv_count)
        self.format = fmt
        self.stats = LinkStats()
        self._last_seq = -1
        self.last_error = ""
        """The message of the latest malformed packet (for logs)."""

    def send(self, packet: Packet) -> None:
        """Encode and send ``packet`` (its kind is set to the endpoint's ``send_kind``)."""
        packet.kind = self.send_kind
        data = self.format.encode(packet)
        if self._send_bytes(data):
            self.stats.sent += 1
        else:
            self.stats.send_errors += 1

    def recv_latest(self) -> Packet | None:
        """The newest valid packet among those waiting, or None when no new valid one arrived. Never
        raises on what arrived: malformed, superseded and stale packets are counted and dropped."""
        best: Packet | None = None
        for data in self._drain():
            try:
                pkt = self.format.decode(data, self.recv_kind, self.recv_count)
            except MessageError as exc:
                st = self.stats
                st.malformed += 1
                st.malformed_by_reason[exc.reason] = st.malformed_by_reason.get(exc.reason, 0) + 1
                self.last_error = str(exc)
                continue
            self.stats.received += 1
            if pkt.seq <= self._last_seq and pkt.seq + _RESTART_GAP > self._last_seq:
                self.stats.stale += 1
                continue
            if best is not None:
                if pkt.seq <= best.seq and pkt.seq + _RESTART_GAP > best.seq:
                    self.stats.superseded += 1
                    continue
                self.stats.superseded += 1
            best = pkt
        if best is not None:
            self._last_seq = best.seq
            self.stats.taken += 1
        return best

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` [s] for data to arrive; True if some is waiting (lock-step mode)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the endpoint's resources."""

    def _send_bytes(self, data: bytes) -> bool:
        raise NotImplementedError

    def _drain(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ------------------------------------------------------------------------------- in process
class _QueueEndpoint(Endpoint):
    def __init__(self, fmt, send_kind, recv_kind, recv_count, outbox: deque, inbox: deque):
        super().__init__(fmt, send_kind, recv_kind, recv_count)
        self._out, self._in = outbox, inbox

    def _send_bytes(self, data: bytes) -> bool:
        self._out.append(data)
        return True

    def _drain(self):
        q = self._in
        while q:
            yield q.popleft()

    def inject(self, data: bytes) -> None:
        """Put raw bytes in this endpoint's inbox, as if the peer had sent them (tests, fuzzing)."""
        self._in.append(bytes(data))

    def wait(self, timeout: float) -> bool:
        end = time.perf_counter() + max(timeout, 0.0)
        while not self._in and time.perf_counter() < end:
            time.sleep(0)
        return bool(self._in)


class InProcessLink:
    """A link inside one process: two endpoints joined by two queues of bytes (each packet goes
    through the message format and its checks, as over a network; deque appends and pops are
    thread-safe, so the controller may run in another thread).

    ``robot`` sends SENSORS with ``n_sensors`` values and receives COMMANDS with ``n_commands``;
    ``controller`` the other way round.
    """

    def __init__(self, n_sensors: int, n_commands: int, fmt: CRRFormat | GenericFormat | None = None):
        fmt = fmt if fmt is not None else GenericFormat()
        _check_link("InProcessLink", fmt, COMMANDS, SENSORS, n_sensors, "n_sensors")
        _check_link("InProcessLink", fmt, SENSORS, COMMANDS, n_commands, "n_commands")
        up: deque = deque()  # robot -> controller
        down: deque = deque()  # controller -> robot
        self.robot = _QueueEndpoint(fmt, SENSORS, COMMANDS, n_commands, up, down)
        self.controller = _QueueEndpoint(fmt, COMMANDS, SENSORS, n_sensors, down, up)


# ------------------------------------------------------------------------------------- UDP
def is_loopback(host: str) -> bool:
    """True when ``host`` (a name or an address) resolves only to loopback addresses."""
    if not isinstance(host, str):
        raise InputError(f"is_loopback: host = {host!r}, expected a host name or address (a str)")
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_INET, socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError, ValueError):  # no such name, a label IDNA refuses, a NUL
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def _address(value, what: str) -> tuple[str, int]:
    """``(host, port)`` or ``"host:port"`` → (host, port), checked (the host a str: (0.0, 0) would bind
    "0.0", every interface)."""
    if isinstance(value, str):
        host, sep, port_s = value.rpartition(":")
        if not sep or not host:
            raise InputError(f"{what} = {value!r}: expected HOST:PORT (e.g. 127.0.0.1:47001)")
        try:
            port = int(port_s)
        except ValueError:
            raise InputError(f"{what} = {value!r}: the port {port_s!r} is not a whole number") from None
    else:
        try:
            host, port = value
        except (TypeError, ValueError):
            raise InputError(f"{what} = {shown(value)}: expected (host, port) or 'HOST:PORT'") from None
        if not isinstance(host, str):
            raise InputError(f"{what} = {shown(value)}: the host {shown(host)} is not a name or an address "
                             "(expected a str, e.g. '127.0.0.1')")
    return host, check_whole(f"{what} = {shown(value)}", "port", port, 0, 65535)


class UdpEndpoint(Endpoint):
    """A UDP endpoint: bound to ``bind`` (default ``127.0.0.1``, port 0: any free one), sending to
    ``peer`` (``(host, port)`` or ``"host:port"``; None: to whoever sent the latest valid packet).
    With a fixed ``peer``, datagrams from other addresses are counted as ``foreign`` and dropped.
    Non-blocking: neither sending nor receiving ever waits (except :meth:`wait`)."""

    def __init__(self, fmt: CRRFormat | GenericFormat, send_kind: int, recv_kind: int, recv_count: int, *,
                 bind=("127.0.0.1", 0), peer=None):
        super().__init__(fmt, send_kind, recv_kind, recv_count)
        host, port = _address(bind, "bind")
        self.peer = None if peer is None else _address(peer, "peer")
        self._fixed_peer = self.peer is not None
        if self.peer is not None:
            try:
                self.peer = (socket.gethostbyname(self.peer[0]), self.peer[1])
            except (OSError, UnicodeError, ValueError) as exc:  # no such name, a label IDNA refuses, a NUL
                raise InputError(f"peer = {shown(peer)}: the host {self.peer[0]!r} is not found "
                                 f"({getattr(exc, 'strerror', None) or exc})") from None
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            self.sock.bind((host, port))
        except (OSError, UnicodeError, ValueError) as exc:
            self.sock.close()
            raise InputError(f"bind {host}:{port}: {getattr(exc, 'strerror', None) or exc} (is another "
                             "server on that port? choose another with --port)") from None
        if not is_loopback(host):  # (once bound: an address that cannot be bound is refused without it)
            warnings.warn(f"UDP endpoint bound to {host}:{port}, not a loopback address: it takes packets "
                          "from the network (anyone who reaches this port can command the robot)",
                          ExposedAddressWarning, stacklevel=2)
        self.sock.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.sock, selectors.EVENT_READ)
        self._from: tuple[str, int] | None = None

    @property
    def address(self) -> tuple[str, int]:
        """The (host, port) this endpoint is bound to."""
        return self.sock.getsockname()

    def _send_bytes(self, data: bytes) -> bool:
        if self.peer is None:
            return False
        try:
            self.sock.sendto(data, self.peer)
            return True
        except OSError:
            return False

    def _drain(self):
        sock = self.sock
        while True:
            try:
                data, src = sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # e.g. an ICMP error reported on the socket: skip it
                self.stats.send_errors += 1
                continue
            if self._fixed_peer and src != self.peer:
                self.stats.foreign += 1
                continue
            self._from = src
            yield data

    def recv_latest(self) -> Packet | None:
        pkt = super().recv_latest()
        if pkt is not None and not self._fixed_peer:
            self.peer = self._from  # reply to whoever sent the latest valid packet
        return pkt

    def wait(self, timeout: float) -> bool:
        return bool(self._sel.select(max(timeout, 0.0)))

    def close(self) -> None:
        try:
            self._sel.close()
        finally:
            self.sock.close()


def robot_side(fmt: CRRFormat | GenericFormat, n_commands: int, **udp) -> UdpEndpoint:
    """The robot's UDP endpoint: sends SENSORS, receives COMMANDS of ``n_commands`` values (``udp``:
    ``bind``, ``peer`` of :class:`UdpEndpoint`)."""
    _check_link("robot_side", fmt, SENSORS, COMMANDS, n_commands, "n_commands")
    return UdpEndpoint(fmt, SENSORS, COMMANDS, n_commands, **udp)


def controller_side(fmt: CRRFormat | GenericFormat, n_sensors: int, **udp) -> UdpEndpoint:
    """The controller's UDP endpoint: sends COMMANDS, receives SENSORS of ``n_sensors`` values (``udp``:
    ``bind``, ``peer`` of :class:`UdpEndpoint`)."""
    _check_link("controller_side", fmt, COMMANDS, SENSORS, n_sensors, "n_sensors")
    return UdpEndpoint(fmt, COMMANDS, SENSORS, n_sensors, **udp)
