"""The web table: play Siete y Media in a browser against the agents (``siete-table``).

    siete-table                                   # heads-up against the pretrained agents, http://127.0.0.1:8000
    siete-table --players 4 --opponents smart:6 bold:5.5 --rules italian --port 8080

The page (``static/``) shows the table as your seat sees it (``siete_env.view.seat_view``:
your own face-down card, everyone's face-up cards, backs for the rest), the cards drawn by
``siete_env.cardart`` (the faces the ``rgb_array`` frames show), your legal moves as buttons
(keys 1-9; Enter deals the next hand), what happens at the table as it happens, each
hand's result and your running score. The game runs through the environment (``raw_env``)
and the agents through their specs; the server keeps one table a browser tab.

Served by **Flask** (on Werkzeug): the most used small Python web framework, a dependency
of nothing heavy, with a test client and a development server that is all a page on
localhost needs (it listens on 127.0.0.1 only unless ``--host`` says otherwise).
"""

from __future__ import annotations

import argparse
import secrets
import threading
from typing import Any

from agents.specs import SPEC_HELP, check_spec, make_agent
from siete_env.guide import describe_action, player_guide
from siete_env.view import event_lines, seat_view

DEFAULT_OPPONENTS = ("pretrained:banker", "pretrained:punter")  # the banker's seat, a punter's seat
HEURISTICS = {
    "stakes": ("smart:6", "bold:5.5"),
    "points": ("quattro:5", "quattro:5"),
}  # where the pretrained cannot sit
MAX_TABLES = 64  # tables kept at once (the oldest goes first)


class TableError(ValueError):
    """A bad request: the message says what is wrong and what is allowed."""


class Table:
    """One person's table: their seat, the agents at the other seats, the running score."""

    def __init__(
        self,
        rules: Any = "spanish",
        players: int = 2,
        seat: int = 1,
        opponents: list[str] | None = None,
        seed: int | None = None,
        banker: int | None = None,
        deck: list[str] | None = None,
    ):
        from siete_env import raw_env

        try:
            self.env = raw_env(num_players=players, rules=rules)  # it checks the table size
        except (ValueError, TypeError) as err:
            raise TableError(str(err)) from None
        if not 0 <= seat < players:
            raise TableError(f"seat must be 0..{players - 1} at a table of {players}, got {seat}")
        if banker is not None and not 0 <= banker < players:
            raise TableError(f"banker must be 0..{players - 1}, got {banker}")
        try:
            others = [s for s in range(players) if s != seat]
            self.note = ""
            try:
                self.specs, self.agents = self._seat(opponents, others, banker, seed)
            except ValueError as err:
                if opponents:
                    raise
                # the pretrained agents play heads-up spanish only: heuristics sit in elsewhere
                fallback = HEURISTICS[self.env.rules.scoring]
                self.specs, self.agents = self._seat(list(fallback), others, banker, seed, by_role=True)
                self.note = (
                    f"the pretrained agents play heads-up spanish only ({err.args[0].split(';')[0]}): heuristics sit in"
                )
        except (ValueError, TypeError) as err:
            raise TableError(str(err)) from None
        self.me, self.seed, self.banker, self.deck = seat, seed, banker, deck
        self.episode = 0
        self.score = 0
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
            raise TableError(str(err)) from None
        self.episode += 1
        self._start = list(self.env.game.chips)
        self._seen = 0
        self._advance()

    @property
    def over(self) -> bool:
        return not self.env.agents

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
                f"{name!r} is not one of your legal actions now: {', '.join(legal) or 'none (not your turn)'}"
            )
        self.env.step(self.env.action_id(name))
        self._advance()

    def _advance(self) -> None:
        e = self.env
        while e.agents:
            agent = e.agent_selection
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            seat = e.seat_of(agent)
            if seat == self.me:
                break
            e.step(self.agents[seat](e.observe(agent)))
        self._read_events()
        if not e.agents:
            won = e.game.chips[self.me] - self._start[self.me]
            self.score += won
            self.results.append({"episode": self.episode, "won": won, "chips": list(e.game.chips)})

    def _read_events(self) -> None:
        events = self.env.game.events
        self.log += event_lines(self.env, self.me, self._seen)
        self._seen = len(events)
        del self.log[:-300]

    def state(self) -> dict[str, Any]:
        """Everything the page shows, as JSON: the table as your seat sees it, your legal
        moves, what happened, the last result and the running score."""
        view = seat_view(self.env, self.me).to_dict()
        for s in view["seats"]:
            s["name"] = "you" if s["seat"] == self.me else self.specs[s["seat"]]
        legal = self.legal()
        return {
            "view": view,
            "deck": self.env.rules.deck,
            "preset": self.env.rules.preset,
            "legal": [{"name": n, "help": describe_action(n)} for n in legal],
            "log": self.log[-80:],
            "episode": self.episode,
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


def create_app(defaults: dict[str, Any] | None = None):
    """The Flask app; ``defaults`` are the table settings a page starts with (the command
    line's), which the page's URL may override (``?players=3&rules=italian``)."""
    from flask import Flask, Response, jsonify, request

    from siete_env import cardart
    from siete_env.cards import parse_card

    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config["TABLE_DEFAULTS"] = dict(defaults or {})
    tables: dict[str, Table] = {}
    lock = threading.Lock()

    def _error(err: Exception, status: int = 400):
        return jsonify({"error": str(err)}), status

    def _table() -> Table:
        tid = (request.get_json(silent=True) or {}).get("table") or request.args.get("table", "")
        with lock:
            t = tables.get(tid)
        if t is None:
            raise TableError("no such table (the server restarted, or it was closed): start a new one")
        return t

    @app.get("/")
    def index():
        return app.send_static_file("index.html")

    @app.get("/api/defaults")
    def defaults_():
        return jsonify(app.config["TABLE_DEFAULTS"])

    @app.post("/api/new")
    def new():
        body = {**app.config["TABLE_DEFAULTS"], **(request.get_json(silent=True) or {})}
        try:
            settings = _settings(body)
            t = Table(**settings)
        except TableError as err:
            return _error(err)
        tid = secrets.token_urlsafe(12)
        with lock:
            tables[tid] = t
            while len(tables) > MAX_TABLES:
                tables.pop(next(iter(tables)))
        return jsonify({"table": tid, **t.state()})

    @app.post("/api/act")
    def act():
        try:
            t = _table()
            name = str((request.get_json(silent=True) or {}).get("action", ""))
            with t.lock:
                t.act(name)
                return jsonify(t.state())
        except TableError as err:
            return _error(err)

    @app.post("/api/next")
    def next_hand():
        try:
            t = _table()
            with t.lock:
                if not t.over:
                    raise TableError("the hand is still being played")
                t.new_hand()
                return jsonify(t.state())
        except TableError as err:
            return _error(err)

    @app.get("/cards/<deck>/<card>.png")
    def card(deck: str, card: str):
        try:
            if deck not in cardart.DECKS:
                raise ValueError(f"unknown deck {deck!r}; decks: {', '.join(cardart.DECKS)}")
            img = cardart.card_back(96) if card == "back" else cardart.card_face(parse_card(card), deck, 96)
        except ValueError as err:
            return _error(err, 404)
        resp = Response(cardart.png(img), mimetype="image/png")
        resp.headers["Cache-Control"] = "public, max-age=86400"
        return resp

    return app


def _settings(body: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from a request (or the command line), checked."""

    def integer(key: str, default: int | None) -> int | None:
        v = body.get(key, default)
        if v is None or v == "":
            return default
        try:
            return int(v)
        except (TypeError, ValueError):
            raise TableError(f"{key} must be a whole number, got {v!r}") from None

    opponents = body.get("opponents") or None
    if isinstance(opponents, str):
        opponents = [o for o in opponents.replace(",", " ").split() if o]
    deck = body.get("deck") or None
    if isinstance(deck, str):
        deck = [c for c in deck.replace(",", " ").split() if c]
    rules = body.get("rules") or "spanish"
    return {
        "rules": rules,
        "players": integer("players", 2),
        "seat": integer("seat", 1),
        "opponents": opponents,
        "seed": integer("seed", None),
        "banker": integer("banker", None),
        "deck": deck,
    }


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="siete-table",
        description="Serve a web table on localhost: play Siete y Media in a browser against the agents.",
        epilog=SPEC_HELP,
    )
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
        help="agent specs for the other seats, in seat order (default: the pretrained agents)",
    )
    ap.add_argument("--banker", type=int, default=None, help="the first banker's seat (default: drawn)")
    ap.add_argument("--seed", type=int, default=None, help="the first hand's seed (default: fresh)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 < args.port < 65536:
        build_parser().error(f"--port must be 1..65535, got {args.port}")
    try:
        import flask  # noqa: F401
    except ImportError:
        print("the web table needs Flask: pip install 'siete-env[web]' (or pip install flask)")
        return 2
    defaults = {
        "players": args.players, "seat": args.seat, "rules": args.rules, "opponents": args.opponents,
        "banker": args.banker, "seed": args.seed,
    }  # fmt: skip
    try:
        Table(**_settings(defaults))  # refuse bad settings now, not in the first page
    except TableError as err:
        build_parser().error(str(err))
    app = create_app(defaults)
    print(f"the table is at http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    app.run(host=args.host, port=args.port, threaded=True)
    return 0


__all__ = ["Table", "TableError", "create_app", "main"]
