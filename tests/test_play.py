"""``play.py``: a person against the agents, driven here by scripted input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rich")
from rich.console import Console  # noqa: E402

from agents.play import main, parse_move  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# the punter (you, seat 1) gets 5o face-down, the banker 12b; you hit 1b (6) and stand; the
# banker hits 5c (5½) and 3e (8½): bust, you win your stake of 2
DECK = ["5o", "12b", "1b", "5c", "3e"]
ARGS = ["--seat", "1", "--players", "2", "--opponents", "banker:6", "--banker", "0", "--episodes", "1"]


def _play(moves: str, extra: list[str] | None = None) -> tuple[int, str]:
    buf = io.StringIO()
    console = Console(file=buf, width=120, force_terminal=False, color_system=None)
    code = main([*ARGS, "--deck", *DECK, "--script", "-", *(extra or [])], stdin=io.StringIO(moves), console=console)
    return code, buf.getvalue()


def test_a_full_hand_to_its_payout():
    code, out = _play("BET_2\nhit_up\n1\n")
    assert code == 0
    assert "your move: BET_2" in out and "your move: hit_up" in out and "your move: 1" in out
    assert "player_1 banker:6" not in out and "player_0 banker:6" in out
    assert "result: player_0 -2, player_1 +2 — you win 2 chips; running score +2" in out
    assert "final score after 1 episode(s): +2 chips" in out
    before_stand = out.split("your move: 1")[0]
    assert (
        "12b" not in before_stand and "rey de bastos" not in before_stand
    )  # the banker's face-down card, before its turn
    assert "5 de oros*" in before_stand  # your own face-down card is shown to you, marked
    assert "▒▒" in before_stand
    end = out.split("the table at the end of the episode")[1]
    assert "rey de bastos, 5 de copas, 3 de espadas" in end and "bust" in end


def test_bad_replies_and_quitting():
    code, out = _play("fold\nbet_9\nBET_1\nq\n")
    assert code == 0
    assert "'fold' is not one of your legal actions" in out
    assert "'bet_9' is not one of your legal actions" in out
    assert "stopped. Your score: +0 chips" in out


def test_parse_move():
    legal = ["STAND", "HIT_UP", "HIT_DOWN", "RAISE_3"]
    assert parse_move("2", legal) == "HIT_UP"
    assert parse_move("hit down", legal) == "HIT_DOWN"
    assert parse_move("st", legal) == "STAND"
    assert parse_move("hit", legal) is None  # ambiguous
    assert parse_move("9", legal) is None


def test_bad_arguments():
    assert _play("", ["--opponents", "nobody:3"])[0] == 2
    assert _play("", ["--seat", "5"])[0] == 2


def test_play_py_command_line(tmp_path):
    script = tmp_path / "moves.txt"
    script.write_text("BET_2  # stake 2\nHIT_UP\nSTAND\n")
    proc = subprocess.run(
        [sys.executable, "play.py", *ARGS, "--deck", *DECK, "--script", str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "you win 2 chips" in proc.stdout and "running score +2" in proc.stdout


def test_help_is_a_players_guide_to_this_table():
    code, out = _play("?\nq\n")
    assert code == 0
    assert "How this table plays (spanish rules)" in out
    for words in ("figures (sota, caballo, rey) count ½", "Ties go to the banker", "a 7½ pays 2×", "four-swap"):
        assert words in out, words
    _, italian = _play("?\nq\n", ["--rules", "italian", "--deck", "5o", "12b", "1b"])
    assert "re di denari is wild" in italian and "fante, cavallo, re" in italian


def test_the_other_seats_moves_are_announced():
    """A swap and a stand by another punter, the banker's cards turned up and its bust, the
    payments: each said as it happens; nobody's face-down card named before it is shown."""
    buf = io.StringIO()
    console = Console(file=buf, width=120, force_terminal=False, color_system=None)
    deck = ["5o", "4c", "12b", "1b", "7e", "5c", "3e", "2o"]
    args = ["--seat", "1", "--players", "3", "--opponents", "banker:6", "bold:5.5", "--banker", "0", "--episodes", "1"]
    code = main([*args, "--deck", *deck, "--script", "-"], stdin=io.StringIO("BET_2\nHIT_UP\nSTAND\n"), console=console)
    out = buf.getvalue()
    assert code == 0
    for line in ("player 2 gives back the 4 de copas", "player 2 stakes 5", "player 2 stands",
                 "player 0 turns up the rey de bastos", "player 0 busts", "player 0 pays you 2 chips"):  # fmt: skip
        assert line in out, line
    before = out[: out.index("player 2 turns up")]
    assert "7 de espadas" not in before and "7e" not in before  # player 2's face-down card, until shown


def test_versions_and_help_name_the_defaults(capsys):
    import pytest

    from agents.play import build_parser
    from training.evaluate_cli import build_parser as evaluate_parser

    for ap in (build_parser(), evaluate_parser()):
        with pytest.raises(SystemExit):
            ap.parse_args(["--version"])
        assert "siete-env " in capsys.readouterr().out
    assert "default: the pretrained agents of this table" in build_parser().format_help()
    text = evaluate_parser().format_help()
    for flag in ("--punters", "--bankers", "--seed", "--workers"):
        assert flag in text
    assert "threshold:T" in text and "pretrained:banker" in text and "Defaults: --punters threshold:5.5" in text


@pytest.mark.parametrize(("table", "seated"), [
    (["--players", "4", "--rules", "italian"], ["player_0 pretrained:banker", "player_2 pretrained:punter"]),
    (["--players", "3"], ["player_0 smart:6", "player_2 bold:5.5", "heuristics sit in"]),
])  # fmt: skip
def test_the_default_opponents_are_the_pretrained_agents_of_the_table(table, seated):
    buf = io.StringIO()
    console = Console(file=buf, width=400, force_terminal=False, color_system=None)
    args = ["--seat", "1", "--banker", "0", "--episodes", "1", "--script", "-", *table]
    assert main(args, stdin=io.StringIO("q\n"), console=console) == 0
    for text in seated:
        assert text in buf.getvalue()
