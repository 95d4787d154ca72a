#!/usr/bin/env python3
"""tools/play/serve.py, the playground's server, bounds what a client can hold
and refuses what it must: a connection that never finishes its request is
closed after the timeout; connections beyond the bound are answered 503; a
path that percent-decodes to a NUL or to bytes that are not UTF-8 is answered
400 without a traceback; a bad PORT or a missing FOLDER is a one-line usage
error with exit status 2; and tools/playground serves a relative DIR from the
directory it is run in.

usage: tests/tools/serve_test.py ROOT
"""
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
SERVE = ROOT / "tools" / "play" / "serve.py"
PLAYGROUND = ROOT / "tools" / "playground"
TIMEOUT = 0.5  # the server's, for these tests


def address_of(process):
    """The port a started server prints, or a failure with what it wrote."""
    line = process.stdout.readline()
    if not line.startswith("playground: http://127.0.0.1:"):
        process.kill()
        raise AssertionError(f"the server did not start: {line!r} {process.stderr.read()!r}")
    return int(line.strip().rstrip("/").rsplit(":", 1)[1])


class Served:
    """serve.py on a temporary folder holding index.html and a .wasm file."""

    def __init__(self, *options):
        self.options = options

    def __enter__(self):
        self.folder = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.folder.name)
        (root / "index.html").write_text("<p>playground</p>\n")
        (root / "topos_playground.wasm").write_bytes(b"\0asm\1\0\0\0")
        self.process = subprocess.Popen([sys.executable, str(SERVE), *self.options, str(root), "0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.port = address_of(self.process)
        return self

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def stop(self):
        """Stops the server; answers what it wrote on standard error."""
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err

    def __exit__(self, *exception):
        if self.process.poll() is None:
            self.stop()
        self.process.stdout.close()
        self.process.stderr.close()
        self.folder.cleanup()


def answer(connection, request):
    """The status line the server answers `request` with, or b'' if it closed."""
    connection.sendall(request)
    received = b""
    while b"\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    return received.split(b"\r\n", 1)[0]


class Serve(unittest.TestCase):
    def test_serves_files_and_wasm_as_application_wasm(self):
        with Served("--timeout", str(TIMEOUT)) as served:
            with served.connect() as connection:
                connection.sendall(b"GET /topos_playground.wasm HTTP/1.0\r\n\r\n")
                received = b""
                while chunk := connection.recv(4096):
                    received += chunk
            self.assertTrue(received.startswith(b"HTTP/1.0 200"), received[:100])
            self.assertIn(b"Content-type: application/wasm", received)
            self.assertTrue(received.endswith(b"\0asm\1\0\0\0"))

    def test_closes_a_connection_that_never_finishes_its_request(self):
        with Served("--timeout", str(TIMEOUT)) as served:
            with served.connect() as connection:
                started = time.monotonic()
                connection.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")  # no blank line
                closed = connection.recv(4096)
                elapsed = time.monotonic() - started
            self.assertEqual(closed, b"")
            self.assertGreaterEqual(elapsed, TIMEOUT * 0.8)
            self.assertLess(elapsed, TIMEOUT + 5)

    def test_closes_a_connection_that_trickles_its_request_past_the_timeout(self):
        with Served("--timeout", str(TIMEOUT)) as served:
            with served.connect() as connection:
                started = time.monotonic()
                closed = False
                for byte in b"GET /index.html HTTP/1.0\r\nX-Slow: " + b"y" * 100:
                    try:
                        connection.sendall(bytes([byte]))
                    except OSError:
                        closed = True
                        break
                    time.sleep(TIMEOUT / 5)
                    if time.monotonic() - started > TIMEOUT * 6:
                        break
                if not closed:
                    connection.settimeout(TIMEOUT * 4)
                    try:
                        closed = connection.recv(4096) == b""
                    except TimeoutError:
                        closed = False
                    except OSError:  # reset: closed as well
                        closed = True
            self.assertTrue(closed)
            self.assertLess(time.monotonic() - started, TIMEOUT * 6 + 5)

    def test_answers_503_beyond_the_connection_bound_and_serves_again_after(self):
        with Served("--timeout", "5", "--connections", "2") as served:
            idle = [served.connect(), served.connect()]
            for connection in idle:
                connection.sendall(b"GET / HTTP/1.0\r\n")  # held open, unfinished
            time.sleep(0.3)
            with served.connect() as connection:
                self.assertEqual(answer(connection, b""), b"HTTP/1.0 503 Service Unavailable")
            for connection in idle:
                connection.close()
            time.sleep(0.3)
            with served.connect() as connection:
                status = answer(connection, b"GET /index.html HTTP/1.0\r\n\r\n")
            self.assertTrue(status.startswith(b"HTTP/1.0 200"), status)

    def test_answers_400_to_a_nul_or_a_path_that_is_not_utf8_without_a_traceback(self):
        with Served("--timeout", str(TIMEOUT)) as served:
            for path in (b"/%00", b"/index.html%00.js", b"/%ff%fe", b"/%ed%a0%80"):
                with served.connect() as connection:
                    status = answer(connection, b"GET " + path + b" HTTP/1.0\r\n\r\n")
                self.assertTrue(status.startswith(b"HTTP/1.0 400"), (path, status))
            with served.connect() as connection:
                status = answer(connection, b"GET /index.html HTTP/1.0\r\n\r\n")
            self.assertTrue(status.startswith(b"HTTP/1.0 200"), status)
            err = served.stop()
        self.assertNotIn("Traceback", err)

    def test_a_bad_port_or_a_missing_folder_is_a_one_line_usage_error(self):
        with tempfile.TemporaryDirectory() as folder:
            for arguments in ([folder, "http"], [folder, "70000"], [folder, "-1"],
                              [folder + "/missing", "0"], [folder], [],
                              ["--timeout", "soon", folder, "0"], ["--frobnicate", folder, "0"]):
                result = subprocess.run([sys.executable, str(SERVE), *arguments],
                                        capture_output=True, text=True, timeout=10)
                self.assertEqual(result.returncode, 2, (arguments, result.stderr))
                self.assertEqual(len(result.stderr.splitlines()), 1, (arguments, result.stderr))
                self.assertTrue(result.stderr.startswith("serve.py: "), result.stderr)
                self.assertEqual(result.stdout, "")

    def test_the_playground_serves_a_relative_folder_from_where_it_is_run(self):
        with tempfile.TemporaryDirectory() as caller:
            page = pathlib.Path(caller) / "page"
            page.mkdir()
            (page / "index.html").write_text("<p>the caller's page</p>\n")
            (page / "topos_playground.wasm").write_bytes(b"\0asm\1\0\0\0")
            process = subprocess.Popen([str(PLAYGROUND), "serve", "page", "0"], cwd=caller,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                port = address_of(process)
                with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
                    connection.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
                    received = b""
                    while chunk := connection.recv(4096):
                        received += chunk
                self.assertTrue(received.endswith(b"<p>the caller's page</p>\n"), received)
            finally:
                process.terminate()
                process.communicate(timeout=10)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    unittest.main(verbosity=2)
