"""The front of the server: reads each request whole, within time bounds, before gunicorn sees it.

gunicorn's threaded workers give each connection a thread while its request is read, so a client that
sends its headers a line every few seconds holds a thread for as long as it likes; a few dozen such
connections hold them all and nobody else is answered. The front stands where a buffering proxy
(nginx's ``client_header_timeout`` and ``client_body_timeout``) would: one asyncio process, where a waiting
connection costs a little memory and no thread, that

- reads a request's head (request line and headers) within ``FRONT_HEADER_SECONDS`` of its first byte
  (of the connection's opening, for its first request), and its body within ``FRONT_BODY_SECONDS``;
  a slower client gets ``408 Request Timeout`` and is closed;
- reads a chunked body whole (up to one byte over ``MAX_CONTENT_LENGTH``) and hands it on with its length;
  a body declared larger than the bound is not read: gunicorn answers ``413`` from the head;
- then hands the complete request to gunicorn over a private Unix socket, with the client's address in a
  PROXY protocol line (gunicorn's ``--proxy-protocol``), so the app sees the client as it would directly;
- and takes the whole answer from gunicorn before writing it to the client (up to ``_BUFFERED`` bytes; a
  larger answer is passed on as the client reads it), so a client that does not read its answer holds no
  gunicorn thread; a client that reads nothing for ``FRONT_SEND_SECONDS`` is closed.

It holds no policy: it moves bytes and bounds time. `admission-playground serve` (and the container) runs it
with gunicorn behind it: :func:`serve`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

# Configuration names and defaults (PLAYGROUND_<NAME> in the environment).
CONFIG_DEFAULTS = {
    "FRONT_HEADER_SECONDS": 10.0,  # a request's head (line and headers) must arrive within this, whole
    "FRONT_BODY_SECONDS": 30.0,  # a request's body must arrive within this, whole
    "FRONT_IDLE_SECONDS": 5.0,  # a kept-alive connection with no new request is closed after this
    "FRONT_SEND_SECONDS": 30.0,  # a client that reads nothing of its answer for this long is closed
    "FRONT_CONNECTIONS": 2048,  # connections open at once (more are answered 503 and closed)
}
_HEAD_BYTES = 64 * 1024  # the most bytes of a request's head (431 beyond; gunicorn bounds each line further)
_BUFFERED = 8 * 1024 * 1024  # bytes of an answer taken from gunicorn before the client must read
_UPSTREAM_SECONDS = 600.0  # a backstop: gunicorn answers or times out (its own timeout) long before this
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Settings:
    header: float = 10.0
    body: float = 30.0
    idle: float = 5.0
    send: float = 30.0
    connections: int = 2048
    max_body: int = 3 * 1024 * 1024

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> Settings:
        environ = dict(os.environ if environ is None else environ)

        def number(name: str) -> float:
            text = environ.get(f"PLAYGROUND_{name}", "")
            return float(text) if text.strip() else float(CONFIG_DEFAULTS[name])

        body = environ.get("PLAYGROUND_MAX_CONTENT_LENGTH", "").strip()
        return cls(header=number("FRONT_HEADER_SECONDS"), body=number("FRONT_BODY_SECONDS"),
                   idle=number("FRONT_IDLE_SECONDS"), send=number("FRONT_SEND_SECONDS"),
                   connections=int(number("FRONT_CONNECTIONS")), max_body=int(body) if body else 3 * 1024 * 1024)


class _Refused(Exception):
    """A request the front answers itself (its status and why), closing the connection after."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason = status, reason


class Front:
    """The front: one asyncio server in front of gunicorn's Unix socket."""

    def __init__(self, settings: Settings, upstream: str) -> None:
        self.settings = settings
        self.upstream = upstream
        self.open = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        try:
            if self.open > self.settings.connections:
                await self._refuse(writer, _Refused(503, "Service Unavailable", "the server has too many open "
                                                    "connections (PLAYGROUND_FRONT_CONNECTIONS); try again"), "/")
                return
            peer = writer.get_extra_info("peername")
            local = writer.get_extra_info("sockname")
            first = True
            while True:
                keep = await self._one(reader, writer, _proxy_line(peer, local), first)
                first = False
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            pass  # the client went away, or sent a chunk size line longer than a head may be: closed
        finally:
            self.open -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, proxy: bytes,
                   first: bool) -> bool:
        """Serve one request of the connection; whether the connection stays open for another."""
        settings = self.settings
        head = b""
        try:
            if not first:  # a kept-alive connection: its next request must start within the idle time
                try:
                    await asyncio.wait_for(_peek(reader), settings.idle)
                except TimeoutError:
                    return False
                if reader.at_eof():
                    return False
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), settings.header)
            except TimeoutError:
                head = bytes(reader._buffer)  # noqa: SLF001 - what came: its path says how to answer
                raise _Refused(408, "Request Timeout", "the request's headers did not arrive within "
                               f"{settings.header:g} seconds (PLAYGROUND_FRONT_HEADER_SECONDS)") from None
            except asyncio.LimitOverrunError:
                raise _Refused(431, "Request Header Fields Too Large",
                               f"the request's headers are larger than {_HEAD_BYTES} bytes") from None
            request = _Head.parse(head)
            body, whole = await self._body(reader, writer, request)
        except asyncio.IncompleteReadError:
            return False  # the client went away
        except _Refused as refused:
            await self._refuse(writer, refused, _path_of(head))
            return False
        return await self._forward(writer, proxy, request, body, whole)

    async def _body(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    request: _Head) -> tuple[bytes, bool]:
        """The request's body, read within the body bound, and whether it was read whole (a body declared
        over MAX_CONTENT_LENGTH is not read: gunicorn refuses it from the head)."""
        settings = self.settings
        if request.chunked:
            if request.expects_continue:
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = await self._timed(_dechunk(reader, settings.max_body + 1))
            return body, len(body) <= settings.max_body  # over the bound: the rest is not read
        if request.length > settings.max_body:
            return b"", False
        if request.length and request.expects_continue:
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        return (await self._timed(reader.readexactly(request.length)) if request.length else b""), True

    async def _timed(self, reading: object) -> bytes:
        try:
            return await asyncio.wait_for(reading, self.settings.body)  # type: ignore[arg-type]
        except TimeoutError:
            raise _Refused(408, "Request Timeout", "the request's body did not arrive within "
                           f"{self.settings.body:g} seconds (PLAYGROUND_FRONT_BODY_SECONDS)") from None

    async def _forward(self, writer: asyncio.StreamWriter, proxy: bytes, request: _Head, body: bytes,
                       whole: bool) -> bool:
        """Hand the request to gunicorn and its answer to the client; whether the connection stays open."""
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream, limit=_HEAD_BYTES)
        except OSError:
            await self._refuse(writer, _Refused(502, "Bad Gateway", "the application server is not answering; "
                                                "try again in a moment"), request.path)
            return False
        sending: asyncio.Future | None = None
        try:
            up_writer.write(proxy + request.upstream_head(len(body) if request.chunked else None) + body)
            # gunicorn may answer without reading the body (413): its answer is read while the body goes out
            sending = asyncio.ensure_future(up_writer.drain())
            sending.add_done_callback(lambda done: done.cancelled() or done.exception())
            keep = request.keep_alive and whole
            answer = await asyncio.wait_for(up_reader.readuntil(b"\r\n\r\n"), _UPSTREAM_SECONDS)
            status_head, framed = _answer_head(answer, keep, request.method == "HEAD")
            keep = keep and framed
            writer.write(status_head)
            taken = 0
            while True:
                chunk = await asyncio.wait_for(up_reader.read(_CHUNK), _UPSTREAM_SECONDS)
                if not chunk:
                    break
                writer.write(chunk)
                taken += len(chunk)
                if taken > _BUFFERED:  # a large answer: passed on as the client reads it
                    await self._drain(writer)
            # closed at once: gunicorn's main loop lingers on a closing connection until its peer closes it too
            up_writer.close()
            await self._drain(writer)
            return keep
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            return False
        finally:
            if sending is not None:
                sending.cancel()
            up_writer.close()

    async def _drain(self, writer: asyncio.StreamWriter) -> None:
        try:
            await asyncio.wait_for(writer.drain(), self.settings.send)
        except TimeoutError:
            raise ConnectionError("the client read nothing of its answer in time") from None

    async def _refuse(self, writer: asyncio.StreamWriter, refused: _Refused, path: str) -> None:
        message = str(refused)
        if path.startswith("/api/"):
            body, kind = (json.dumps({"error": message}) + "\n").encode(), "application/json"
        else:
            body, kind = (message + "\n").encode(), "text/plain; charset=utf-8"
        writer.write(f"HTTP/1.1 {refused.status} {refused.reason}\r\nContent-Type: {kind}\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.drain(), 1.0)


@dataclass
class _Head:
    """A request's head as the front needs it: how long its body is, and what to tell gunicorn."""

    method: str
    path: str
    lines: list[bytes]  # the head's lines after the request line, without their line ends
    request_line: bytes
    length: int
    chunked: bool
    expects_continue: bool
    keep_alive: bool

    @classmethod
    def parse(cls, head: bytes) -> _Head:
        lines = head[:-4].split(b"\r\n")
        request_line = lines[0]
        parts = request_line.split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            raise _Refused(400, "Bad Request", "not an HTTP/1.x request line")
        fields: dict[bytes, list[bytes]] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon or not name or name != name.strip():
                raise _Refused(400, "Bad Request", "a header line without a name and a colon")
            fields.setdefault(name.lower(), []).append(value.strip())
        lengths = set(fields.get(b"content-length", []))
        coding = b",".join(fields.get(b"transfer-encoding", [])).lower()
        if coding and lengths:
            raise _Refused(400, "Bad Request", "a request with both Content-Length and Transfer-Encoding")
        if coding and coding.replace(b" ", b"") != b"chunked":
            raise _Refused(501, "Not Implemented", "only the chunked transfer coding is understood")
        if len(lengths) > 1 or (lengths and not next(iter(lengths)).isdigit()):
            raise _Refused(400, "Bad Request", "an invalid Content-Length")
        connection = b",".join(fields.get(b"connection", [])).lower()
        if parts[2] == b"HTTP/1.0":
            keep_alive = b"keep-alive" in connection
        else:
            keep_alive = b"close" not in connection
        expect = b"".join(fields.get(b"expect", [])).lower()
        return cls(method=parts[0].decode("latin-1"), path=parts[1].decode("latin-1"), lines=lines[1:],
                   request_line=request_line, length=int(next(iter(lengths))) if lengths else 0,
                   chunked=bool(coding), expects_continue=b"100-continue" in expect, keep_alive=keep_alive)

    def upstream_head(self, length: int | None) -> bytes:
        """The head as gunicorn gets it: the connection closed after the answer, no Expect (the front said
        100 Continue), and a chunked body's length once it was read."""
        dropped = (b"connection:", b"keep-alive:", b"expect:", b"proxy-connection:")
        if length is not None:
            dropped += (b"transfer-encoding:", b"content-length:")
        kept = [line for line in self.lines if not line.lower().startswith(dropped)]
        if length is not None:
            kept.append(b"Content-Length: " + str(length).encode())
        return b"\r\n".join([self.request_line, *kept, b"Connection: close", b"", b""])


def _answer_head(head: bytes, keep: bool, to_head: bool) -> tuple[bytes, bool]:
    """gunicorn's answer head as the client gets it (its Connection header saying whether the connection stays
    open), and whether the answer says where it ends (so that the connection can stay open after it)."""
    lines = head[:-4].split(b"\r\n")
    status = lines[0].split(b" ", 2)
    code = int(status[1]) if len(status) > 1 and status[1].isdigit() else 0
    names = {line.partition(b":")[0].strip().lower() for line in lines[1:]}
    framed = to_head or code in (204, 304) or b"content-length" in names or b"transfer-encoding" in names
    kept = [line for line in lines[1:] if not line.lower().startswith((b"connection:", b"keep-alive:"))]
    kept.append(b"Connection: keep-alive" if keep and framed else b"Connection: close")
    return b"\r\n".join([lines[0], *kept, b"", b""]), framed


async def _peek(reader: asyncio.StreamReader) -> None:
    """Wait until the connection has a byte to read, or is closed."""
    while not reader._buffer and not reader.at_eof():  # noqa: SLF001 - asyncio offers no peek
        await reader._wait_for_data("peek")  # noqa: SLF001


async def _dechunk(reader: asyncio.StreamReader, most: int) -> bytes:
    """A chunked body, read whole up to ``most`` bytes (a longer one is cut there, the rest left unread: it is over
    the bound anyway)."""
    out = bytearray()
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise _Refused(400, "Bad Request", "an invalid chunk size in a chunked body") from None
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, dropped
                pass
            return bytes(out)
        if len(out) + size > most:
            out += (await reader.readexactly(size))[: most - len(out)]
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readexactly(2)


def _path_of(head: bytes) -> str:
    parts = head.split(b"\r\n", 1)[0].split(b" ")
    return parts[1].decode("latin-1") if len(parts) > 1 else "/"


def _proxy_line(peer: object, local: object) -> bytes:
    """The PROXY protocol (v1) line naming the client's address and port and the front's."""
    try:
        client = ipaddress.ip_address(peer[0])  # type: ignore[index]
        server = ipaddress.ip_address(local[0])  # type: ignore[index]
        ports = int(peer[1]), int(local[1])  # type: ignore[index]
    except (TypeError, ValueError, IndexError):
        return b"PROXY UNKNOWN\r\n"
    if isinstance(client, ipaddress.IPv6Address) and client.ipv4_mapped is not None:
        client = client.ipv4_mapped
    if isinstance(server, ipaddress.IPv6Address) and server.ipv4_mapped is not None:
        server = server.ipv4_mapped
    if client.version != server.version:
        server = ipaddress.ip_address("0.0.0.0" if client.version == 4 else "::")
    family = "TCP4" if client.version == 4 else "TCP6"
    return f"PROXY {family} {client} {server} {ports[0]} {ports[1]}\r\n".encode()


# --- running it with gunicorn behind it -------------------------------------------------------------------


def gunicorn_command(socket_path: str, workers: int | None = None, quiet: bool = False,
                     app: str = "app:create_app()") -> list[str]:
    """gunicorn as the front runs it: the app's settings, on the private socket, reading the PROXY line."""
    # --proxy-protocol before an option: it takes an optional value in later gunicorns, none in earlier ones
    return [sys.executable, "-m", "gunicorn", "--config", "python:app.gunicorn_conf", "--proxy-protocol",
            "--bind", f"unix:{socket_path}", *(["--workers", str(workers)] if workers else []),
            *(["--log-level", "warning"] if quiet else []), app]


def serve(host: str, port: int, *, workers: int | None = None, quiet: bool = False) -> int:
    """Run the front on host:port and gunicorn behind it until either stops or a signal comes; gunicorn's exit
    status."""
    settings = Settings.from_environ()
    _open_files(2 * settings.connections + 64)  # each connection may have gunicorn's beside it
    with tempfile.TemporaryDirectory(prefix="playground-front-") as private:
        os.chmod(private, 0o700)  # only this user reaches gunicorn, and only through the front
        socket_path = os.path.join(private, "gunicorn.sock")
        server = subprocess.Popen(gunicorn_command(socket_path, workers, quiet))
        try:
            return asyncio.run(_run(settings, socket_path, host, port, server, quiet))
        finally:
            if server.poll() is None:
                server.terminate()
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()


def _open_files(needed: int) -> None:
    """Raise this process's bound on open files towards ``needed`` (as far as its hard bound allows)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


async def _run(settings: Settings, socket_path: str, host: str, port: int, server: subprocess.Popen,
               quiet: bool) -> int:
    front = Front(settings, socket_path)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # listen once gunicorn does: a connection accepted before would only get a 502
    while not await _answers(socket_path):
        if server.poll() is not None or stop.is_set():
            return int(server.returncode or 0) if server.poll() is not None else 0
        await asyncio.sleep(0.1)
    listening = await asyncio.start_server(front.handle, host, port, limit=_HEAD_BYTES, backlog=1024,
                                           reuse_address=True)
    if not quiet:
        print(f"admission-playground: listening at http://{host}:{port} (the front; gunicorn behind it, "
              f"pid {server.pid})", file=sys.stderr, flush=True)
    try:
        while not stop.is_set() and server.poll() is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)
    finally:
        listening.close()
    if server.poll() is None:
        server.terminate()
        await loop.run_in_executor(None, server.wait)
    return int(server.returncode or 0)


async def _answers(socket_path: str) -> bool:
    """Whether gunicorn accepts connections on its socket."""
    try:
        _, writer = await asyncio.open_unix_connection(socket_path)
    except OSError:
        return False
    writer.close()
    return True
