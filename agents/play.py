"""Play Siete y Media against the agents in the terminal (``python play.py``, ``siete-play``).

    python play.py --seat 1 --rules spanish --players 2 --opponents smart:6
    python play.py --seat 0 --banker 0 --players 4 --opponents threshold:5 bold:5.5 ppo:runs/default-s0/punter.zip
    python play.py --seat 1 --opponents banker:6 --deck 5o 7c 1b --script moves.txt   # scripted, reproducible

You take seat ``--seat`` (``player_<seat>``) at a table of ``--players`` under any preset or
rules file (``--rules``, ``--rule option=value``); every other seat is played by an agent spec
(``--opponents``, given in seat order and repeated as needed; see ``agents.specs``). Each
decision shows the table as your seat sees it (rich): your cards with your face-down card
marked, the other seats' face-up cards (their face-down cards as ``▒▒``), stakes, totals,
chips and whose turn it is, then your legal actions by name. Answer with the action's
number or name (``hit_up``, ``2``; a unique prefix is enough), ``?`` for help or ``q`` to
stop. After every episode: the table as it ended, every seat's chips and your running
score. Moves are read from the terminal, or from ``--script FILE`` (one per line; ``-``:
standard input), which is how the tests play a hand to its payout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from agents.specs import SPEC_HELP, check_spec, make_agent
from siete_env import version_text
from siete_env.guide import describe_action, player_guide
from siete_env.render import amount, unit_of
from siete_env.view import event_lines, seat_view

_MAX_REPLY = 200  # characters of a reply read (a move is a word or a number)


def escape(text: str) -> str:
    """``text`` safe to print as rich markup (a reply or a spec with square brackets)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class Moves:
    """The human's moves: lines of a script, or prompts on the terminal."""

    def __init__(self, source: TextIO | None, console: Any):
        self.console = console
        self.lines: Iterator[str] | None = iter(source) if source is not None else None

    def next(self, prompt: str) -> str | None:
        if self.lines is None:
            try:
                return self.console.input(prompt)[:_MAX_REPLY]
            except EOFError:
                return None
        try:
            for line in self.lines:
                line = line.split("#", 1)[0].strip()[:_MAX_REPLY]
                if line:
                    self.console.print(f"{prompt}{escape(line)}")
                    return line
        except UnicodeDecodeError as err:
            self.console.print(f"[red]error: the moves are not UTF-8 text (byte {err.start})[/red]")
        return None


def parse_move(text: str, legal: list[str]) -> str | None:
    """The legal action a reply names: its number in the list (ASCII digits), its name, or
    a unique prefix."""
    t = text.strip().upper().replace(" ", "_").replace("-", "_")
    if t.isascii() and t.isdigit():
        return legal[int(t) - 1] if len(t) <= 3 and 1 <= int(t) <= len(legal) else None
    if t in legal:
        return t
    hits = [a for a in legal if a.startswith(t)] if t else []
    return hits[0] if len(hits) == 1 else None


def table_view(raw: Any, me: int, names: dict[int, str], title: str) -> Any:
    """The table as seat ``me`` sees it (``siete_env.view.seat_view``: the one place that
    decides what a seat sees), as a rich Table: your face-down card marked ``*``, the cards
    you may not see as ``▒▒``."""
    from rich.table import Table

    view = seat_view(raw, me)
    t = Table(title=f"{title} — {view.header}", title_justify="left", show_lines=False, expand=False)
    for col in ("", "seat", "role", "cards", "total", "stake", "status", view.unit):
        t.add_column(col)
    for s in view.seats:
        who = f"player_{s.seat}" + (" (you)" if s.you else f" {names.get(s.seat, '')}")
        for h, hand in enumerate(s.hands):
            cards = ", ".join(
                "[dim]▒▒[/dim]"
                if c.id is None
                else (f"[reverse]{c.name}[/reverse]*" if c.face_down else f"[bold]{c.name}[/bold]")
                for c in hand.cards
            )
            t.add_row(
                "▶" if hand.acting else "",
                who if h == 0 else f"  hand {h}",
                s.role if h == 0 else "",
                cards,
                hand.total,
                str(hand.stake) if hand.stake else "",
                hand.status,
                f"{s.chips:+d}" if h == 0 else "",
            )
    return t


def guide_text(raw: Any) -> str:
    """``?``: the rules of this table in a few lines, and how to answer."""
    lines = [f"[bold]How this table plays[/bold] ({escape(raw.rules.preset)} rules)"]
    lines += [f"  • {escape(line)}" for line in player_guide(raw.rules)]
    lines.append(
        "Answer with an action's number, its name (hit_up, HIT UP) or a unique prefix (st); "
        "? shows this, q stops. The table: your face-down card is marked *, cards you may not see are ▒▒, "
        "a total with +? has a card you do not see."
    )
    return "\n".join(lines)


def open_script(path: str) -> TextIO:
    """The moves file of ``--script``, read whole (UTF-8 text); a ``ValueError`` naming it."""
    import io
    from pathlib import Path

    p = Path(path)
    try:
        if not p.is_file():
            raise ValueError(f"--script {path}: {'no such file' if not p.exists() else 'not a regular file'}")
        if p.stat().st_size > 1 << 20:
            raise ValueError(f"--script {path}: {p.stat().st_size:,} bytes; a moves file is at most 1 MiB")
        return io.StringIO(p.read_bytes().decode("utf-8"))
    except OSError as err:
        raise ValueError(f"--script {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"--script {path}: not UTF-8 text (byte {err.start})") from None


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="siete-play",
        description="Play Siete y Media against the agents in the terminal.",
        epilog=SPEC_HELP,
    )
    ap.add_argument("--version", action="version", version=version_text("siete-play"))
    ap.add_argument("--seat", type=int, default=1, help="your seat, 0..players-1 (default 1)")
    ap.add_argument("--players", type=int, default=2, help="table size, 2..12 (default 2)")
    ap.add_argument("--rules", default="spanish", help="a preset name or a rules YAML file (default spanish)")
    ap.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE", help="a rule option (repeatable)")
    ap.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="agent specs for the other seats, in seat order (default: the pretrained agents of this table; "
        "where none are shipped, smart:6 and bold:5.5, or quattro:5 at quattro e mezzo)",
    )
    ap.add_argument("--banker", type=int, default=None, help="the first banker's seat (default: drawn)")
    ap.add_argument("--episodes", type=int, default=3, help="episodes to play (default 3; q stops earlier)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deck", nargs="+", default=None, help="stack the first episode's deck: card ids in dealing order")
    ap.add_argument("--script", default=None, help="read your moves from this file ('-': standard input)")
    return ap


def main(argv: list[str] | None = None, stdin: TextIO | None = None, console: Any = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        from rich.console import Console
    except ImportError:  # pragma: no cover - depends on the install
        print("play needs rich: pip install rich (or pip install -e '.[play]')", file=sys.stderr)
        return 2
    from siete_env import raw_env
    from siete_env.rules import rules_with_options

    console = console or Console(highlight=False)

    def refuse(message: str) -> int:
        console.print(f"[red]error: {escape(message)}[/red]")
        return 2

    if not 2 <= args.players <= 12:
        return refuse(f"--players must be 2..12, got {args.players}")
    if not 0 <= args.seat < args.players:
        return refuse(f"--seat must be 0..{args.players - 1} (a seat of the table of {args.players}), got {args.seat}")
    if args.banker is not None and not 0 <= args.banker < args.players:
        return refuse(f"--banker must be a seat 0..{args.players - 1}, got {args.banker}")
    if args.episodes < 1:
        return refuse(f"--episodes must be at least 1, got {args.episodes}")
    if args.seed < 0:
        return refuse(f"--seed must be a non-negative integer, got {args.seed}")
    note = ""
    try:
        for spec in args.opponents or ():
            check_spec(spec)
        e = raw_env(num_players=args.players, rules=rules_with_options(args.rules, args.rule))
        if args.deck:
            from siete_env.cards import parse_deck

            try:
                parse_deck(args.deck, e.rules.deck_cards())
            except ValueError as err:
                raise ValueError(f"--deck: {err}") from None
        others = [s for s in range(args.players) if s != args.seat]
        if args.opponents:
            specs = {s: args.opponents[i % len(args.opponents)] for i, s in enumerate(others)}
        else:  # the pretrained pair (either spec plays both roles), else heuristics sit in
            first = args.banker if args.banker is not None else others[0]
            specs = {s: "pretrained:banker" if s == first else "pretrained:punter" for s in others}
            try:
                make_agent("pretrained:banker", e)
            except ValueError as err:
                from .pretrained import STAND_INS

                bank, punt = STAND_INS[e.rules.scoring]
                specs = {s: bank if s == first else punt for s in others}
                note = f"{str(err).split(';')[0].removeprefix('pretrained:banker: ')}: heuristics sit in"
        agents = {s: make_agent(spec, e, seed=args.seed + s) for s, spec in specs.items()}
        if args.script == "-":
            source: TextIO | None = stdin or sys.stdin
        elif args.script:
            source = open_script(args.script)
        else:
            source = stdin
    except ValueError as err:
        return refuse(str(err))
    names = {s: f"[cyan]{escape(spec)}[/cyan]" for s, spec in specs.items()}
    if note:
        console.print(f"[dim]{escape(note)}[/dim]")
    me = args.seat
    moves = Moves(source, console)
    score = 0
    console.print(
        f"[bold]Siete y Media[/bold] — {e.rules.preset} rules, {args.players} players; you are "
        f"[bold]player_{me}[/bold]. Opponents: " + ", ".join(f"player_{s} {names[s]}" for s in others)
    )
    try:
        for episode in range(1, args.episodes + 1):
            options: dict[str, Any] = {}
            if args.banker is not None:
                options["banker"] = args.banker
            if args.deck and episode == 1:
                options["deck"] = args.deck
            e.reset(seed=args.seed if episode == 1 else None, options=options or None)
            console.rule(f"episode {episode} — hand {e.hands_before + 1}")
            start_chips = list(e.game.chips)
            seen = 0

            def announce() -> None:
                """What happened since the last look, as the seat may know it: swaps, stands,
                busts, cards turned up, payments (``siete_env.view.event_lines``)."""
                nonlocal seen
                for line in event_lines(e, me, seen):
                    console.print(f"  [dim]·[/dim] {escape(line)}")
                seen = len(e.game.events)

            for agent in e.agent_iter():
                _, _, term, trunc, info = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                seat = e.seat_of(agent)
                if seat != me:
                    e.step(agents[seat](e.observe(agent)))
                    announce()  # what the table saw: a swap, a stand, a bust, cards turned up
                    continue
                announce()
                legal = list(info["legal_actions"])
                console.print(table_view(e, me, names, f"your turn ({info['role']})"))
                for i, name in enumerate(legal, 1):
                    console.print(f"  [bold]{i}[/bold]) {name:<12} [dim]{describe_action(name, e.rules)}[/dim]")
                while True:
                    reply = moves.next("your move: ")
                    if reply is None or reply.strip().lower() in ("q", "quit", "exit"):
                        console.print(f"stopped. Your score: [bold]{score:+d}[/bold] {unit_of(e.game)}")
                        return 0
                    if reply.strip() == "?":
                        console.print(guide_text(e))
                        continue
                    name = parse_move(reply, legal)
                    if name is not None:
                        break
                    console.print(
                        f"[red]{escape(repr(reply))} is not one of your legal actions[/red]: {', '.join(legal)}"
                    )
                e.step(e.action_id(name))
            g = e.game
            announce()
            console.print(table_view(e, me, names, "the table at the end of the episode"))
            won = g.chips[me] - start_chips[me]
            score += won
            results = ", ".join(f"player_{s} {g.chips[s]:+d}" for s in range(args.players))
            unit = unit_of(g)
            verdict = (
                f"you win {amount(won, unit)}"
                if won > 0
                else (f"you lose {amount(-won, unit)}" if won < 0 else "you break even")
            )
            for line in seat_view(e, me).why:
                console.print(f"why: {escape(line)}")
            console.print(f"result: {results} — [bold]{verdict}[/bold]; running score [bold]{score:+d}[/bold]")
    finally:
        if args.script and args.script != "-" and source is not None:
            source.close()
    console.print(f"final score after {args.episodes} episode(s): [bold]{score:+d}[/bold] {unit_of(e.game)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
