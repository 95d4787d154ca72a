#!/usr/bin/env python3
"""Serves a folder on 127.0.0.1, .wasm as application/wasm (which
WebAssembly.instantiateStreaming requires), and prints the address.

Usage: serve.py [--timeout SECONDS] [--connections N] FOLDER PORT

FOLDER is taken as typed, relative to the current directory; PORT 0 picks a
free port. Each connection gets a worker thread, at most N at once (default
32): a connection beyond them is answered 503 at once. A connection must send
its whole request head within SECONDS (default 10), and each later read or
write must progress within SECONDS, or it is closed. A malformed request (a
path that percent-decodes to a NUL or to bytes that are not UTF-8) is answered
400. A usage mistake prints one line and exits with 2.
"""
import http.server
import os
import socket
import sys
import threading
import urllib.parse

USAGE = "usage: serve.py [--timeout SECONDS] [--connections N] FOLDER PORT"
DEFAULT_TIMEOUT = 10.0
DEFAULT_CONNECTIONS = 32


class UsageError(Exception):
    pass


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".tp": "text/plain; charset=utf-8",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=args[2].folder, **kwargs)

    def setup(self):
        self.timeout = self.server.connection_timeout  # each read and write on the socket
        super().setup()
        # The whole request head within the timeout, however slowly it trickles in.
        self.watchdog = threading.Timer(self.timeout, self.cut)
        self.watchdog.daemon = True
        self.watchdog.start()

    def cut(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def parse_request(self):
        parsed = super().parse_request()  # reads the headers
        self.watchdog.cancel()
        return parsed

    def finish(self):
        self.watchdog.cancel()
        try:
            super().finish()
        except OSError:
            pass

    def malformed(self):
        """Answers 400 and True for a path no file can have."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        try:
            decoded = urllib.parse.unquote(path, errors="strict")
        except UnicodeDecodeError:
            self.send_error(400, "The path is not UTF-8 once percent-decoded")
            return True
        if "\0" in decoded:
            self.send_error(400, "The path holds a NUL byte")
            return True
        return False

    def do_GET(self):
        if not self.malformed():
            super().do_GET()

    def do_HEAD(self):
        if not self.malformed():
            super().do_HEAD()

    def log_message(self, format, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    """A thread per connection, at most `connections` at once."""

    def __init__(self, address, folder, timeout, connections):
        self.folder = folder
        self.connection_timeout = timeout
        self.slots = threading.BoundedSemaphore(connections)
        super().__init__(address, Handler)

    def process_request(self, request, client_address):
        if not self.slots.acquire(blocking=False):
            self.refuse_busy(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def refuse_busy(self, request):
        body = b"The playground's server is busy; try again.\n"
        head = (
            "HTTP/1.0 503 Service Unavailable\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Retry-After: 1\r\n"
            "Connection: close\r\n\r\n"
        ).encode("ascii")
        try:
            request.setblocking(False)
            try:
                request.recv(65536)  # what has come, so that closing sends no reset
            except OSError:
                pass
            request.sendall(head + body)
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # a client gone, reset or too slow
            return
        print(f"serve.py: a request from {client_address[0]}:{client_address[1]} failed: "
              f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)


def positive(value, kind, what):
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or not number > 0 or number != number or number == float("inf"):
        raise UsageError(f"{what} must be a positive number, not `{value}`")
    return number


def parse(arguments):
    timeout, connections, positional = DEFAULT_TIMEOUT, DEFAULT_CONNECTIONS, []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument in ("--timeout", "--connections"):
            if index + 1 >= len(arguments):
                raise UsageError(f"{argument} needs a value")
            value = arguments[index + 1]
            index += 2
            if argument == "--timeout":
                timeout = positive(value, float, "--timeout")
            else:
                connections = positive(value, int, "--connections")
        elif argument.startswith("--"):
            raise UsageError(f"unknown option `{argument}`")
        else:
            positional.append(argument)
            index += 1
    if len(positional) != 2:
        raise UsageError("give FOLDER and PORT")
    folder, port_text = positional
    if not os.path.isdir(folder):
        raise UsageError(f"no folder `{folder}`")
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise UsageError(f"PORT must be a whole number from 0 to 65535, not `{port_text}`")
    return os.path.abspath(folder), port, timeout, connections


def main():
    try:
        folder, port, timeout, connections = parse(sys.argv[1:])
    except UsageError as error:
        print(f"serve.py: {error} ({USAGE})", file=sys.stderr)
        return 2
    try:
        server = Server(("127.0.0.1", port), folder, timeout, connections)
    except OSError as error:
        print(f"serve.py: cannot listen on 127.0.0.1:{port}: {error.strerror}", file=sys.stderr)
        return 1
    with server:
        print(f"playground: http://127.0.0.1:{server.server_address[1]}/", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
