#!/usr/bin/env python3
"""`make serve`: serve dist/ as a good static host would, with Python's standard library only.

python3 -m http.server, plus what a room of a hundred students needs from a lecturer's laptop:
- a listen backlog of 512 (http.server's is 5: a burst of connections then waits for TCP
  retransmits, 1 s, 3 s, 7 s… — measured by `make load`, docs/deploy.md);
- HTTP/1.1 keep-alive;
- the pre-compressed copies dist/ holds (x.br, x.gz) when the browser accepts them;
- the headers docs/deploy.md asks of a host: application/wasm, text/javascript,
  application/manifest+json; hashed files cached for a year, everything else revalidated;
- cross-origin isolation (issue 21): `Cross-Origin-Opener-Policy: same-origin` and
  `Cross-Origin-Embedder-Policy: require-corp` on every response, so `crossOriginIsolated` is
  true and paper B's worker loads the threaded wasm (SharedArrayBuffer); `--no-isolation` leaves
  them out, as a plain static host does (the pages then use the one-thread build, or the service
  worker adds the headers: www/sw.js).
Usage: python3 tools/serve.py [--port 8000] [--bind 127.0.0.1] [--directory dist] [--no-isolation]
"""
import argparse
import http.server
import os
import re
import sys

HASHED = re.compile(r"\.[0-9a-f]{10}\.(?:js|mjs|css|wasm)$")


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".webmanifest": "application/manifest+json",
        ".svg": "image/svg+xml",
    }

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if self.path.split("?", 1)[0].endswith("/") and os.path.isfile(index):
                path = index
            else:
                return super().send_head()  # the directory redirect or listing
        if not os.path.isfile(path):
            return super().send_head()
        accepted = self.headers.get("Accept-Encoding", "")
        for enc, ext in (("br", ".br"), ("gzip", ".gz")):
            if re.search(rf"\b{enc}\b", accepted) and os.path.isfile(path + ext):
                return self._send(path + ext, self.guess_type(path), enc)
        return self._send(path, self.guess_type(path), None)

    def _send(self, file, ctype, encoding):
        try:
            f = open(file, "rb")
        except OSError:
            self.send_error(404, "File not found")
            return None
        st = os.fstat(f.fileno())
        mtime = self.date_time_string(st.st_mtime)
        if self.headers.get("If-Modified-Since") == mtime and not self.headers.get("If-None-Match"):
            f.close()
            self.send_response(304)
            self._caching()
            self.send_header("Last-Modified", mtime)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(st.st_size))
        self.send_header("Last-Modified", mtime)
        self._caching()
        self.end_headers()
        return f

    def end_headers(self):
        if self.server.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            # cross-origin, not same-origin: the site is meant to be framed by course pages
            # (embed.html, ?embed=step), and a course page that is itself isolated may only
            # frame documents that allow it. Our own page's requests are same-origin anyway.
            self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        super().end_headers()

    def _caching(self):
        clean = self.path.split("?", 1)[0]
        cc = "public, max-age=31536000, immutable" if HASHED.search(clean) else "no-cache"
        self.send_header("Cache-Control", cc)


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 512
    daemon_threads = True
    isolate = True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--directory", default="dist")
    p.add_argument("--no-isolation", action="store_true", help="no COOP/COEP headers")
    a = p.parse_args()
    if not os.path.isdir(a.directory):
        sys.exit(f"{a.directory} is missing: run make dist")
    handler = lambda *args, **kw: Handler(*args, directory=a.directory, **kw)  # noqa: E731
    with Server((a.bind, a.port), handler) as s:
        s.isolate = not a.no_isolation
        host, port = s.server_address[:2]
        print(f"Serving HTTP on {host} port {port} (http://{host}:{port}/) ...", flush=True)
        try:
            s.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
