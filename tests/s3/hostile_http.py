"""An HTTP server of the files in a folder, answering ranged GETs of
its .tar files wrongly, one way chosen at start; every other request is
answered properly. bale must refuse each wrong answer with a sentence
that says what was wrong, retry it a bounded number of times, never
hang and never hand on wrong bytes.

    hostile_http.py DIR MODE [--every K]

prints its port, then serves until killed. MODE:
  long-length  Content-Length over the bytes sent, then the connection
               closed (a body cut short)
  short-body   the range's first half, its headers claiming all of it
  other-range  a 206 for a range one byte on from the one asked
  more-bytes   a 206 of more bytes than asked (its headers honest)
  whole        a 200 with the whole file, as if Range were ignored
  html-503     a 503 whose body is HTML, not S3's XML
  garbage-403  a 403 whose body is not XML at all
  fine         nothing wrong
--every K: only every K-th .tar GET is answered wrongly (1: all).
--only NAME: only the GETs of the file NAME are."""
import http.server
import os
import re
import sys
import threading

ROOT, MODE = sys.argv[1], sys.argv[2]
EVERY = int(sys.argv[sys.argv.index("--every") + 1]) \
    if "--every" in sys.argv else 1
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv \
    else None
COUNT = [0]
LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True   # no 40 ms wait between writes

    def log_message(self, *args):
        pass

    def _file(self):
        path = os.path.join(ROOT, self.path.lstrip("/").split("?")[0])
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def _send(self, status, body, headers=(), length=None):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length",
                         str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        if length is not None and length != len(body):
            self.close_connection = True

    def do_HEAD(self):
        self.do_GET()

    def _wrong(self):
        with LOCK:
            COUNT[0] += 1
            return COUNT[0] % EVERY == 0

    def do_GET(self):
        data = self._file()
        if data is None:
            return self._send(404, b"")
        m = re.match(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if not m or self.command == "HEAD":
            return self._send(200, data)
        lo, hi = int(m.group(1)), int(m.group(2))
        part = data[lo:hi + 1]
        total = len(data)
        wrong = self.path.endswith(".tar") and MODE != "fine" and \
            (ONLY is None or self.path.endswith("/" + ONLY)) and \
            self._wrong()
        rng = ("Content-Range", f"bytes {lo}-{hi}/{total}")
        if not wrong:
            return self._send(206, part, [rng])
        if MODE == "long-length":
            return self._send(206, part, [rng], length=len(part) + 100)
        if MODE == "short-body":
            return self._send(206, part[:len(part) // 2], [rng],
                              length=len(part))
        if MODE == "other-range":
            return self._send(206, data[lo + 1:hi + 2], [
                ("Content-Range", f"bytes {lo + 1}-{hi + 1}/{total}")])
        if MODE == "more-bytes":
            more = data[lo:hi + 101]
            return self._send(206, more, [
                ("Content-Range", f"bytes {lo}-{lo + len(more) - 1}/"
                 f"{total}")])
        if MODE == "whole":
            return self._send(200, data)
        if MODE == "html-503":
            return self._send(503, b"<html><body>busy</body></html>")
        if MODE == "garbage-403":
            return self._send(403, b"\x00\xffnot xml <Error><Code>")
        raise SystemExit(f"unknown mode {MODE}")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
