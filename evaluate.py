"""Evaluate agents: tournaments, exact values, CFR+ solving, learned best responses (the
code: ``training/evaluate_cli.py``; installed as the console script ``siete-evaluate``).

    python evaluate.py --punters threshold:5.5 bold:5.5 --bankers banker:6 smart:6
    python evaluate.py --exact --rule max_splits=0 --punters pretrained:punter --bankers smart:6
"""

import sys

from training.evaluate_cli import *  # noqa: F403 (its API: main, rules_arg, ...)
from training.evaluate_cli import main, rules_arg  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
