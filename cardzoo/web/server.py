"""`cardzoo serve`: the web table (Starlette + uvicorn), a page to play against the agents and to
replay records, and the JSON API it uses (docs/web.md):

    POST /api/games {"game", "config", "seat", "opponents", "seed"?}   -> state
    GET  /api/games/<id>                                               -> state
    POST /api/games/<id>/actions {"action": <name>}                    -> state
    GET  /api/games/<id>/record                                        -> the game's record (a download)
    POST /api/replays <record>                                         -> {"frames": [...], "record"}
    GET  /api/meta                                                     -> games, variants, agent specs

Every error is a 4xx (5xx for a full server or a bug) with {"error": <message>}, never a traceback.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardzoo import records
from cardzoo.registry import list_games
from cardzoo.web.tables import RequestError, Table, TableStore, replay_frames

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 2_000_000  # bytes: the longest records (LOPTI sessions) fit many times over
log = logging.getLogger("cardzoo.web")

META = {
    "games": {
        "courtpiece": {"title": "Court Piece", "players": 4,
                       "options": {"variant": ["single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat"]},
                       "agents": ["heuristic", "pimc", "greedy", "random"]},
        "shengji": {"title": "Sheng Ji", "players": 4, "options": {"decks": [1, 2, 3, 4]},
                    "agents": ["heuristic", "pimc", "random"]},
        "lopti": {"title": "LOPTI", "players": 4, "options": {"num_players": [2, 3, 4, 5]},
                  "modes": {"label": "Session", "choices": [
                      ["off (one round)", {}],
                      ["3 rounds", {"session": True, "session_rounds": 3}],
                      ["5 rounds", {"session": True, "session_rounds": 5}]]},
                  "agents": ["heuristic", "pimc", "random"]},
    },
}
"""What the page offers: per game its title, the one option it lets you pick, for LOPTI a mode
("modes": labelled choices, each the config it adds: session mode, lopti.md LO-10), and the agent
specs (any spec make_agent reads works through the API; any other option through its "config")."""


async def _json_body(request: Request):
    body = await request.body()
    if len(body) > MAX_BODY:
        raise RequestError(f"request body over {MAX_BODY} bytes", 413)
    try:
        return json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RequestError(f"the request body is not JSON: {e}") from None


def _fields(data, allowed: set[str], required: set[str]) -> dict:
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise RequestError(f"unknown field(s) {', '.join(map(repr, unknown))}; fields: {', '.join(sorted(allowed))}")
    missing = sorted(required - set(data))
    if missing:
        raise RequestError(f"missing field(s) {', '.join(map(repr, missing))}")
    return data


def create_app(cap: int = 64, ttl: float = 3600.0) -> Starlette:
    store = TableStore(cap, ttl)

    async def index(request):
        return FileResponse(STATIC / "index.html")

    async def meta(request):
        return JSONResponse(dict(META, games={g: dict(m, learned=_shipped_checkpoint(g))
                                              for g, m in META["games"].items() if g in list_games()}))

    async def new_game(request):
        data = _fields(await _json_body(request), {"game", "config", "seat", "opponents", "seed"}, {"game"})
        # agents think (and kernels may compile) off the event loop, so other requests go on meanwhile
        config = data.get("config")
        table = await run_in_threadpool(Table, data["game"], {} if config is None else config, data.get("seat", 0),
                                        data.get("opponents", "heuristic"), data.get("seed"))
        store.add(table)
        return JSONResponse(await run_in_threadpool(_locked, table, table.state))

    async def get_game(request):
        table = store.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(_locked, table, table.state))

    async def act(request):
        data = _fields(await _json_body(request), {"action"}, {"action"})
        table = store.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(_locked, table, lambda: table.act(data["action"]) or table.state()))

    async def record(request):
        table = store.get(request.path_params["id"])
        rec = await run_in_threadpool(_locked, table, table.finished_record)
        return Response(records.dumps(rec), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="{table.game}-{table.id}.json"'})

    async def replay(request):
        data = await _json_body(request)
        return JSONResponse(await run_in_threadpool(replay_frames, data))

    async def request_error(request, exc: RequestError):
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def http_error(request, exc: HTTPException):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    async def server_error(request, exc: Exception):
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": "internal error (see the server log)"}, status_code=500)

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/actions", act, methods=["POST"]),
        Route("/api/games/{id}/record", record),
        Route("/api/replays", replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={
        RequestError: request_error, records.RecordError: _record_error, HTTPException: http_error,
        Exception: server_error})


def _shipped_checkpoint(game: str) -> str | None:
    """The agent spec of the checkpoint shipped for `game` (agents/checkpoints), if torch can run it."""
    import importlib.util

    import agents

    path = Path(agents.__file__).resolve().parent / "checkpoints" / f"{game}.pt"
    return f"learned:{path}" if path.is_file() and importlib.util.find_spec("torch") else None


def _locked(table: Table, fn):
    """fn() under the table's lock: one request at a time changes or reads a game."""
    with table.lock:
        return fn()


async def _record_error(request, exc: records.RecordError):
    return JSONResponse({"error": f"record: {exc}"}, status_code=400)


def serve(host: str = "127.0.0.1", port: int = 8000) -> int:
    """Serve the web table until Ctrl-C. The socket is bound first, so an address in use is a
    ValueError (the CLI's one-line error) before anything is announced; port 0 takes a free port."""
    import socket

    import uvicorn

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as e:
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    bound = sock.getsockname()[1]
    print(f"cardzoo web table on http://{host}:{bound}/  (Ctrl-C stops it)", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    server.run(sockets=[sock])
    return 0
