"""The web table: play Siete y Media in a browser against the agents (``siete-table``).

    siete-table                                   # heads-up against the pretrained agents, http://127.0.0.1:8000
    siete-table --players 4 --rules italian       # the pretrained agents of that table
    siete-table --players 4 --opponents smart:6 bold:5.5 --rules italian --port 8080
    siete-table --models runs/default/gen_020     # its *.zip / *.npz offered to the page as model:NAME

The page (``static/``) shows the table as your seat sees it (``siete_env.view.seat_view``:
your own face-down card, everyone's face-up cards, backs for the rest), the cards drawn by
``siete_env.cardart`` (the faces the ``rgb_array`` frames show), your legal moves as buttons
(keys 1-9; Enter deals the next hand), what happens at the table as it happens, each
hand's result and your running score. The game runs through the environment (``raw_env``)
and the agents through their specs.

What a request may do (docs/web.md): a request names **presets and options, never files**
(rules: a preset name or a dict of options; opponents: the heuristic specs,
``pretrained:*``, the operator's ``--opponents`` and the ``--models`` files as
``model:NAME``); only the table's own page can drive it (JSON bodies only, the Host and
Origin headers checked against this server, no framing); a table belongs to the browser
that opened it (a cookie) and is driven with a move counter; tables are capped per browser
and overall, and a live table is never evicted to make room. Every refused request is a
JSON ``{"error", "field"}`` with a short message. Served by **waitress** (a production WSGI
server: request bodies buffered before a thread sees them, idle connections closed) on the
**Flask** app; never Flask's development server or its debugger.
"""

from __future__ import annotations

import argparse
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.pretrained import STAND_INS
from agents.specs import SPEC_HELP, AgentSpec, check_spec, make_agent
from siete_env import version_text
from siete_env.guide import describe_action, player_guide
from siete_env.rules import PRESETS, Rules, cut, resolve_rules
from siete_env.view import event_lines, seat_view

DEFAULT_OPPONENTS = ("pretrained:banker", "pretrained:punter")  # the banker's seat, a punter's seat
HEURISTIC_KINDS = {
    "stakes": ("random", "threshold", "banker", "smart", "bold"),
    "points": ("random", "quattro"),
}  # the heuristic specs that play each scoring (quattro agents only at quattro tables)
MAX_TABLES = 64  # tables kept at once: past it a new table is refused (503) unless an idle one can go
MAX_PER_BROWSER = 4  # a browser's own tables: its fifth replaces its oldest
IDLE_SECONDS = 30 * 60  # a table untouched this long may be closed to make room
MAX_RESULTS = 100  # the hand results a table keeps (the score is the running total)
MAX_BODY = 16 * 1024  # bytes of a request body
MAX_SHOWN = 40  # characters of a request's value quoted back in an error
MAX_SEED = 2**63 - 1
# The rule options a request may set, capped: a session of agent-only hands played inside one
# request (your seat out of chips, a huge hands_per_episode) would hold a thread for minutes.
WEB_RULE_LIMITS = {
    "hands_per_episode": 100,
    "starting_chips": 1000,
    "bet_levels": 1000,
    "auction_bids": 1000,
    "side_bet_stake": 1000,
    "target_score": 100,
}
MAX_AGENT_STEPS = 20_000  # agent moves one request may play: past it the session ends (a backstop)
NEW_KEYS = ("rules", "players", "seat", "opponents", "seed", "banker", "deck")
COOKIE = "siete_browser"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class TableError(ValueError):
    """A bad request: the message says what is wrong and what is allowed; ``field`` names
    the request's field it is about (``None``: the request as a whole)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def shown(value: Any) -> str:
    """A request's value as an error quotes it: at most ``MAX_SHOWN`` characters."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else f"{text[: MAX_SHOWN - 3]}... ({len(text):,} characters)"


class Table:
    """One person's table: their seat, the agents at the other seats, the running score.

    ``opponents`` are spec strings, seated as given (``make_agent``); ``names`` what the page
    shows for them (``model:NAME`` for an operator's model, not its path)."""

    def __init__(
        self,
        rules: Any = "spanish",
        players: int = 2,
        seat: int = 1,
        opponents: list[str] | None = None,
        seed: int | None = None,
        banker: int | None = None,
        deck: list[str] | None = None,
        names: dict[str, str] | None = None,
    ):
        from siete_env import raw_env

        try:
            self.env = raw_env(num_players=players, rules=rules)  # it checks the table size
        except (ValueError, TypeError) as err:
            raise TableError(cut(str(err)), "rules" if "rules" in str(err) else "players") from None
        if not 0 <= seat < players:
            raise TableError(f"seat must be 0..{players - 1} at a table of {players}, got {seat}", "seat")
        if banker is not None and not 0 <= banker < players:
            raise TableError(f"banker must be 0..{players - 1}, got {banker}", "banker")
        self.names = dict(names or {})
        try:
            others = [s for s in range(players) if s != seat]
            self.note = ""
            try:
                self.specs, self.agents = self._seat(opponents, others, banker, seed)
            except ValueError as err:
                if opponents:
                    raise
                # no pretrained pair plays this table: heuristics sit in (agents.pretrained.STAND_INS)
                fallback = STAND_INS[self.env.rules.scoring]
                self.specs, self.agents = self._seat(list(fallback), others, banker, seed, by_role=True)
                self.note = f"{err.args[0].split(';')[0].removeprefix('pretrained:banker: ')}: heuristics sit in"
        except (ValueError, TypeError) as err:
            raise TableError(cut(str(err)), "opponents") from None
        self.me, self.seed, self.banker, self.deck = seat, seed, banker, deck
        self.episode = 0
        self.move = 0  # requests that changed the table: each act / next must name the current one
        self.score = 0
        self.used = time.monotonic()
        self.log: list[str] = []
        self.results: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        if self.note:
            self.log.append(self.note)
        self.new_hand()

    def _seat(self, opponents, others, banker, seed, by_role=False):
        specs = _seat_specs(opponents, others, banker, by_role)
        for spec in set(specs.values()):
            check_spec(spec)
        agents = {s: make_agent(spec, self.env, seed=None if seed is None else seed + s) for s, spec in specs.items()}
        return specs, agents

    def new_hand(self) -> None:
        """Deal the next episode (the first one from ``seed`` and the stacked ``deck``)."""
        options: dict[str, Any] = {}
        if self.banker is not None:
            options["banker"] = self.banker
        if self.deck and self.episode == 0:
            options["deck"] = self.deck
        try:
            self.env.reset(seed=self.seed if self.episode == 0 else None, options=options or None)
        except ValueError as err:
            raise TableError(cut(str(err)), "deck" if self.deck else None) from None
        self.episode += 1
        self.ended = False  # the session ended for you before the environment's episode (out of chips)
        self._start = list(self.env.game.chips)
        self._seen = 0
        self._advance()

    @property
    def over(self) -> bool:
        return self.ended or not self.env.agents

    def legal(self) -> list[str]:
        if self.over:
            return []
        agent = self.env.agent_selection
        if self.env.seat_of(agent) != self.me:
            return []
        return list(self.env.legal_action_names())

    def act(self, name: str) -> None:
        """Your move, by action name; then the agents play until it is your turn again."""
        legal = self.legal()
        if name not in legal:
            raise TableError(
                f"{shown(name)} is not one of your legal actions now: {', '.join(legal) or 'none (not your turn)'}",
                "action",
            )
        self.env.step(self.env.action_id(name))
        self._advance()

    def _advance(self) -> None:
        """The agents play until it is your turn again, the episode ends, or your seat is
        out of chips (the rest of its session would be agents only: it ends for you)."""
        e = self.env
        steps, note = 0, ""
        while e.agents:
            agent = e.agent_selection
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            seat = e.seat_of(agent)
            if seat == self.me:
                break
            if not e.game.active(self.me):
                self.ended, note = True, "you are out of chips: the session ends (deal again for a new one)"
                break
            if steps >= MAX_AGENT_STEPS:
                self.ended, note = True, f"the agents played {MAX_AGENT_STEPS:,} moves without you: the session ends"
                break
            e.step(self.agents[seat](e.observe(agent)))
            steps += 1
        self._read_events()
        if note:
            self.log.append(note)
        if self.over:
            won = e.game.chips[self.me] - self._start[self.me]
            self.score += won
            self.results.append({"episode": self.episode, "won": won, "chips": list(e.game.chips)})
            del self.results[:-MAX_RESULTS]

    def _read_events(self) -> None:
        events = self.env.game.events
        self.log += event_lines(self.env, self.me, self._seen)
        self._seen = len(events)
        del self.log[:-300]

    def state(self) -> dict[str, Any]:
        """Everything the page shows, as JSON: the table as your seat sees it, your legal
        moves, what happened, the last result, the running score and the move counter the
        next request must carry."""
        view = seat_view(self.env, self.me).to_dict()
        for s in view["seats"]:
            spec = self.specs.get(s["seat"], "")
            name = self.names.get(spec, spec)
            if spec.startswith("pretrained:") and name == spec:
                name = "pretrained agent"  # the pair's two specs each play both roles as the bank passes
            s["name"] = "you" if s["seat"] == self.me else name
        legal = self.legal()
        return {
            "view": view,
            "deck": self.env.rules.deck,
            "preset": self.env.rules.preset,
            "legal": [{"name": n, "help": describe_action(n, self.env.rules)} for n in legal],
            "log": self.log[-80:],
            "episode": self.episode,
            "move": self.move,
            "over": self.over,
            "result": self.results[-1] if self.over and self.results else None,
            "score": self.score,
            "guide": player_guide(self.env.rules),
        }


def _seat_specs(
    opponents: list[str] | None, others: list[int], banker: int | None, by_role: bool = False
) -> dict[int, str]:
    """The agent spec of every other seat: ``opponents`` in seat order, repeated as needed;
    by default (or ``by_role``, with ``opponents`` a (banker, punter) pair) the first at the
    first banker's seat and the second elsewhere (either plays both roles as the bank
    passes, so this only picks who starts as banker)."""
    if opponents and not by_role:
        return {s: opponents[i % len(opponents)] for i, s in enumerate(others)}
    pair = opponents or DEFAULT_OPPONENTS
    first = banker if banker is not None else others[0]
    return {s: pair[0] if s == first else pair[1] for s in others}


# --------------------------------------------------------------------------- what a request may ask
@dataclass
class Server:
    """What the operator decided when starting the server, and what no request can change.

    ``rules``, ``players``, ``seat``, ``opponents``, ``banker``: the page's defaults (the
    command line's). ``trusted``: the operator's own ``--opponents`` specs (files included),
    which a request may name again as they are. ``models``: ``model:NAME`` -> the spec of a
    file of ``--models DIR``. ``seed``: the server's private seed (``--seed``; fresh when not
    given): table ``k`` deals from a seed derived from it and ``k``, never published."""

    rules: Any = "spanish"
    players: int = 2
    seat: int = 1
    opponents: list[str] | None = None
    banker: int | None = None
    seed: int | None = None
    models: dict[str, str] = field(default_factory=dict)
    trusted: set[str] = field(default_factory=set)
    hosts: tuple[str, ...] = LOCAL_HOSTS
    max_tables: int = MAX_TABLES
    per_browser: int = MAX_PER_BROWSER
    idle_seconds: float = IDLE_SECONDS

    def __post_init__(self) -> None:
        self.trusted |= set(self.opponents or ())
        self._secret = self.seed if self.seed is not None else secrets.randbits(63)
        self._count = 0
        self._lock = threading.Lock()

    def table_seed(self) -> int:
        """The next table's seed: derived from the private seed and a counter (no two tables
        deal the same hands; the same server seed deals the same sequence of tables)."""
        with self._lock:
            self._count += 1
            k = self._count
        return int(np.random.SeedSequence([self._secret, k]).generate_state(2, np.uint64)[0] >> np.uint64(1))

    def defaults(self) -> dict[str, Any]:
        """What the page may show and start from (``/api/defaults``): no seed, no paths."""
        rules = self.rules if isinstance(self.rules, str) else _rules_dict(self.rules)
        return {
            "rules": rules,
            "players": self.players,
            "seat": self.seat,
            "opponents": [self._name(o) for o in self.opponents] if self.opponents else None,
            "banker": self.banker,
            "presets": list(PRESETS),
            "models": sorted(self.models),
            "opponent_specs": "random, threshold:T, banker:B, smart:B, bold:T, quattro:T, pretrained:punter, "
            "pretrained:banker" + "".join(f", {m}" for m in sorted(self.models)),
        }

    def _name(self, spec: str) -> str:
        """What the page shows for an operator's spec: ``model:NAME`` for a file's spec."""
        a = AgentSpec.parse(spec)
        if a.path is None or a.kind == "pretrained":
            return spec
        for name, s in self.models.items():
            if s == spec:
                return name
        return f"model:{Path(a.arg).stem}"

    def resolve(self, spec: Any, scoring: str) -> str:
        """The spec string a request's opponent stands for, or a ``TableError``: heuristics
        that play this table's scoring, the pretrained pair, the operator's own specs and
        ``model:NAME``; never a file the request names."""
        allowed = ", ".join([*(f"{k}:T" if k != "random" else k for k in HEURISTIC_KINDS[scoring]),
                             "pretrained:punter", "pretrained:banker", *sorted(self.models)])  # fmt: skip
        if not isinstance(spec, str) or not spec or len(spec) > 200:
            raise TableError(
                f"opponents: each is an agent spec string, got {shown(spec)}; allowed: {allowed}", "opponents"
            )
        if spec in self.models:
            return self.models[spec]
        if spec in self.trusted or self._name_of_trusted(spec):
            return self._name_of_trusted(spec) or spec
        try:
            a = AgentSpec.parse(spec)
        except ValueError:
            raise TableError(f"opponents: unknown agent spec {shown(spec)}; allowed: {allowed}", "opponents") from None
        if a.kind == "pretrained":
            return spec
        if a.kind in HEURISTIC_KINDS["stakes"] + HEURISTIC_KINDS["points"]:
            if a.kind not in HEURISTIC_KINDS[scoring]:
                game = "quattro e mezzo (points)" if scoring == "points" else "a stakes game"
                raise TableError(f"opponents: {shown(spec)} does not play {game}; allowed here: {allowed}", "opponents")
            return spec
        raise TableError(
            f"opponents: {shown(spec)}: a request names no file (the server's models: --models, --opponents); "
            f"allowed: {allowed}",
            "opponents",
        )

    def _name_of_trusted(self, name: str) -> str | None:
        for spec in self.trusted:
            if self._name(spec) == name:
                return spec
        return None


def _rules_dict(rules: Rules) -> dict[str, Any]:
    return {k: v for k, v in rules.model_dump(mode="json").items() if v != PRESETS[rules.preset].get(k, v)} | {
        "preset": rules.preset
    }


def _integer(body: dict[str, Any], key: str, lo: int, hi: int, default: int | None) -> int | None:
    v = body.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise TableError(f"{key} must be a whole number {lo}..{hi}, got {shown(v)}", key)
    if not lo <= v <= hi:
        raise TableError(f"{key} must be {lo}..{hi}, got {v}", key)
    return v


def _words(body: dict[str, Any], key: str, limit: int) -> list[str] | None:
    """A list of strings, or one string of words (spaces or commas)."""
    v = body.get(key)
    if v is None or v == "" or v == []:
        return None
    if isinstance(v, str):
        v = [w for w in v.replace(",", " ").split() if w]
    if not isinstance(v, list) or not all(isinstance(w, str) for w in v):
        raise TableError(f"{key} must be a list of strings or a string of words, got {shown(v)}", key)
    if len(v) > limit:
        raise TableError(f"{key}: at most {limit}, got {len(v)}", key)
    return v


def _check_web_limits(rules: Rules) -> None:
    """A ``TableError`` naming the first option of ``rules`` over its ``WEB_RULE_LIMITS`` cap."""
    for name, cap in WEB_RULE_LIMITS.items():
        v = getattr(rules, name)
        top = max(v) if isinstance(v, tuple) else v
        if top is not None and top > cap:
            raise TableError(f"rules: {name} must be at most {cap} at the web table, got {shown(top)}", "rules")


def table_settings(body: Any, server: Server) -> dict[str, Any]:
    """A table's settings from a request body (over the server's defaults), checked; a
    ``TableError`` naming the field otherwise."""
    if not isinstance(body, dict):
        raise TableError(f"the body must be a JSON object, got {type(body).__name__}")
    unknown = [k for k in body if k not in NEW_KEYS]
    if unknown:
        raise TableError(
            f"unknown field {shown(unknown[0])}; allowed: {', '.join(NEW_KEYS)}", str(unknown[0])[:MAX_SHOWN]
        )
    rules = body.get("rules", server.rules)
    if not (isinstance(rules, dict) or (isinstance(rules, str) and rules in PRESETS) or rules is server.rules):
        raise TableError(
            f"rules must be a preset ({', '.join(PRESETS)}) or a dict of options, got {shown(rules)}", "rules"
        )
    try:
        rules = resolve_rules(rules)  # a name or a dict: never a file (the server's own file was read at start)
    except (ValueError, TypeError) as err:
        raise TableError(f"rules: {cut(str(err), 300)}", "rules") from None
    if "rules" in body:  # the operator's own rules (the command line) are not capped
        _check_web_limits(rules)
    players = _integer(body, "players", 2, 12, server.players)
    seat = _integer(body, "seat", 0, players - 1, server.seat)
    banker = _integer(body, "banker", 0, players - 1, server.banker)
    seed = _integer(body, "seed", 0, MAX_SEED, None)
    asked = _words(body, "opponents", 11)
    if asked is None and "opponents" not in body and server.opponents:
        asked = list(server.opponents)
    names: dict[str, str] = {}
    opponents = None
    if asked:
        opponents = []
        for o in asked:
            spec = server.resolve(o, rules.scoring)
            names[spec] = o if spec != o else server._name(spec)
            opponents.append(spec)
    deck = _words(body, "deck", 48)
    return {"rules": rules, "players": players, "seat": seat, "opponents": opponents, "seed": seed,
            "banker": banker, "deck": deck, "names": names}  # fmt: skip


def _refuse_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def create_app(server: Server | dict[str, Any] | None = None):
    """The Flask app of ``server`` (or of a dict of its fields: the page's defaults)."""
    from flask import Flask, Response, jsonify, request
    from werkzeug.exceptions import HTTPException

    from siete_env import cardart
    from siete_env.cards import parse_card

    if not isinstance(server, Server):
        server = Server(**(server or {}))
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config.update(DEBUG=False, TESTING=False, PROPAGATE_EXCEPTIONS=False, MAX_CONTENT_LENGTH=MAX_BODY)
    app.config["SERVER"] = server
    tables: dict[str, tuple[str, Table]] = {}  # table id -> (owner browser, table)
    lock = threading.Lock()

    def _error(message: str, status: int = 400, field: str | None = None):
        return jsonify({"error": cut(message, 300), "field": field}), status

    def _host_ok() -> bool:
        host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
        return host.strip("[]").lower() in server.hosts

    def _origin_ok() -> bool:
        """A browser's cross-origin request carries an Origin (and Sec-Fetch-Site) other
        than this server's: refused. A request without them (curl, a test client) is not
        a web page's."""
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return False
        return request.headers.get("Sec-Fetch-Site", "same-origin") in ("same-origin", "none")

    @app.before_request
    def _guard():
        if not _host_ok():
            return _error(f"Host {shown(request.host)} is not this server's (allowed: {', '.join(server.hosts)})", 403)
        if request.method not in ("GET", "HEAD") and not _origin_ok():
            return _error("only the table's own page can drive it (cross-origin request refused)", 403)
        return None

    @app.after_request
    def _headers(resp):
        h = resp.headers
        h["X-Frame-Options"] = "DENY"
        h["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
        )
        h["X-Content-Type-Options"] = "nosniff"
        h["Referrer-Policy"] = "no-referrer"
        h["Cross-Origin-Resource-Policy"] = "same-origin"
        h["Cross-Origin-Opener-Policy"] = "same-origin"
        if request.path.startswith("/api/"):
            h["Cache-Control"] = "no-store"
        return resp

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException):
        if err.code == 413:
            return _error(f"the request body is over {MAX_BODY // 1024} KB", 413)
        return _error(f"{err.code} {err.name}", err.code or 500)

    @app.errorhandler(Exception)
    def _crash(err: Exception):  # never a traceback or a debugger
        app.logger.exception("request failed")
        return _error("the server failed on this request", 500)

    def _body(allowed: tuple[str, ...]) -> dict[str, Any]:
        if request.mimetype != "application/json":
            raise TableError("the body must be JSON (Content-Type: application/json)")
        try:
            body = json.loads(request.get_data(cache=False), parse_constant=_refuse_constants)
        except (ValueError, RecursionError) as err:
            raise TableError(f"the body is not valid JSON ({cut(str(err), 80)})") from None
        if not isinstance(body, dict):
            raise TableError(f"the body must be a JSON object, got {type(body).__name__}")
        unknown = [k for k in body if k not in allowed]
        if unknown:
            raise TableError(
                f"unknown field {shown(unknown[0])}; allowed: {', '.join(allowed)}", unknown[0][:MAX_SHOWN]
            )
        return body

    def _browser() -> str:
        b = request.cookies.get(COOKIE, "")
        return b if 16 <= len(b) <= 64 and b.replace("-", "").replace("_", "").isalnum() else ""

    def _table(body: dict[str, Any]) -> Table:
        tid = body.get("table")
        if not isinstance(tid, str):
            raise TableError(f"table must be the id /api/new gave, got {shown(tid)}", "table")
        with lock:
            owner, t = tables.get(tid, ("", None))
        if t is None or not secrets.compare_digest(owner, _browser() or "-"):
            raise TableError("no such table (the server restarted, or it was closed): start a new one", "table")
        move = body.get("move")
        if isinstance(move, bool) or not isinstance(move, int):
            raise TableError(f"move must be the table's move counter (a whole number), got {shown(move)}", "move")
        return t

    def _check_move(t: Table, body: dict[str, Any]) -> None:
        if body["move"] != t.move:
            raise TableError(f"move {body['move']} is not the table's current move {t.move} (a replayed or stale request)",
                             "move")  # fmt: skip

    def _moved(t: Table) -> None:
        t.move += 1
        t.used = time.monotonic()

    def _make_room(browser: str) -> None:
        """Close this browser's oldest tables past its limit, then idle tables past the
        global cap; a live table of another browser is never closed (503 instead)."""
        mine = [tid for tid, (owner, _) in tables.items() if owner == browser]
        for tid in mine[: max(0, len(mine) - server.per_browser + 1)]:
            del tables[tid]
        if len(tables) < server.max_tables:
            return
        now = time.monotonic()
        idle = sorted((t.used, tid) for tid, (_, t) in tables.items() if now - t.used >= server.idle_seconds)
        for _, tid in idle[: len(tables) - server.max_tables + 1]:
            del tables[tid]
        if len(tables) >= server.max_tables:
            raise TableError(f"the server holds {server.max_tables} live tables: try again later", "table")

    @app.get("/")
    def index():
        return app.send_static_file("index.html")

    @app.get("/api/defaults")
    def defaults_():
        return jsonify(server.defaults())

    @app.post("/api/new")
    def new():
        try:
            settings = table_settings(_body(NEW_KEYS), server)
            if settings["seed"] is None:
                settings["seed"] = server.table_seed()
            browser = _browser() or secrets.token_urlsafe(18)
            with lock:
                _make_room(browser)
        except TableError as err:
            return _error(str(err), 503 if "live tables" in str(err) else 400, err.field)
        try:
            t = Table(**settings)
        except TableError as err:
            return _error(str(err), 400, err.field)
        tid = secrets.token_urlsafe(12)
        with lock:
            try:
                _make_room(browser)  # again: other tables may have come meanwhile
            except TableError as err:
                return _error(str(err), 503, err.field)
            tables[tid] = (browser, t)
        resp = jsonify({"table": tid, **t.state()})
        resp.set_cookie(COOKIE, browser, httponly=True, samesite="Strict", path="/")
        return resp

    @app.post("/api/act")
    def act():
        try:
            body = _body(("table", "action", "move"))
            t = _table(body)
            name = body.get("action")
            if not isinstance(name, str):
                raise TableError(f"action must be an action name, got {shown(name)}", "action")
            with t.lock:
                _check_move(t, body)
                t.act(name)  # a TableError naming the legal actions if it is not one
                _moved(t)
                return jsonify(t.state())
        except TableError as err:
            return _error(str(err), 400, err.field)

    @app.post("/api/next")
    def next_hand():
        try:
            body = _body(("table", "move"))
            t = _table(body)
            with t.lock:
                if not t.over:
                    raise TableError("the hand is still being played", "table")
                _check_move(t, body)
                t.new_hand()
                _moved(t)
                return jsonify(t.state())
        except TableError as err:
            return _error(str(err), 400, err.field)

    @app.get("/favicon.ico")
    def favicon():
        resp = Response(cardart.png(cardart.card_back(32)), mimetype="image/png")
        resp.headers["Cache-Control"] = "public, max-age=86400"
        return resp

    @app.get("/cards/<deck>/<card>.png")
    def card(deck: str, card: str):
        try:
            if deck not in cardart.DECKS:
                raise ValueError(f"unknown deck {shown(deck)}; decks: {', '.join(cardart.DECKS)}")
            img = cardart.card_back(96) if card == "back" else cardart.card_face(parse_card(card[:8]), deck, 96)
        except ValueError as err:
            return _error(str(err), 404)
        resp = Response(cardart.png(img), mimetype="image/png")
        resp.headers["Cache-Control"] = "public, max-age=86400"
        return resp

    app.config["TABLES"] = tables
    return app


def models_in(folder: str | Path) -> dict[str, str]:
    """``model:NAME`` -> spec of each model file in ``folder`` (the operator's): ``NAME.zip``
    a ``ppo:`` model (read as weights only), ``NAME.npz`` a ``table:`` pair."""
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"--models {folder}: not a folder")
    out: dict[str, str] = {}
    for f in sorted(root.iterdir()):
        if f.suffix in (".zip", ".npz") and f.is_file():
            spec = f"{'ppo' if f.suffix == '.zip' else 'table'}:{f}"
            check_spec(spec)
            if f.suffix == ".zip":
                from agents.learned import load_policy

                load_policy(str(f))  # weights only: a file that is not a model is refused now
            out[f"model:{f.stem}"] = spec
    if not out:
        raise ValueError(f"--models {folder}: no .zip or .npz model in it")
    return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="siete-table",
        description="Serve a web table on localhost: play Siete y Media in a browser against the agents.",
        epilog=SPEC_HELP,
    )
    ap.add_argument("--version", action="version", version=version_text("siete-table"))
    ap.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    ap.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    ap.add_argument("--players", type=int, default=2, help="table size, 2..12 (default 2)")
    ap.add_argument("--seat", type=int, default=1, help="your seat, 0..players-1 (default 1)")
    ap.add_argument("--rules", default="spanish", help="a preset name or a rules YAML file (default spanish)")
    ap.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="agent specs for the other seats, in seat order (default: the pretrained agents); "
        "the page may name these again (files as model:NAME)",
    )
    ap.add_argument(
        "--models", default=None, help="a folder of model files (.zip, .npz) the page may pick as model:NAME"
    )
    ap.add_argument("--banker", type=int, default=None, help="the first banker's seat (default: drawn)")
    ap.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the server's private seed: the tables' seeds derive from it (default: fresh)",
    )
    ap.add_argument(
        "--allow-host",
        action="append",
        default=[],
        help="a host name the page may be reached by besides 127.0.0.1 / localhost / ::1 (with --host 0.0.0.0)",
    )
    ap.add_argument("--threads", type=int, default=4, help="request threads (default 4)")
    return ap


def make_server(args: argparse.Namespace) -> Server:
    """The ``Server`` of a command line: every file it names read now (rules, models)."""
    from siete_env.rules import is_rules_file

    rules = resolve_rules(args.rules) if is_rules_file(args.rules) else args.rules
    models = models_in(args.models) if args.models else {}
    hosts = (*LOCAL_HOSTS, *(h.lower() for h in args.allow_host))
    if args.host not in ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost"):
        hosts = (*hosts, args.host.lower())
    return Server(rules=rules, players=args.players, seat=args.seat, opponents=args.opponents, banker=args.banker,
                  seed=args.seed, models=models, hosts=hosts)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 < args.port < 65536:
        build_parser().error(f"--port must be 1..65535, got {args.port}")
    try:
        import flask  # noqa: F401
        import waitress
    except ImportError:
        print("the web table needs Flask and waitress: pip install 'siete-env[web]' (or pip install flask waitress)")
        return 2
    try:
        server = make_server(args)
        for spec in server.opponents or ():
            check_spec(spec)
        s = table_settings({}, server)
        s["seed"] = 0
        Table(**s)  # refuse bad settings now, not in the first page
    except (TableError, ValueError) as err:
        build_parser().error(str(err))
    if args.host not in LOCAL_HOSTS:
        print(
            f"warning: --host {args.host} serves the table to other machines: anyone who reaches this port can "
            "play on it (no login); the page is answered only as "
            f"{', '.join(server.hosts)} (--allow-host NAME adds one)"
        )
    app = create_app(server)
    print(f"the table is at http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    waitress.serve(
        app, host=args.host, port=args.port, threads=args.threads, channel_timeout=30, connection_limit=200,
        max_request_body_size=MAX_BODY, max_request_header_size=16 * 1024, ident="siete-table",
    )  # fmt: skip
    return 0


__all__ = ["Server", "Table", "TableError", "create_app", "main", "table_settings"]
