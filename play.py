"""Play Siete y Media against the agents in the terminal (see ``agents/play.py``).

python play.py --seat 1 --rules spanish --players 2 --opponents smart:6
"""

from agents.play import main

if __name__ == "__main__":
    raise SystemExit(main())
