# A rules publisher on 127.0.0.1 for the remote-rules tests: serves the files of --root with ETag and
# Last-Modified, answers conditional GETs with 304, and misbehaves on request:
#   /_status/CODE            answers CODE
#   /_redirect/N/PATH        redirects N times, then to /PATH
#   /_slow/SECONDS/PATH      waits, then serves /PATH
#   /_reset/PATH             promises the whole body, sends half, closes the connection
#   /_noetag/PATH            serves /PATH with Last-Modified alone (validated by If-Modified-Since)
#   /_log                    the requests seen (path and headers), as JSON
# Prints its port on the first line of stdout; exits when stdin closes.
import email.utils, hashlib, http.server, json, os, sys, threading, time

root = sys.argv[sys.argv.index("--root") + 1]
seen = []
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/_log":
            with lock:
                data = json.dumps(seen).encode()
            return self.answer(200, data, [("Content-Type", "application/json")])
        with lock:
            seen.append({"path": self.path, "headers": {k: v for k, v in self.headers.items()}})
        parts = path.strip("/").split("/")
        if parts[0] == "_status":
            return self.answer(int(parts[1]), b"no")
        if parts[0] == "_redirect":
            n = int(parts[1])
            rest = "/".join(parts[2:])
            target = "/" + rest if n <= 1 else "/_redirect/%d/%s" % (n - 1, rest)
            return self.answer(302, b"", [("Location", target)])
        if parts[0] == "_slow":
            time.sleep(float(parts[1]))
            parts = parts[2:]
        reset = parts[0] == "_reset"
        if reset:
            parts = parts[1:]
        noetag = parts[0] == "_noetag"
        if noetag:
            parts = parts[1:]
        file = os.path.join(root, *parts)
        if not os.path.isfile(file):
            return self.answer(404, b"not found")
        with open(file, "rb") as f:
            body = f.read()
        etag = '"%s"' % hashlib.sha1(body).hexdigest()
        mtime = int(os.path.getmtime(file))
        modified = email.utils.formatdate(mtime, usegmt=True)
        since = self.headers.get("If-Modified-Since")
        if (not noetag and self.headers.get("If-None-Match") == etag) or (
            self.headers.get("If-None-Match") is None and since and email.utils.parsedate_to_datetime(since).timestamp() >= mtime
        ):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        if reset:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        validators = [("Last-Modified", modified)] if noetag else [("ETag", etag), ("Last-Modified", modified)]
        self.answer(200, body, validators + [("Content-Type", "application/zip")])

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that gave up (a time-out test) is expected

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
