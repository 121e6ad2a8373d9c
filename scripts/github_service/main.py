"""scripts/github-service: load the data, listen, say so, serve until told to stop."""

import os
import signal
import sys
import threading

from . import options as command_line
from .catalog import CatalogError
from .dataset import Dataset
from .server import Server
from .service import Service


def main(arguments):
    options = command_line.parse(arguments)
    try:
        dataset = Dataset(options.fixtures)
    except (CatalogError, OSError) as error:
        print(f"error: the data cannot be loaded: {error}", file=sys.stderr)
        return 1
    service = Service(dataset, options)
    try:
        server = Server(options.port, service, options)
    except OSError as error:
        print(f"error: cannot listen on 127.0.0.1:{options.port}: {error.strerror}", file=sys.stderr)
        return 1

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent may have started it with these signals blocked (Foundation's Process passes the
    # mask of its thread on); a service that cannot be stopped would outlive its test.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    if options.drift_seconds:
        start_thread(lambda: drift(service, options.drift_seconds))
    if options.exit_on_stdin_eof:
        start_thread(lambda: exit_at_end_of_input())
    # The socket listens already: a connection made from now on is accepted.
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except SystemExit:
        pass
    finally:
        server.server_close()
    return 0


def start_thread(work):
    threading.Thread(target=work, daemon=True).start()


def drift(service, seconds):
    while not threading.Event().wait(seconds):
        service.advance(1)


def exit_at_end_of_input():
    # The descriptor, not sys.stdin: a thread blocked in the buffered reader holds its lock, and
    # the interpreter's exit would wait for that lock.
    while os.read(0, 4096):
        pass
    os.kill(os.getpid(), signal.SIGTERM)
