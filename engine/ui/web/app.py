"""The web app of ``littlego serve``: its routes, and how every request that goes wrong is answered.

Pages are static files (``static/``) that ask the JSON routes below; nothing is built.
Every answer that is not the one asked for is JSON ``{"error": message}`` with a 4xx
status (5xx where a player or the server failed): a mistake in a request is named, an
unexpected failure is logged on the server and never shown as a traceback. Requests must
name this machine as their host (a web page elsewhere cannot reach the server by a DNS
name of its own), and requests that change or compute something must be same-origin JSON
carrying the server's secret token (``TOKEN_HEADER``): the address ``littlego serve`` prints
holds it, and the page sends it, so that another user of the machine, who can reach the
port but not read that address, cannot make the server play or compute.

Every answer carries ``SECURITY_HEADERS``: a Content-Security-Policy under which the page runs its
own script files and nothing else (no inline script, no event-handler attribute, no ``eval``, no
inline style), so that text from a run folder or a request which the pages failed to show as text
still could not run; and ``nosniff``, so that no JSON answer is ever read as a page or a script.
"""

import hmac
import json
import logging
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Type, cast

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, ExceptionHandler, Message, Receive, Scope, Send

from engine.constants import Move
from engine.play.sgf import SgfError
from engine.players.specs import COMMAND_KINDS, runs_a_command
from engine.position import IllegalMove
from engine.ui.web import board_game
from engine.ui.web.analysis import Analyst
from engine.ui.web.board_game import BadRequest
from engine.ui.web.run_pages import FileCache, NoSuchRun, list_runs, run_page
from engine.ui.web.worker_jobs import PlayerTrouble, board_book
from engine.ui.web.workers import WorkerLost, WorkerTimeout

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 1024 * 1024  # an SGF file is a few kB; a request is a few hundred bytes
TOKEN_HEADER = "x-littlego-token"
NO_TOKEN = (
    "this server plays and computes only for whoever started it: open the address littlego serve printed "
    "(its ?token=... is the key)"
)

# The pages load their scripts, styles and JSON from this server alone, draw with inline SVG and have a
# data: icon; nothing may frame them, post a form, or set a base URL.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = (
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),  # the page's address holds the token
)

log = logging.getLogger("littlego.serve")

# Exceptions that answer a request with their message and a status.
STATUS = (
    (NoSuchRun, 404),
    (IllegalMove, 422),
    (BadRequest, 400),
    (SgfError, 400),
    (PlayerTrouble, 502),
    (WorkerLost, 503),
    (WorkerTimeout, 504),
)


def error(status: int, message: str, **extra: object) -> JSONResponse:
    return JSONResponse(dict({"error": message}, **extra), status_code=status)


def host_name(header: str) -> str:
    """The name in a Host header without its port: ``localhost``, ``127.0.0.1``, ``::1``."""
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


class LocalRequests:
    """ASGI middleware: the Host must be one of ``hosts`` (None: any), and a POST must come from
    the server's own pages (same origin) as JSON of a bounded size, carrying ``token`` (None: every
    POST is refused)."""

    def __init__(self, app: ASGIApp, hosts: Optional[Sequence[str]], token: Optional[str]):
        self.app = app
        self.hosts = hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> Optional[JSONResponse]:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts is not None and host_name(host) not in self.hosts:
            return error(
                403, "this server answers requests addressed to {} only, not {!r}".format(" or ".join(self.hosts), host)
            )
        if scope["method"] != "POST":
            return None  # only POST routes compute: the others answer 404 or 405
        given = headers.get(TOKEN_HEADER, "")
        if self.token is None or not hmac.compare_digest(given.encode("utf-8"), self.token.encode("utf-8")):
            return error(403, NO_TOKEN)
        origin = headers.get("origin")
        if origin is not None and origin != "{}://{}".format(scope.get("scheme", "http"), host):
            return error(403, f"a request from another site ({origin}) is refused")
        if headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return error(415, "send JSON (Content-Type: application/json)")
        if int(headers.get("content-length") or 0) > MAX_BODY:
            return error(413, f"a request of more than {MAX_BODY} bytes is refused")
        return None


class Site(Starlette):
    """The Starlette app with SECURITY_HEADERS on every answer, its 500s included (Starlette answers
    those outside all the middleware it is given)."""

    def build_middleware_stack(self) -> ASGIApp:
        inner = super().build_middleware_stack()

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    headers = MutableHeaders(scope=message)
                    for name, value in SECURITY_HEADERS:
                        headers[name] = value
                await send(message)

            await inner(scope, receive, send_with_headers if scope["type"] == "http" else send)

        return app


async def read_json(request: Request) -> Dict[str, Any]:
    """The request's JSON object; BadRequest when it is not one."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(f"a request of more than {MAX_BODY} bytes is refused")
    try:
        document = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        raise BadRequest("the request is not JSON")
    if not isinstance(document, dict):
        raise BadRequest("the request must be a JSON object")
    return document


def create_app(
    runs_dir: str,
    analyst: Analyst,
    hosts: Optional[Sequence[str]] = LOOPBACK_NAMES,
    allow_programs: bool = False,
    token: Optional[str] = None,
) -> Starlette:
    """The Starlette app serving ``runs_dir`` and the board (``analyst``: an analysis.Analyst).
    ``hosts``: the host names it answers (None: any); ``allow_programs``: whether the board
    may play specs that run a command (``cmd:``, ``program:``, ``gtp:``), which only the person who
    started the server may allow; ``token``: the secret every POST must carry (None: none may)."""
    cache = FileCache()

    async def index(request: Request) -> FileResponse:
        return FileResponse(os.path.join(STATIC, "index.html"))

    def runs(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "runs_dir": os.path.abspath(runs_dir),
                "exists": os.path.isdir(runs_dir),
                "runs": [run._asdict() for run in list_runs(runs_dir, cache)],
            }
        )

    def run(request: Request) -> JSONResponse:
        after = request.query_params.get("after", "0")
        if not after.isdigit():
            raise BadRequest(f"after must be a count of generations, not {after!r}")
        return JSONResponse(run_page(runs_dir, request.path_params["name"], cache, int(after)))

    board = board_routes(analyst, allow_programs)
    routes = (
        [Route("/", index), Route("/api/runs", runs), Route("/api/runs/{name}", run)]
        + board
        + [Mount("/static", StaticFiles(directory=STATIC), name="static")]
    )
    handlers: Dict[Type[Exception], ExceptionHandler] = {exception: _answer(status) for exception, status in STATUS}
    # Starlette calls _http_error for HTTPException alone: its narrower argument is sound.
    handlers.update({HTTPException: cast(ExceptionHandler, _http_error), Exception: _unexpected})
    middleware = [Middleware(LocalRequests, hosts=hosts, token=token)]
    return Site(routes=routes, exception_handlers=handlers, middleware=middleware)


# A board route's answer: the request's JSON document and its moves -> the JSON to send back.
PageAnswer = Callable[[Dict[str, Any], List[Move]], object]


def board_routes(analyst: Analyst, allow_programs: bool) -> List[Route]:
    """The board's JSON routes: each takes the game's moves and answers about their position."""

    def post(path: str, answer: PageAnswer) -> Route:
        async def endpoint(request: Request) -> JSONResponse:
            document = await read_json(request)
            return JSONResponse(await run_in_threadpool(answer, document, board_game.read_moves(document.get("moves"))))

        return Route(path, endpoint, methods=["POST"])

    def reply(document: Dict[str, Any], moves: List[Move]) -> Dict[str, Any]:
        spec = document.get("opponent")
        if not allow_programs and isinstance(spec, str) and runs_a_command(spec):
            raise BadRequest(
                "players that run a command ({}) are refused: start littlego serve with --allow-programs to "
                "play them (on this machine only)".format(", ".join(kind + ":" for kind in COMMAND_KINDS))
            )
        seed = document.get("seed", 1)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise BadRequest("seed must be an integer")
        answer = analyst.reply(spec, moves, seed)
        return {"reply": answer._asdict(), "view": board_game.view(moves + [answer.move], board_book())._asdict()}

    def values(document: Dict[str, Any], moves: List[Move]) -> Dict[str, Any]:
        margins, seconds = document.get("margins", True), document.get("seconds")
        if not isinstance(margins, bool):
            raise BadRequest("margins must be true or false")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0):
            raise BadRequest("seconds must be a positive number of CPU seconds for the margins")
        found = analyst.values(moves, margins, seconds)
        return dict(found._asdict(), moves=[value._asdict() for value in found.moves])

    return [
        post("/api/board/view", lambda document, moves: board_game.view(moves, board_book())._asdict()),
        post(
            "/api/board/play",
            lambda document, moves: board_game.view(
                board_game.with_move(moves, document.get("move")), board_book()
            )._asdict(),
        ),
        post("/api/board/reply", reply),
        post("/api/board/values", values),
        post("/api/board/agent", lambda document, moves: analyst.agent(moves)._asdict()),
        post("/api/board/refutations", lambda document, moves: analyst.refutations(moves)),
        post(
            "/api/board/sgf",
            lambda document, moves: {
                "sgf": board_game.sgf_of(moves, document.get("black", "Black"), document.get("white", "White"))
            },
        ),
        Route("/api/board/open", _open, methods=["POST"]),
    ]


async def _open(request: Request) -> JSONResponse:
    document = await read_json(request)
    text = document.get("sgf")
    if not isinstance(text, str):
        raise BadRequest("sgf must be the text of an SGF file")
    return JSONResponse(board_game.open_sgf(text.encode("utf-8"))._asdict())


def _answer(status: int) -> ExceptionHandler:
    async def handler(request: Request, exc: Exception) -> JSONResponse:
        extra = {"illegal": True} if isinstance(exc, IllegalMove) else {}
        return error(status, str(exc), **extra)

    return handler


async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    if exc.status_code == 404:
        return error(404, f"nothing here: {request.url.path}")
    if exc.status_code == 405:
        return error(405, f"{request.method} is not answered at {request.url.path}")
    return error(exc.status_code, str(exc.detail))


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # The server's log gets the traceback (Starlette raises the exception on to it).
    log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
    return error(500, f"the server failed on this request ({type(exc).__name__}); its log says more")
