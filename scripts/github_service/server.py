"""HTTP over a loopback socket: routes requests to the service and writes its answers, with the
latency and the faults the options ask for. The control endpoints under /_service/ are the
service's own (a test advances the epoch or arms a fault through them); GitHub has none."""

import http.server
import select
import socket
import sys
import time
import traceback
import urllib.parse

from . import errors
from .service import JSON_HEADERS, Answer, encode

SEARCH_PATH = "/search/repositories"


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, service, options):
        self.service = service
        self.options = options
        super().__init__(("127.0.0.1", port), Handler)

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer is normal (a newer search cancelled it).
        if self.options.log:
            super().handle_error(request, client_address)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "livelog-github-service"

    def version_string(self):
        return self.server_version

    def do_GET(self):
        self.guarded(lambda: self.route(send_body=True))

    def do_HEAD(self):
        self.guarded(lambda: self.route(send_body=False))

    def guarded(self, work):
        """A bug of the service is a 500 with GitHub's body, and a traceback on standard error,
        rather than a connection that closes without an answer."""
        try:
            work()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:
            traceback.print_exc()
            self.deliver(failure(errors.ServiceError(500, {"message": "Server Error"})), True, False)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urllib.parse.urlsplit(self.path)
        arguments = first_values(url.query)
        service = self.server.service
        try:
            if url.path == "/_service/advance":
                state = service.advance(int(arguments.get("epochs", "1")))
            elif url.path == "/_service/fault":
                state = service.arm(arguments.get("kind", ""), int(arguments.get("count", "1")))
            else:
                raise errors.not_found()
            self.deliver(Answer(200, dict(JSON_HEADERS), encode(state)), send_body=True, delay=False)
        except ValueError:
            self.deliver(failure(errors.ServiceError(422, {"message": "epochs and count are whole numbers"})), True, False)
        except errors.ServiceError as error:
            self.deliver(failure(error), send_body=True, delay=False)

    def route(self, send_body):
        url = urllib.parse.urlsplit(self.path)
        service = self.server.service
        if url.path.rstrip("/") == SEARCH_PATH:
            host = self.headers.get("Host") or "127.0.0.1:%d" % self.server.server_address[1]
            answer = service.search(
                first_values(url.query), url.query, self.headers, self.client_address[0], f"http://{host}")
            self.deliver(answer, send_body, delay=True)
        elif url.path == "/_service/state":
            self.deliver(Answer(200, dict(JSON_HEADERS), encode(service.state())), send_body, delay=False)
        else:
            self.deliver(failure(errors.not_found()), send_body, delay=False)

    def deliver(self, answer, send_body, delay):
        if delay and self.server.options.latency:
            service = self.server.service
            service.hold()
            hung_up = not self.wait(self.server.options.latency / 1000)
            service.release(abandoned=hung_up)
            if hung_up:
                self.close_connection = True
                return
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        if answer.status != 304:
            self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if not send_body or answer.status == 304:
            return
        if answer.fault == "close-mid-body":
            # Everything announced, half of it sent, then the connection ends: what a dropped
            # connection or a crashed proxy looks like to the client.
            self.wfile.write(answer.body[:len(answer.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.wfile.write(answer.body)

    def wait(self, seconds):
        """Sleeps `seconds`, watching the connection: False as soon as the client hangs up."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(remaining, 0.05))
            if not readable:
                continue
            try:
                if not self.connection.recv(1, socket.MSG_PEEK):
                    return False
            except OSError:
                return False
            time.sleep(min(remaining, 0.05))  # a pipelined request waits its turn
        return True

    def log_message(self, format, *args):
        if self.server.options.log:
            sys.stderr.write("%s %s\n" % (self.log_date_time_string(), format % args))


def first_values(query):
    """Each parameter's first value ('+' is a space, as GitHub reads it)."""
    values = {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        values.setdefault(key, value)
    return values


def failure(error):
    return Answer(error.status, {**JSON_HEADERS, **error.headers}, encode(error.body))
