#!/usr/bin/python3
"""A TCP proxy that loses connections the way a shop's Wi-Fi does: the order API's lossy-network test puts it
between the tills (each in a network namespace of its own) and pizzad.

    faulty_proxy.py SEED TARGET_PORT LISTEN_ADDRESS:PORT [LISTEN_ADDRESS:PORT ...]

Each connection draws one fault: none, a delay, a stall (nothing forwarded; the till times out), a reset before
anything reaches pizzad, a cut or a reset once the request has reached pizzad but before its answer reaches the
till, or a delay of the answer. It prints `ready` once listening, then one line per connection with its fault, and
runs until killed.
"""
import asyncio
import random
import socket
import struct
import sys

FAULTS = [
    ("clean", 30),
    ("delay", 12),  # the request waits 0.3-1.5 s before it is forwarded
    ("stall", 12),  # nothing is forwarded; the connection just hangs
    ("reset-before", 10),  # RST before a byte reaches pizzad
    ("cut-after", 14),  # the request reaches pizzad, its answer is dropped and the connection closed
    ("reset-after", 12),  # the request reaches pizzad, the till gets an RST instead of the answer
    ("slow-answer", 10),  # the answer waits 1-3 s (longer than some tills wait)
]


def draw(rng):
    total = sum(weight for _, weight in FAULTS)
    pick = rng.uniform(0, total)
    for name, weight in FAULTS:
        pick -= weight
        if pick <= 0:
            return name
    return "clean"


def reset(writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.close()


async def pump(reader, writer, hold=None):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if hold is not None:
                await hold(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def handle(client_reader, client_writer, rng, target_port):
    fault = draw(rng)
    print(fault, flush=True)
    if fault == "reset-before":
        reset(client_writer)
        return
    if fault == "stall":
        await asyncio.sleep(30)
        client_writer.close()
        return
    if fault == "delay":
        await asyncio.sleep(rng.uniform(0.3, 1.5))
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        reset(client_writer)
        return

    async def answer(data):
        if fault == "slow-answer":
            await asyncio.sleep(rng.uniform(1.0, 3.0))
        elif fault in ("cut-after", "reset-after"):
            # The request reached pizzad and was answered: the answer is lost on the way back.
            if fault == "reset-after":
                reset(client_writer)
            else:
                client_writer.close()
            server_writer.close()
            raise ConnectionError("lost on the way back")

    await asyncio.gather(
        pump(client_reader, server_writer), pump(server_reader, client_writer, hold=answer))


async def main():
    seed, target_port, listens = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    rng = random.Random(seed)
    servers = []
    for listen in listens:
        host, port = listen.rsplit(":", 1)
        servers.append(
            await asyncio.start_server(
                lambda r, w: handle(r, w, rng, target_port), host, int(port), reuse_address=True))
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


asyncio.run(main())
