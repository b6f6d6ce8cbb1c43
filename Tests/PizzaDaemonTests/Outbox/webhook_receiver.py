"""A webhook receiver for pizzad's tests: every delivery is verified with PyPI's standardwebhooks (an
implementation nobody at pizzad wrote), and what it accepted is appended to a log, one JSON line each.

    webhook_receiver.py --secret whsec_... --log FILE [--script 500,timeout,429:1,200] [--tls CERT KEY]
                        [--always 410|redirect|slow]

It prints its port on the first line of stdout once it listens. --script gives the answers to the first requests in
turn (an HTTP status, `429:N` with Retry-After N, or `timeout`: no answer for 30 s); after it, every request is
accepted (200). A delivery whose signature does not verify is answered 401 and logged as `"verified": false`.
"""

import argparse
import http.server
import json
import ssl
import sys
import threading
import time

from standardwebhooks.webhooks import Webhook

parser = argparse.ArgumentParser()
parser.add_argument("--secret", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--script", default="")
parser.add_argument("--always", default="")
parser.add_argument("--tls", nargs=2)
arguments = parser.parse_args()

webhook = Webhook(arguments.secret)
script = [step for step in arguments.script.split(",") if step]
lock = threading.Lock()


def log(record):
    with lock:
        with open(arguments.log, "a") as file:
            file.write(json.dumps(record) + "\n")


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            payload = webhook.verify(body, headers)
        except Exception as error:
            log({"verified": False, "error": str(error), "id": headers.get("webhook-id")})
            self.answer(401)
            return
        if arguments.always == "410":
            log({"verified": True, "answered": 410, "id": headers["webhook-id"]})
            self.answer(410)
            return
        if arguments.always == "redirect":
            self.answer(307, [("location", "https://example.com/elsewhere")])
            return
        if arguments.always == "slow":
            time.sleep(60)
            return
        with lock:
            step = script.pop(0) if script else "200"
        if step == "timeout":
            time.sleep(30)
            return
        if step.startswith("429:"):
            log({"verified": True, "answered": 429, "id": headers["webhook-id"]})
            self.answer(429, [("retry-after", step[4:])])
            return
        status = int(step)
        record = {
            "verified": True, "answered": status, "id": headers["webhook-id"],
            "timestamp": int(headers["webhook-timestamp"]), "received": time.time(),
            "seq": payload["seq"], "kind": payload["kind"],
        }
        order = payload["order"]
        if order is None:
            # A change that belongs to no order: an item's availability, or a Z report.
            if "item" in payload:
                record["item"] = payload["item"]["name"]
                record["available"] = payload["item"]["available"]
            if "report" in payload:
                record["report"] = payload["report"]["number"]
        else:
            record["order"] = order["id"]
            record["status"] = order["status"]
        log(record)
        self.answer(status)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
server.daemon_threads = True
if arguments.tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.tls[0], arguments.tls[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
