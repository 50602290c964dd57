# A postback receiver on 127.0.0.1 for the postback tests: records every request it is sent (method, path,
# Idempotency-Key, Content-Type, body) and answers 200, or misbehaves on request:
#   /_status/CODE/...          answers CODE every time
#   /_fail/K/CODE/...          answers CODE to the first K requests of each Idempotency-Key, then 200
#   /_retryafter/K/SECONDS/... answers 429 with Retry-After: SECONDS to the first K of each key, then 200
#   /_slow/SECONDS/...         waits, then answers 200
#   /_close/...                answers 200 with Connection: close, and closes
#   /_log                      what it recorded, as JSON (GET)
# Listens on --port PORT when given (a receiver brought back where it was), else on a free port; over TLS with
# --tls CERT KEY. Each record has the client's port (`peer`: requests on one kept-alive connection share it). Prints its
# port on the first line of stdout; exits when stdin closes.
import http.server, json, sys, threading, time

seen = []
tries = {}
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One segment per answer: headers and body written apart would wait on the client's delayed ACK (Nagle).
    disable_nagle_algorithm = True
    wbufsize = 1 << 16

    def log_message(self, *args):
        pass

    def answer(self, status, headers=()):
        body = b"{}"
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        path = self.path.split("?")[0]
        if path == "/_log":
            with lock:
                data = json.dumps(seen).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        key = self.headers.get("Idempotency-Key") or ""
        parts = path.strip("/").split("/")
        with lock:
            n = tries.get((path, key), 0)
            tries[(path, key)] = n + 1
            seen.append({"method": self.command, "path": self.path, "key": key, "contentType": self.headers.get("Content-Type"),
                         "body": body, "at": time.time(), "authorization": self.headers.get("Authorization"),
                         "signature": self.headers.get("X-RuleKit-Signature"), "partner": self.headers.get("X-Partner"),
                         "peer": self.client_address[1]})
        if parts[0] == "_status":
            return self.answer(int(parts[1]))
        if parts[0] == "_fail" and n < int(parts[1]):
            return self.answer(int(parts[2]))
        if parts[0] == "_retryafter" and n < int(parts[1]):
            return self.answer(429, [("Retry-After", parts[2])])
        if parts[0] == "_close":
            return self.answer(200, [("Connection", "close")])
        if parts[0] == "_slow":
            time.sleep(float(parts[1]))
        self.answer(200)

    do_GET = handle_any
    do_POST = handle_any

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
server = Server(("127.0.0.1", port), Handler)
if "--tls" in sys.argv:
    import ssl
    at = sys.argv.index("--tls")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[at + 1], sys.argv[at + 2])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
if "--until-stdin-closes" in sys.argv:
    sys.stdin.read()
else:
    threading.Event().wait()
