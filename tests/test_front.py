"""The front (app/front.py) on its own, in this process, with a stand-in for gunicorn behind it: what it passes on,
what it refuses, and its time bounds. The whole server with it is tested in tests/test_fairness.py."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import front

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


class Upstream:
    """A stand-in for gunicorn on a Unix socket: records each request it gets, answers ``ANSWER`` (without reading
    a body over the front's bound, as gunicorn answers 413 from the head)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.received: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data = await reader.readuntil(b"\r\n\r\n")
        length = re.search(rb"\r\nContent-Length: (\d+)", data, re.I)
        if length and int(length.group(1)) <= 1000:
            data += await reader.readexactly(int(length.group(1)))
        self.received.append(data)
        writer.write(ANSWER)
        await writer.drain()
        writer.close()


@pytest.fixture
def running() -> Iterator[tuple[int, Upstream]]:
    """The front on a free local port (header bound 0.5 s, body bound 0.5 s), the stand-in behind it."""
    settings = front.Settings(header=0.5, body=0.5, idle=0.5, send=2, connections=100, max_body=1000)
    private = tempfile.mkdtemp(prefix="front-test-")
    upstream = Upstream(os.path.join(private, "up.sock"))
    loop = asyncio.new_event_loop()
    started = threading.Event()
    port: list[int] = []
    stop: list[asyncio.Event] = []

    async def main() -> None:
        stop.append(asyncio.Event())
        behind = await asyncio.start_unix_server(upstream.handle, upstream.path)
        server = await asyncio.start_server(front.Front(settings, upstream.path).handle, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        started.set()
        await stop[0].wait()
        server.close()
        behind.close()
        others = asyncio.all_tasks() - {asyncio.current_task()}
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    assert started.wait(10)
    yield port[0], upstream
    loop.call_soon_threadsafe(stop[0].set)
    thread.join(10)
    loop.close()


def _exchange(port: int, data: bytes, pause: float = 0.0, rest: bytes = b"") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        if pause:
            time.sleep(pause)
            try:
                sock.sendall(rest)
            except OSError:
                pass
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_request_reaches_gunicorn_whole_with_the_clients_address(running):
    port, upstream = running
    answer = _exchange(port, b"POST /api/v1/evaluate HTTP/1.1\r\nHost: p\r\nContent-Length: 4\r\n"
                             b"Connection: close\r\n\r\nbody")
    assert answer.startswith(b"HTTP/1.1 200 OK") and answer.endswith(b"ok")
    (received,) = upstream.received
    proxy, _, rest = received.partition(b"\r\n")
    assert re.fullmatch(rb"PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+", proxy)
    assert rest.startswith(b"POST /api/v1/evaluate HTTP/1.1\r\n") and rest.endswith(b"\r\n\r\nbody")
    assert b"\r\nConnection: close\r\n" in rest  # gunicorn closes after its answer


def test_a_chunked_body_is_passed_on_with_its_length_and_100_continue_is_said_once(running):
    port, upstream = running
    answer = _exchange(port, b"POST /x HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n"
                             b"Connection: close\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK")
    received = upstream.received[0]
    assert b"\r\nContent-Length: 5\r\n" in received and received.endswith(b"abcde")
    assert b"chunked" not in received.lower() and b"expect" not in received.lower()


def test_a_connection_kept_alive_serves_request_after_request(running):
    port, upstream = running
    request = b"GET / HTTP/1.1\r\nHost: p\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        for _ in range(3):
            sock.sendall(request)
            answer = b""
            while not answer.endswith(b"ok"):
                answer += sock.recv(4096)
            assert b"\r\nConnection: keep-alive\r\n" in answer
    assert len(upstream.received) == 3


@pytest.mark.parametrize(("head", "status"), [
    (b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", b"400"),
    (b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", b"400"),
    (b"GET /\r\n\r\n", b"400"),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", b"501"),
    (b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * 70_000 + b"\r\n\r\n", b"431"),
])
def test_a_request_gunicorn_should_not_see_is_refused_at_the_front(running, head, status):
    port, upstream = running
    answer = _exchange(port, head)
    assert answer.split(b" ", 2)[1] == status and b"Connection: close" in answer
    assert upstream.received == []


def test_slow_headers_and_a_slow_body_get_408_at_their_bounds(running):
    port, upstream = running
    started = time.monotonic()
    answer = _exchange(port, b"GET /api/v1/x HTTP/1.1\r\nHost: p\r\n", pause=1.0, rest=b"X-Late: 1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout") and time.monotonic() - started < 2
    assert "PLAYGROUND_FRONT_HEADER_SECONDS" in json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    answer = _exchange(port, b"POST /x HTTP/1.1\r\nHost: p\r\nContent-Length: 10\r\n\r\nabc", pause=1.0, rest=b"defg")
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout") and b"PLAYGROUND_FRONT_BODY_SECONDS" in answer
    assert upstream.received == []


def test_a_body_declared_over_the_bound_is_not_read_and_the_connection_closes(running):
    port, upstream = running
    answer = _exchange(port, b"POST /x HTTP/1.1\r\nHost: p\r\nContent-Length: 5000\r\n\r\n" + b"a" * 100)
    assert answer.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in answer  # the stand-in's answer
    assert upstream.received[0].endswith(b"Content-Length: 5000\r\nConnection: close\r\n\r\n")  # the head only


def test_the_fronts_settings_are_documented_with_their_defaults():
    limits = (Path(__file__).resolve().parent.parent / "docs" / "limits.md").read_text()
    for name, value in front.CONFIG_DEFAULTS.items():
        row = re.search(rf"^\| `PLAYGROUND_{name}` \| ([^|]+) \|", limits, re.M)
        assert row and float(row.group(1)) == float(value), name
    assert front.Settings.from_environ({}) == front.Settings()
    assert front.Settings.from_environ({"PLAYGROUND_FRONT_HEADER_SECONDS": "2.5",
                                        "PLAYGROUND_MAX_CONTENT_LENGTH": "10"}).header == 2.5
