# A local stand-in for the referral service (127.0.0.1 only), for the example host and the tests.
# POST /v1/token -> {"access_token"}; GET /v1/token -> 200 if the bearer token is valid, else 401;
# POST /v1/identify {"email"} -> 200, 400 for an invalid email, 401 for an invalid token;
# DELETE /v1/token -> 200 (the token stops being valid); POST /v1/share -> 200 (401 for an invalid token).
# Test controls: POST /control/expire (every token expires), POST /control/fail?n=N (the next N requests
# answer 503), GET /log (the requests seen). Prints its port on the first line, then serves until it is
# interrupted (Ctrl-C, SIGTERM) — or, with --until-stdin-closes (what the tests use), until its standard
# input closes. Optional: --port N (default: a free port).
import http.server, json, signal, sys, threading, urllib.parse

lock = threading.Lock()
tokens = set()
seen = []
state = {"next": 0, "fail": 0}

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = json.dumps(body).encode("utf-8") if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        url = urllib.parse.urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8") if length else ""
        token = (self.headers.get("Authorization") or "").replace("Bearer ", "")
        with lock:
            if url.path.startswith("/control/"):
                if url.path == "/control/expire":
                    tokens.clear()
                elif url.path == "/control/fail":
                    state["fail"] = int(urllib.parse.parse_qs(url.query).get("n", ["1"])[0])
                return self.reply(200, {})
            if url.path == "/log":
                return self.reply(200, seen)
            seen.append({"method": method, "path": url.path, "body": raw,
                         "headers": {k: v for k, v in self.headers.items()}})
            if state["fail"] > 0:
                state["fail"] -= 1
                return self.reply(503, {"message": "try again"})
            if url.path == "/v1/token" and method == "POST":
                state["next"] += 1
                t = "tok-%d" % state["next"]
                tokens.add(t)
                return self.reply(200, {"access_token": t})
            if token not in tokens:
                return self.reply(401, {"message": "invalid or expired token"})
            if url.path == "/v1/token" and method == "GET":
                return self.reply(200, {"valid": True})
            if url.path == "/v1/token" and method == "DELETE":
                tokens.discard(token)
                return self.reply(200, {})
            if url.path == "/v1/identify":
                email = (json.loads(raw or "{}").get("email") or "")
                if "@" not in email:
                    return self.reply(400, {"message": "invalid email"})
                return self.reply(200, {"email": email})
            if url.path == "/v1/share":
                return self.reply(200, {})
            return self.reply(404, {"message": "no such endpoint"})

    def do_GET(self): self.handle_any("GET")
    def do_POST(self): self.handle_any("POST")
    def do_DELETE(self): self.handle_any("DELETE")

port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
print(server.server_address[1], flush=True)
if "--until-stdin-closes" in sys.argv:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()
else:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
