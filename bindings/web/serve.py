#!/usr/bin/env python3
"""bindings/web/serve.py DIR PORT - serves DIR over HTTP on 127.0.0.1:PORT
with the types a browser insists on for ES modules and WebAssembly: the
static server of the demo page and of its browser test."""
import functools
import http.server
import signal
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm'}

    def log_message(self, format, *args):   # quiet: the stack's log is for the servers
        pass


def main():
    root, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(Handler, directory=root)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # a clean stop, as the stack's other servers
    with http.server.ThreadingHTTPServer(('127.0.0.1', port), handler) as httpd:
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == '__main__':
    main()
