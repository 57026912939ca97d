#!/usr/bin/env python3
"""A complete lprojd client in 20 lines: say hello, subscribe, print events."""
import json, os, socket, sys

path = os.environ.get("LPROJD_SOCKET") or (
    "/run/lprojd/lprojd.sock" if os.getuid() == 0 else
    os.path.join(os.environ["XDG_RUNTIME_DIR"], "lprojd.sock") if os.environ.get("XDG_RUNTIME_DIR") else
    f"/tmp/lprojd-{os.getuid()}/lprojd.sock")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
stream = sock.makefile("rwb")
def request(id, op, **fields):
    stream.write((json.dumps({"id": id, "op": op, **fields}) + "\n").encode()); stream.flush()
print(request(1, "hello", client="tail.py", protocol=1) or json.loads(stream.readline()))
request(2, "subscribe", name="py", **({"bundle": sys.argv[1]} if len(sys.argv) > 1 else {}))
for line in stream:  # the subscribe reply, then one event per line
    message = json.loads(line)
    print(message.get("event", "reply"), {k: v for k, v in message.items() if k not in ("sub", "event")})
