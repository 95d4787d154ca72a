#!/usr/bin/env python3
"""Serves a folder on 127.0.0.1, .wasm as application/wasm (which
WebAssembly.instantiateStreaming requires), and prints the address.

Usage: serve.py FOLDER PORT   (PORT 0 picks a free one)
"""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".tp": "text/plain; charset=utf-8",
    }

    def log_message(self, format, *args):
        pass


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    folder, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(Handler, directory=folder)
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"playground: http://127.0.0.1:{server.server_address[1]}/", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
