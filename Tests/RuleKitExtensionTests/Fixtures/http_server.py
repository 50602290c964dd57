# A local HTTP server playing a collection endpoint for the outbound transport tests (127.0.0.1 only).
# POST /ok -> 200; POST /flaky -> 503 twice, then 200; POST /bad -> 400; GET /log -> the requests seen.
# Prints its port on the first line of stdout; exits when stdin closes.
import http.server, json, sys, threading

seen = []
counts = {}

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8")
        counts[self.path] = counts.get(self.path, 0) + 1
        seen.append({"path": self.path, "headers": {k: v for k, v in self.headers.items()}, "body": body})
        if self.path == "/bad":
            status = 400
        elif self.path == "/flaky" and counts[self.path] <= 2:
            status = 503
        else:
            status = 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        data = json.dumps(seen).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
