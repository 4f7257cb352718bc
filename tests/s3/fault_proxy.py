"""A TCP proxy between bale and the S3 gateway that makes the network's
troubles on demand (this kernel has no netem). It knows where HTTP
requests start (a body's end by its Content-Length) and counts them.

    fault_proxy.py UPSTREAM_PORT [--latency MS] [--slowdown-every K]
        [--drop-every K] [--stall-every K] [--down-after N --down-for S]
        [--deny-put TEXT] [--log FILE]

prints its port, then serves until killed.
  --latency MS       each byte arrives MS/2 later each way: a round trip
                     of MS more, the bandwidth unchanged
  --slowdown-every K every K-th request answered 503 SlowDown (S3's XML;
                     one with a body: then the connection is closed)
  --drop-every K     every K-th request's answer cut after its first 100
                     bytes, the connection closed
  --stall-every K    every K-th request's answer never comes
  --down-after N --down-for S
                     after N requests, every connection refused for S
                     seconds (a gateway restarted)
  --deny-put TEXT    every PUT whose target holds TEXT answered 403
                     AccessDenied (not retried: the write fails)
  --log FILE         each request's line and body length appended to
                     FILE ("PUT /b/k 1234")"""
import socket
import sys
import threading
import time
from collections import deque

ARGS = sys.argv[2:]


def opt(name, default=0.0):
    return float(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


UP = int(sys.argv[1])
DELAY = opt("--latency") / 2000.0
SLOWDOWN, DROP, STALL = (int(opt(n)) for n in
                         ("--slowdown-every", "--drop-every", "--stall-every"))
DOWN_AFTER, DOWN_FOR = int(opt("--down-after")), opt("--down-for")
DENY_PUT = (ARGS[ARGS.index("--deny-put") + 1].encode()
            if "--deny-put" in ARGS else None)
LOG = open(ARGS[ARGS.index("--log") + 1], "a") if "--log" in ARGS else None
state = {"requests": 0, "down_until": 0.0}
lock = threading.Lock()
SLOWDOWN_BODY = (b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code>"
                 b"<Message>Please reduce your request rate.</Message>"
                 b"</Error>")
DENIED_BODY = (b"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code>"
               b"<Message>Access Denied</Message></Error>")


def count_request():
    """This request's number, and what to do to it."""
    with lock:
        state["requests"] += 1
        n = state["requests"]
        if DOWN_AFTER and n == DOWN_AFTER:
            state["down_until"] = time.time() + DOWN_FOR
    if SLOWDOWN and n % SLOWDOWN == 0:
        return "slowdown"
    if DROP and n % DROP == 0:
        return "drop"
    if STALL and n % STALL == 0:
        return "stall"
    return None


class Delayed:
    """Bytes sent on after DELAY, in order, without holding the reader."""

    def __init__(self, sock):
        self.sock, self.q, self.cv = sock, deque(), threading.Condition()
        self.closed = False
        threading.Thread(target=self._run, daemon=True).start()

    def send(self, data):
        with self.cv:
            self.q.append((time.time() + DELAY, data))
            self.cv.notify()

    def close(self):
        self.send(None)

    def _run(self):
        while True:
            with self.cv:
                while not self.q:
                    self.cv.wait()
                due, data = self.q.popleft()
            time.sleep(max(0.0, due - time.time()))
            try:
                if data is None:
                    self.sock.shutdown(socket.SHUT_RDWR)
                    return
                self.sock.sendall(data)
            except OSError:
                return


def content_length(head):
    """The Content-Length of a request's head, 0 without one."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip() or 0)
    return 0


def log_request(head, length):
    if LOG:
        method, target = head.split(b"\r\n", 1)[0].split(b" ")[:2]
        with lock:
            LOG.write("%s %s %d\n" % (method.decode(), target.decode(),
                                      length))
            LOG.flush()


def denied(head):
    """Is this request a PUT --deny-put refuses?"""
    line = head.split(b"\r\n", 1)[0]
    return bool(DENY_PUT) and line.startswith(b"PUT ") and DENY_PUT in line


def answer(client, status, body, length):
    """Answer without the gateway; a request with a body is not waited
    for (its connection is closed)."""
    client.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/xml\r\n"
                   b"%sContent-Length: %d\r\n\r\n%s" %
                   (status, b"Connection: close\r\n" if length else b"",
                    len(body), body))
    if length:
        client.shutdown(socket.SHUT_RDWR)
        raise OSError("closed")


def pump_up(client, upstream, to_up, fault):
    """Client to gateway: requests counted at their start, bodies sent
    on as they come."""
    buf = b""
    body_left = 0
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            buf += data
            while buf:
                if body_left:
                    take = buf[:body_left]
                    buf = buf[len(take):]
                    body_left -= len(take)
                    to_up.send(take)
                    continue
                if b"\r\n\r\n" not in buf:
                    break
                head, buf = buf.split(b"\r\n\r\n", 1)
                length = content_length(head)
                fault[0] = count_request()
                log_request(head, length)
                if denied(head):
                    answer(client, b"403 Forbidden", DENIED_BODY, length)
                    continue
                if fault[0] == "slowdown":
                    answer(client, b"503 Slow Down", SLOWDOWN_BODY, length)
                    continue
                to_up.send(head + b"\r\n\r\n")
                body_left = length
    except OSError:
        pass
    to_up.close()


def pump_down(client, upstream, fault):
    """Gateway to client: the current request's fault applied."""
    to_client = Delayed(client)
    sent = 0
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            if fault[0] == "stall":
                time.sleep(3600)
            if fault[0] == "drop":
                to_client.send(data[:100])
                break
            to_client.send(data)
            sent += len(data)
    except OSError:
        pass
    to_client.close()


def serve(client):
    if time.time() < state["down_until"]:
        client.close()
        return
    try:
        upstream = socket.create_connection(("127.0.0.1", UP))
    except OSError:  # the gateway is down: as if it were
        client.close()
        return
    for s in (client, upstream):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    fault = [None]
    threading.Thread(target=pump_up, daemon=True,
                     args=(client, upstream, Delayed(upstream),
                           fault)).start()
    pump_down(client, upstream, fault)


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(256)
print(listener.getsockname()[1], flush=True)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
