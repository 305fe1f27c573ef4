"""The SiL wire formats and transports: the CRR 21-field message laid out as the thesis's code uses
it, the generic versioned format, validation of everything received (size, magic, version, kind,
count, finiteness), in-process and UDP endpoints behind one interface, and UDP fuzzing: whatever
arrives is counted and dropped, never raised (Daepp (2011) App. C.2.4; Konyev (2011) §3.3)."""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from legsim.errors import InputError
from legsim.realtime.messages import (
    COMMANDS,
    CRR_FIELDS,
    CRR_SIZE,
    GENERIC_HEADER_SIZE,
    GENERIC_MAX_VALUES,
    NO_ACK,
    SENSORS,
    CRRFormat,
    GenericFormat,
    MessageError,
    Packet,
    format_by_name,
)
from legsim.realtime.transport import (
    Endpoint,
    ExposedAddressWarning,
    InProcessLink,
    UdpEndpoint,
    controller_side,
    robot_side,
)

Q = np.array([0.1, -0.2, 0.3])  # alpha, beta, gamma [rad]
V = np.array([1.0, -2.0, 3.0])  # [rad/s]


def test_the_message_module_imports_alone_with_the_standard_library_and_numpy():
    code = ("import sys\nimport legsim.realtime.messages\n"
            "print(sorted(m for m in sys.modules if m.startswith('legsim')))\n"
            "print(sorted(m for m in ('numba', 'scipy', 'pyarrow') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out = proc.stdout.split("\n")
    # legsim._numba_cache: the package's import hook for its kernel cache, standard library only
    assert out[0] == "['legsim', 'legsim._numba_cache', 'legsim.realtime', 'legsim.realtime.messages']"
    assert out[1] == "[]"
    src = (__import__("legsim.realtime.messages").realtime.messages.__file__)
    imports = [ln for ln in open(src).read().splitlines() if ln.startswith(("import ", "from "))]
    assert all(not ln.startswith(("from .", "from legsim", "import legsim")) for ln in imports), imports


def test_a_crr_sensor_message_is_21_little_endian_doubles_in_the_thesis_field_order():
    fmt = CRRFormat()
    data = fmt.encode(Packet(seq=957, t=9.452, values=np.concatenate([Q, V]), echo=1.25, kind=SENSORS))
    assert len(data) == CRR_SIZE == 168 == 21 * 8
    f = CRRFormat.fields(data)
    assert list(f) == list(CRR_FIELDS)
    # SendNewData: L11 Gamma pos, L12 Gamma vel, L13 Beta pos, R11 Beta vel, R12 Alpha pos, R13 Alpha vel
    assert (f["L11"], f["L12"], f["L13"], f["R11"], f["R12"], f["R13"]) == (0.3, 3.0, -0.2, -2.0, 0.1, 1.0)
    assert [f[k] for k in ("L21", "L22", "L23", "R21", "R22", "R23")] == [0.0] * 6
    assert [f[k] for k in ("ori11", "ori12", "ori13", "ori21", "ori22", "ori23")] == [1, 0, 0, 0, 1, 0]
    assert (f["ori31"], f["ori32"], f["ori33"]) == (1.25, 957.0, 9.452)  # time_packet, send counter, sim time
    assert struct.unpack("<21d", data)[0] == 0.3  # little-endian doubles
    back = fmt.decode(data, SENSORS, 6)
    assert (back.seq, back.t, back.echo) == (957, 9.452, 1.25)
    np.testing.assert_array_equal(back.values, np.concatenate([Q, V]))


def test_a_crr_command_message_carries_the_torques_in_l11_to_l13_and_the_timestamp_in_r21():
    fmt = CRRFormat()
    data = fmt.encode(Packet(seq=12, t=3.5, values=np.array([1.5, -0.5, 0.25]), ack=11, kind=COMMANDS))
    f = CRRFormat.fields(data)
    assert (f["L11"], f["L12"], f["L13"], f["R21"]) == (1.5, -0.5, 0.25, 3.5)  # ReceiveNewData
    assert (f["R22"], f["R23"]) == (12.0, 11.0)  # our sequence and ack (unused by the thesis)
    back = fmt.decode(data, COMMANDS, 3)
    assert (back.seq, back.ack, back.t) == (12, 11, 3.5)
    np.testing.assert_array_equal(back.values, [1.5, -0.5, 0.25])


def test_the_generic_format_has_a_32_byte_header_and_round_trips_any_channel_count():
    fmt = GenericFormat()
    for n in (0, 1, 7, GENERIC_MAX_VALUES):
        v = np.linspace(-1, 1, n)
        data = fmt.encode(Packet(seq=2**32 - 1, t=1.5, values=v, echo=0.5, ack=NO_ACK, kind=SENSORS))
        assert len(data) == GENERIC_HEADER_SIZE + 8 * n and GENERIC_HEADER_SIZE == 32
        assert data[:4] == b"LGSM" and data[4] == 1
        back = fmt.decode(data, SENSORS, n)
        assert (back.seq, back.t, back.echo, back.ack) == (2**32 - 1, 1.5, 0.5, NO_ACK)
        np.testing.assert_array_equal(back.values, v)
    with pytest.raises(InputError, match="GenericFormat.encode: 'packet' holds 181 values; at most 180"):
        fmt.encode(Packet(seq=0, t=0.0, values=np.zeros(GENERIC_MAX_VALUES + 1)))


def test_a_packet_the_format_cannot_carry_is_an_input_error_naming_it():
    """Before session 42 encoding a local packet of the wrong count or kind raised MessageError, the
    error of a malformed *received* packet ("malformed packet (count)"), which the CLI does not report
    as the user's mistake."""
    crr = CRRFormat()
    sensors, commands = "sensor message takes 6 or 12", "command message takes 3 to 9"
    for kind, n, what in ((SENSORS, 7, sensors), (COMMANDS, 2, commands), (COMMANDS, 10, commands)):
        with pytest.raises(InputError, match=f"CRRFormat.encode: 'packet' holds {n} values; a CRR {what}"):
            crr.encode(Packet(seq=0, t=0.0, values=np.zeros(n), kind=kind))
    for fmt in (crr, GenericFormat()):
        packet = Packet(seq=0, t=0.0, values=np.zeros(6), kind=SENSORS)
        packet.kind = 7
        with pytest.raises(InputError, match=f"{type(fmt).__name__}.encode: 'packet' has kind 7"):
            fmt.encode(packet)


@pytest.mark.parametrize("fmt_name", ["crr", "generic"])
def test_a_malformed_packet_raises_a_message_error_naming_its_reason(fmt_name):
    fmt = format_by_name(fmt_name)
    good = fmt.encode(Packet(seq=3, t=0.1, values=np.arange(3.0), kind=COMMANDS))
    nan = bytearray(good)
    nan[-8:] = struct.pack("<d", float("nan"))
    cases = {"size": [good[:-1], good + b"\0", b""], "nonfinite": [bytes(nan)]}
    if fmt_name == "generic":
        cases["magic"] = [b"XXXX" + good[4:]]
        cases["version"] = [good[:4] + b"\x07" + good[5:]]
        cases["kind"] = [good[:5] + b"\x01" + good[6:]]
    else:
        frac = bytearray(good)
        i = 8 * CRR_FIELDS.index("R22")
        frac[i:i + 8] = struct.pack("<d", 2.5)
        cases["counter"] = [bytes(frac)]
    for reason, datas in cases.items():
        for data in datas:
            with pytest.raises(MessageError) as exc:
                fmt.decode(data, COMMANDS, 3)
            assert exc.value.reason == reason, (reason, exc.value)
    with pytest.raises(ValueError, match="expected one of crr, generic"):
        format_by_name("xml")


def test_the_in_process_link_delivers_the_newest_packet_and_counts_what_it_drops():
    link = InProcessLink(n_sensors=6, n_commands=3)
    assert link.robot.recv_latest() is None
    for k in range(3):
        link.controller.send(Packet(seq=k, t=0.01 * k, values=np.full(3, k), ack=k))
    link.robot.inject(b"garbage")
    got = link.robot.recv_latest()
    assert got.seq == 2 and list(got.values) == [2, 2, 2] and got.ack == 2
    link.controller.send(Packet(seq=1, t=0.0, values=np.zeros(3)))  # reordered: older than the newest taken
    assert link.robot.recv_latest() is None
    st_ = link.robot.stats
    assert (st_.received, st_.taken, st_.superseded, st_.stale, st_.malformed) == (4, 1, 2, 1, 1)
    assert st_.malformed_by_reason == {"size": 1}
    link.robot.send(Packet(seq=0, t=0.0, values=np.arange(6.0)))
    assert link.controller.recv_latest().values.size == 6


def test_a_restarted_sender_is_recognised_rather_than_dropped_as_stale():
    link = InProcessLink(n_sensors=6, n_commands=3)
    link.controller.send(Packet(seq=5000, t=0.0, values=np.zeros(3)))
    assert link.robot.recv_latest().seq == 5000
    link.controller.send(Packet(seq=0, t=0.0, values=np.ones(3)))
    assert link.robot.recv_latest().seq == 0


def _udp_pair(fmt):
    robot = robot_side(fmt, 3)
    ctrl = controller_side(fmt, 6, peer=robot.address)
    robot.peer = ctrl.address
    return robot, ctrl


def _recv(ep, timeout=1.0):
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        ep.wait(0.05)
        pkt = ep.recv_latest()
        if pkt is not None:
            return pkt
    return None


@pytest.mark.parametrize("fmt_name", ["crr", "generic"])
def test_udp_endpoints_exchange_on_loopback_through_the_same_interface(fmt_name):
    robot, ctrl = _udp_pair(format_by_name(fmt_name))
    with robot, ctrl:
        assert robot.address[0] == "127.0.0.1"
        robot.send(Packet(seq=1, t=0.001, values=np.concatenate([Q, V])))
        pkt = _recv(ctrl)
        np.testing.assert_array_equal(pkt.values, np.concatenate([Q, V]))
        ctrl.send(Packet(seq=1, t=5.0, values=np.array([1.0, 2.0, 3.0]), ack=pkt.seq))
        cmd = _recv(robot)
        assert cmd.ack == 1 and list(cmd.values) == [1.0, 2.0, 3.0]


def test_a_udp_endpoint_learns_its_peer_from_the_first_valid_packet():
    fmt = GenericFormat()
    robot = robot_side(fmt, 3)
    ctrl = controller_side(fmt, 6, peer=robot.address)
    with robot, ctrl:
        robot.send(Packet(seq=0, t=0.0, values=np.zeros(6)))  # no peer yet: not sent
        assert robot.stats.send_errors == 1
        ctrl.send(Packet(seq=0, t=0.0, values=np.zeros(3)))
        assert _recv(robot) is not None and robot.peer == ctrl.address
        robot.send(Packet(seq=1, t=0.0, values=np.ones(6)))
        assert _recv(ctrl).seq == 1


def test_binding_beyond_loopback_warns_and_a_bad_address_is_refused_naming_it():
    with pytest.warns(ExposedAddressWarning, match="not a loopback address"):
        robot_side(CRRFormat(), 3, bind=("0.0.0.0", 0)).close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        robot_side(CRRFormat(), 3, bind=("localhost", 0)).close()  # loopback by name: silent
    with pytest.raises(InputError, match="peer = 'nohost': expected HOST:PORT"):
        robot_side(CRRFormat(), 3, peer="nohost")
    with pytest.raises(InputError, match=r"'port' = 70000, expected a whole number in \[0, 65535\]"):
        robot_side(CRRFormat(), 3, bind=("127.0.0.1", 70000))


def test_what_sweeping_the_endpoints_and_packets_found_in_session_41():
    """Before session 41 bind=(0.0, 0) bound the host "0.0", that is 0.0.0.0: every interface (a warning,
    but a socket open to the network); a peer host that does not resolve was socket.gaierror; a CRR sensor
    endpoint of 7 values silently received 6; an endpoint of any fmt or kind (a string, NaN) was made and
    failed at its first packet; Packet(values="abc") failed only in encode (numpy's ValueError), and
    format_by_name's unknown name was a plain ValueError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before anything is bound: no exposed-address warning
        with pytest.raises(InputError, match=r"bind = \(0.0, 0\): the host 0.0 is not a name"):
            robot_side(CRRFormat(), 3, bind=(0.0, 0))
    with pytest.raises(InputError, match="peer = 'no-such-host.invalid:5': the host 'no-such-host.invalid' "
                                         "is not found"):
        robot_side(CRRFormat(), 3, peer="no-such-host.invalid:5")
    with pytest.raises(InputError, match="controller_side: 'n_sensors' = 7: a CRR SENSORS message carries 6 "
                                         "or 12 values"):
        controller_side(CRRFormat(), 7)
    with pytest.raises(InputError, match="'fmt' = 'crr', expected a CRRFormat or a GenericFormat"):
        UdpEndpoint("crr", SENSORS, COMMANDS, 3)
    with pytest.raises(InputError, match="'recv_kind' = nan, expected SENSORS"):
        Endpoint(GenericFormat(), SENSORS, float("nan"), 3)
    with pytest.raises(InputError, match="Packet: 'values' = 'abc', expected \\(n,\\) finite numbers"):
        Packet(seq=0, t=0.0, values="abc")
    with pytest.raises(InputError, match="Packet: 'seq' = -1, expected a whole number"):
        Packet(seq=-1, t=0.0, values=np.zeros(3))
    with pytest.raises(InputError, match="format_by_name: 'name' = 'json', expected one of crr, generic"):
        format_by_name("json")


# -------------------------------------------------------------------------------- fuzzing
def _bad_packets(fmt):
    good = fmt.encode(Packet(seq=9, t=0.5, values=np.array([1.0, 2.0, 3.0]), ack=8, kind=COMMANDS))
    nan = bytearray(good)
    i = GENERIC_HEADER_SIZE if isinstance(fmt, GenericFormat) else 0
    nan[i:i + 8] = struct.pack("<d", float("nan"))
    return st.one_of(
        st.binary(max_size=400),  # random bytes (a random 168-byte one may even be a valid CRR packet)
        st.integers(0, len(good) - 1).map(lambda n: good[:n]),  # truncated
        st.just(b"BAD!" + good[4:]),  # wrong magic
        st.just(bytes(nan)),  # NaN payload
        st.just(good + b"\x00" * 8),  # too long
    )


@pytest.mark.parametrize("fmt_name", ["crr", "generic"])
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_udp_fuzz_never_raises_counts_every_drop_and_still_takes_the_valid_packets(fmt_name, data):
    fmt = format_by_name(fmt_name)
    robot = robot_side(fmt, 3)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        junk = data.draw(st.lists(_bad_packets(fmt), min_size=1, max_size=30))
        invalid = 0
        for blob in junk:
            try:
                fmt.decode(blob, COMMANDS, 3)
            except MessageError:
                invalid += 1
            sender.sendto(blob, robot.address)
        valid = fmt.encode(Packet(seq=10**6, t=1.0, values=np.array([4.0, 5.0, 6.0]), kind=COMMANDS))
        sender.sendto(valid, robot.address)
        got = None
        end = time.perf_counter() + 2.0
        while robot.stats.received + robot.stats.malformed < len(junk) + 1 and time.perf_counter() < end:
            robot.wait(0.05)
            got = robot.recv_latest() or got
        assert robot.stats.malformed == invalid
        assert sum(robot.stats.malformed_by_reason.values()) == invalid
        assert robot.stats.received == len(junk) + 1 - invalid
        assert got is not None and got.seq == 10**6 and list(got.values) == [4.0, 5.0, 6.0]
    finally:
        sender.close()
        robot.close()
