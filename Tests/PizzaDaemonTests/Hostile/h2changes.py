"""Orders over one HTTP/2 connection the way clients send them, and the ways they go wrong, with PyPI's h2: the
changes pizzad answers from the connection's frames (StreamChangesOnLoop) beside the requests its router answers on
the same connection. Prints one JSON object: each case's statuses and what the server did.

usage: h2changes.py PORT TOKEN
"""
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events

port, token = int(sys.argv[1]), sys.argv[2]
ORDER = b'{"items":[{"kind":"cheese"}],"place":true}'


def connect():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection(("127.0.0.1", port), timeout=20)
    tls = context.wrap_socket(raw, server_hostname="127.0.0.1")
    assert tls.selected_alpn_protocol() == "h2", tls.selected_alpn_protocol()
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    tls.sendall(connection.data_to_send())
    return tls, connection


def head(method, path, key=None, length=None, extra=()):
    fields = [(":method", method), (":path", path), (":scheme", "https"), (":authority", "127.0.0.1"),
              ("authorization", "Bearer " + token)]
    if key is not None:
        fields.append(("idempotency-key", key))
    if length is not None:
        fields += [("content-type", "application/json"), ("content-length", str(length))]
    return fields + list(extra)


class Client:
    def __init__(self):
        self.tls, self.h2 = connect()
        self.answers = {}  # stream -> {"status", "body", "ended", "reset"}
        self.closed = False

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.tls.sendall(data)

    def pump(self, until, timeout=20):
        """Reads frames until `until()` holds, the server closes, or `timeout` passes."""
        deadline = time.monotonic() + timeout
        while not until() and not self.closed and time.monotonic() < deadline:
            self.tls.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = self.tls.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError):
                break
            except (ConnectionResetError, ssl.SSLError, OSError):
                data = b""
            if not data:
                self.closed = True
                break
            for event in self.h2.receive_data(data):
                answer = self.answers.setdefault(getattr(event, "stream_id", 0), {
                    "status": None, "body": b"", "ended": False, "reset": False})
                if isinstance(event, h2.events.ResponseReceived):
                    answer["status"] = int(dict(event.headers)[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    answer["body"] += event.data
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    answer["ended"] = True
                elif isinstance(event, h2.events.StreamReset):
                    answer["reset"] = True
                elif isinstance(event, h2.events.ConnectionTerminated):
                    self.closed = True
            self.flush()

    def done(self, stream):
        answer = self.answers.get(stream)
        return answer is not None and (answer["ended"] or answer["reset"])

    def request(self, fields, body=b"", pieces=1, trailers=None):
        """Sends a request, its body in `pieces` DATA frames (and trailers), and returns its stream."""
        stream = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream, fields, end_stream=not body and trailers is None)
        if body:
            size = max(1, -(-len(body) // pieces))
            for start in range(0, len(body), size):
                last = start + size >= len(body) and trailers is None
                piece = body[start:start + size]
                # Sent as the server's windows allow (its WINDOW_UPDATEs are read meanwhile).
                self.pump(lambda: self.h2.local_flow_control_window(stream) >= len(piece), 10)
                self.h2.send_data(stream, piece, end_stream=last)
                self.flush()
        if trailers is not None:
            self.h2.send_headers(stream, trailers, end_stream=True)
        self.flush()
        return stream

    def answer(self, stream, timeout=20):
        self.pump(lambda: self.done(stream), timeout)
        answer = self.answers.get(stream, {"status": None, "body": b"", "ended": False, "reset": False})
        return {"status": answer["status"], "reset": answer["reset"], "body": answer["body"].decode("utf-8", "replace")}


report = {}
client = Client()

# One order, then the same key again: the first answer's bytes; a GET on the same connection (the router's).
first = client.answer(client.request(head("POST", "/v1/orders", "h2-one", len(ORDER)), ORDER))
again = client.answer(client.request(head("POST", "/v1/orders", "h2-one", len(ORDER)), ORDER))
menu = client.answer(client.request(head("GET", "/v1/menu")))
report["order"] = first["status"]
report["replaySame"] = first["status"] == again["status"] and first["body"] == again["body"]
report["menu"] = menu["status"]

# A body in five DATA frames; a body ended by trailers.
report["pieces"] = client.answer(client.request(head("POST", "/v1/orders", "h2-pieces", len(ORDER)), ORDER, pieces=5))["status"]
report["trailers"] = client.answer(client.request(
    head("POST", "/v1/orders", "h2-trailers", len(ORDER)), ORDER, trailers=[("x-note", "end")]))["status"]

# Bodies at the fast path's edge: a stream's first window (65,535 bytes, taken from the frames) and one byte more
# (the router's, after the window updates its stream channel sends), both valid JSON padded with spaces.
for size in (65535, 65536):
    body = ORDER + b" " * (size - len(ORDER))
    report["body%d" % size] = client.answer(client.request(
        head("POST", "/v1/orders", "h2-size-%d" % size, len(body)), body, pieces=8))["status"]

# Fifty orders in flight at once on the connection, each its own key: each answered once.
streams = [client.request(head("POST", "/v1/orders", "h2-many-%d" % index, len(ORDER)), ORDER) for index in range(50)]
client.pump(lambda: all(client.done(stream) for stream in streams), 30)
report["many"] = sorted(set(client.answers.get(stream, {}).get("status") for stream in streams))

# A change refused: a bad body names the field; no key at all.
bad = b'{"items":[{"kind":"no-such-kind"}]}'
report["badBody"] = client.answer(client.request(head("POST", "/v1/orders", "h2-bad", len(bad)), bad))["status"]
report["noKey"] = client.answer(client.request(head("POST", "/v1/orders", None, len(ORDER)), ORDER))["status"]

# The client resets a change half sent: nothing is written; the connection goes on.
stream = client.h2.get_next_available_stream_id()
client.h2.send_headers(stream, head("POST", "/v1/orders", "h2-reset", len(ORDER)))
client.h2.send_data(stream, ORDER[:10])
client.h2.reset_stream(stream)
client.flush()
report["afterReset"] = client.answer(client.request(head("GET", "/v1/menu")))["status"]

# A change whose body never comes: reset by the server within the body deadline (10 s); the connection goes on.
stream = client.h2.get_next_available_stream_id()
client.h2.send_headers(stream, head("POST", "/v1/orders", "h2-stalled", len(ORDER)))
client.h2.send_data(stream, ORDER[:10])
client.flush()
began = time.monotonic()
stalled = client.answer(stream, timeout=25)
report["stalledReset"] = stalled["reset"] and stalled["status"] is None
report["stalledSeconds"] = round(time.monotonic() - began, 1)
report["afterStalled"] = client.answer(client.request(head("POST", "/v1/orders", "h2-after-stalled", len(ORDER)), ORDER))["status"]
report["closed"] = client.closed
print(json.dumps(report))
