"""The readable reference engine and encoder: the oracle the kernels are checked against."""

from .encoder import Encoder
from .game import Game

__all__ = ["Encoder", "Game"]
