"""The training config (``configs/train/*.yaml``): every key validated, overrides from
the command line.

``load_config(path, overrides)`` reads a YAML file (default ``configs/train/default.yaml``)
plus ``key=value`` overrides (dotted keys, YAML values) into a frozen ``TrainConfig``; any
problem is a ``ValueError`` naming the key and what is allowed. Used by ``train.py`` (a
run) and ``evaluate.py --run`` (a run's report).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from agents.specs import AgentSpec, check_spec
from siete_env.rules import check_table, cut, load_yaml, parse_rule_value, read_yaml_mapping, resolve_rules, shorten

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "train" / "default.yaml"  # configs/ at the root links here
# The keys of the pools learner (MaskablePPO against pools of opponents), deleted with it
# (docs/experiments.md#the-pools-learner), each with the value a vine run's config.yaml lists
# it at (a run folder's config.yaml holds every key): that value is read and dropped, any
# other is refused, naming the key.
RETIRED = {"learner": "vine", "rounds": 1, "n_envs": 8, "vec_env": "batched", "parallel": True}
RETIRED_ROLE = {"steps": None, "baseline_share": 0.5}
RETIRED_PPO = {"n_steps": 256, "batch_size": 512, "n_epochs": 4, "gamma": 1.0, "gae_lambda": 0.95, "clip_range": 0.2,
               "ent_coef": 0.0, "ent_coef_final": None, "vf_coef": 0.5}  # fmt: skip
RETIRED_OPPONENTS = {"baseline_punters": ["threshold:5", "threshold:5.5", "bold:5.5"],
                     "baseline_bankers": ["banker:5.5", "banker:6", "smart:6"], "snapshots": 0,
                     "weighting": "prioritized", "temperature": 0.1, "exploiter_share": 0.0,
                     "copunters": "baselines"}  # fmt: skip


def _retire(data: Any, retired: dict[str, Any]) -> Any:
    """``data`` without the retired keys at their old defaults; an error (``retired_key``,
    its ``key`` in the context) for a retired key given any other value."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    for key, old in retired.items():
        if key not in data:
            continue
        if data[key] != old:
            if key == "learner":
                msg = (
                    "the only learner is vine: remove the key (the pools learner, MaskablePPO against pools of "
                    "opponents, was deleted: docs/experiments.md#the-pools-learner)"
                )
            else:
                msg = (
                    "a key of the pools learner, deleted (docs/experiments.md#the-pools-learner): remove it; the "
                    "vine learner's budget is vine.iterations, vine.punter_hands, vine.banker_hands and vine.steps"
                    + ("; its pull toward uniform play ppo.magnet" if key.startswith("ent_coef") else "")
                )
            raise PydanticCustomError("retired_key", msg, {"key": key, "value": data[key]})
        del data[key]
    return data


# --------------------------------------------------------------------------- config
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rates(NamedTuple):
    """A generation's rates (``PPOConfig.at``)."""

    learning_rate: float
    magnet: float  # VinePPO's pull toward the uniform policy


class PPOConfig(_Strict):
    """A learner's network and its mirror-descent step (``training.vine.VinePPO``; the
    names are SB3's where it has them). The defaults are the shipped recipe's
    (``configs/train/default.yaml``)."""

    learning_rate: float = Field(5e-3, gt=0)
    learning_rate_final: float | None = Field(
        1e-3,
        gt=0,
        description="if set: the learning rate goes linearly from learning_rate (generation 1) to this (the last)",
    )
    magnet: float = Field(
        0.05,
        ge=0,
        description="the pull toward the magnet, the uniform policy: weight of KL(new policy || uniform) in the loss",
    )
    magnet_final: float | None = Field(
        0.005,
        ge=0,
        description="if set: the magnet's weight goes linearly from magnet (generation 1) to this (the last)",
    )
    kl_coef: float = Field(
        0.3,
        ge=0,
        description="the mirror-descent step: weight of KL(new policy || the policy that played) in the loss",
    )
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field(default_factory=lambda: [128, 128])
    activation: Literal["tanh", "relu"] = "tanh"

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        return _retire(data, RETIRED_PPO)

    @field_validator("net_arch")
    @classmethod
    def _arch(cls, v: list[int]) -> list[int]:
        if not v or any(x < 1 for x in v):
            raise ValueError(f"net_arch is a list of positive layer widths, e.g. [128, 128], got {v}")
        return v

    def at(self, generation: int, generations: int) -> Rates:
        """The rates of a generation (1-based): linear from the first generation's values
        to the ``*_final`` ones at the last (constant where ``*_final`` is unset)."""
        f = (generation - 1) / (generations - 1) if generations > 1 else 0.0

        def walk(first: float, final: float | None) -> float:
            return first if final is None else first + f * (final - first)

        return Rates(walk(self.learning_rate, self.learning_rate_final), walk(self.magnet, self.magnet_final))


class RoleConfig(_Strict):
    """One learner."""

    ppo: PPOConfig = Field(default_factory=PPOConfig)

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        return _retire(data, RETIRED_ROLE)


class OpponentsConfig(_Strict):
    """How the snapshots play."""

    sample: bool = Field(
        True,
        description="the snapshots play by sampling their action probabilities (false: greedy, their most "
        "probable action): in the exact evaluation, in mixtures and in the report",
    )

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        return _retire(data, RETIRED_OPPONENTS)


class EvaluationConfig(_Strict):
    """The final evaluation (a round robin by role) and the per-generation one."""

    hands: int = Field(50_000, ge=100, description="hands per pairing in the final report")
    punters: list[str] = Field(default_factory=lambda: ["random", "threshold:5", "threshold:5.5", "bold:5.5"])
    bankers: list[str] = Field(default_factory=lambda: ["random", "banker:5.5", "banker:6", "smart:6"])
    generation_hands: int = Field(0, ge=0, description="hands per pairing after each generation (0: none)")
    workers: int = Field(2, ge=1)
    map_hands: int = Field(20_000, ge=100, description="hands recorded for each strategy map of the report")
    seed: int = Field(2026, ge=0)
    exact: bool = Field(True, description="exact EV / best responses / NashConv when the rules are covered")
    select: Literal["last", "best_worst", "mixture", "one_step"] = Field(
        "mixture",
        description="which snapshot becomes the final policy of each role: the last one, or the one whose "
        "worst result against the evaluation baselines (lower 95% bound, per-generation evaluation) is best; "
        "or (mixture) a mixture of all the snapshots, weighted to be least exploitable in the full game "
        "(siete_env.solve.mixture; heads-up rules the exact evaluator covers), saved as final.npz; or (one_step) "
        "the pair of the last select_generations generations whose larger one-step gain is least "
        "(training.selection: for rules without an exact measure)",
    )
    select_generations: int = Field(
        3, ge=1, description="evaluation.select: one_step: the last generations whose pairs are the candidates"
    )
    mixture_iterations: int = Field(
        30, ge=0, description="exact best responses per role in the search for the least-exploitable mixture"
    )
    exploit_seconds: float = Field(
        0.0,
        ge=0,
        description="the report's approximate exploitability: a best response learned for this many seconds in "
        "each seat (banker, punter) against the final policies (training.exploit; 0: none)",
    )
    exploit_hands: int = Field(100_000, ge=2, description="fresh hands measuring each learned best response's gain")
    exploit_warm_start: bool = Field(
        False,
        description="each responder starts from the frozen network it replaces, where it is one of the same shape "
        "(training.exploit)",
    )
    exploit_others: list[dict[str, str]] = Field(
        default_factory=list,
        description="other line-ups measured the same way in the report, each {name, punter, banker} (agent "
        "specs; e.g. the no-split run's final policies seated in the game with splits)",
    )

    @field_validator("punters", "bankers")
    @classmethod
    def _specs(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("at least one baseline is needed")
        for s in v:
            check_spec(s)
        return v

    @field_validator("exploit_others")
    @classmethod
    def _others(cls, v: list[dict[str, str]]) -> list[dict[str, str]]:
        for i, other in enumerate(v):
            if set(other) != {"name", "punter", "banker"}:
                raise ValueError(
                    f"exploit_others[{i}]: give exactly name, punter and banker (agent specs), got {sorted(other)}"
                )
            for key in ("punter", "banker"):
                AgentSpec.parse(other[key])  # the spelling; a file yet to be made is reported as missing then
        return v


class VineConfig(_Strict):
    """The vine learner (``training.vine``): both learners play each other's newest weights
    and branch every decision of their role over its legal actions."""

    iterations: int = Field(24, ge=1, description="iterations per generation (a snapshot and the exact measure after)")
    punter_hands: int = Field(10_000, ge=1, description="hands the punter learner plays per iteration")
    banker_hands: int = Field(100_000, ge=1, description="hands the banker learner plays per iteration")
    steps: int = Field(16, ge=1, description="gradient steps per pass over an iteration's decisions (its minibatches)")
    epochs: int = Field(4, ge=1, description="passes over an iteration's decisions (each `steps` gradient steps)")
    merge: bool = Field(
        True,
        description="merge the repeated decisions of an iteration (one row per distinct observation and mask, "
        "weighted by its count, its played values averaged): the same loss on a fraction of the rows",
    )
    tables: int = Field(200_000, ge=1, description="batched tables per learner (the copies of a branch step together)")
    explore: float = Field(
        0.0,
        ge=0.0,
        lt=1.0,
        description="the banker learner's hands: each punter move is a uniformly random legal one with this "
        "probability, so that the banker also meets the moves its punter seldom makes (0: none)",
    )
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="processes each learner plays its hands in (itself and workers - 1 helpers, each with its own "
        "tables): with alternate: true one learner plays at a time, so up to the machine's cores",
    )
    alternate: bool = Field(
        True,
        description="the learners take turns (the banker plays the punter's weights of the same iteration) "
        "instead of updating at once; each waits while the other plays",
    )
    value_scale: float | None = Field(
        None, gt=0, description="chips divided by this in the loss (default: the rules' top stake)"
    )
    snapshot_every: int = Field(
        8,
        ge=0,
        description="in the last `snapshot_generations` generations, also snapshot both learners every this many "
        "iterations (0: only at the end of each generation): each such pair is measured exactly and joins the "
        "snapshots the final mixture is chosen from (evaluation.select: mixture)",
    )
    snapshot_generations: int = Field(1, ge=1, description="the last generations that snapshot_every applies to")


class TrainConfig(_Strict):
    """A training run (``configs/train/*.yaml``)."""

    name: str = Field("default", description="the run folder is runs/<name>-s<seed>")
    rules: str | dict[str, Any] = Field(
        default_factory=lambda: {"preset": "spanish", "max_splits": 0},
        description="a preset name or {preset: ..., option: value}; default: heads-up spanish without splits, "
        "the game the exact evaluator measures",
    )
    num_players: int = Field(2, ge=2, le=12)
    seed: int = Field(0, ge=0)
    generations: int = Field(6, ge=1)
    threads: int = Field(
        2,
        ge=1,
        description="torch and numpy-BLAS threads per learner process (1 is fastest while both learners work at once "
        "on a small machine; 2 speed up learners that take turns)",
    )
    vine: VineConfig = Field(default_factory=VineConfig)
    punter: RoleConfig = Field(default_factory=RoleConfig)
    banker: RoleConfig = Field(default_factory=RoleConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        return _retire(data, RETIRED)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}", v):
            raise ValueError(
                "a name is 1-100 letters, digits, '.', '_' or '-', not starting with '.' or '-' "
                "(it names the run folder runs/<name>-s<seed>)"
            )
        return v

    def iterate_snapshot(self, gen: int, it: int) -> bool:
        """Whether the vine learners snapshot after iteration ``it`` of generation ``gen``
        besides the generation's own snapshot (``vine.snapshot_every``)."""
        v = self.vine
        return (
            bool(v.snapshot_every)
            and gen > self.generations - v.snapshot_generations
            and (it % v.snapshot_every == 0 and it < v.iterations)
        )

    @field_validator("rules")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        resolve_rules(v)  # a clear ValueError for an unknown preset or option
        return v

    @model_validator(mode="after")
    def _table(self) -> TrainConfig:
        check_table(resolve_rules(self.rules), self.num_players)  # e.g. side_bets heads-up
        return self

    @model_validator(mode="after")
    def _vine_rules(self) -> TrainConfig:
        from siete_env.batched import check_rules

        try:
            rules = check_rules(self.rules, self.num_players)
        except ValueError as err:
            raise ValueError(f"the vine learner needs rules the batched engine plays: {err}") from None
        if rules.bank_auction:  # its roles are seats for a whole hand (training/vine.py)
            raise ValueError(
                "the vine learner keeps each role at its seat for the whole hand, and bank_auction sells the bank "
                "within one: set bank_auction: false"
            )
        return self

    @model_validator(mode="after")
    def _exact_needed(self) -> TrainConfig:
        v = self.vine
        if v.snapshot_every:
            if v.snapshot_every >= v.iterations:
                raise ValueError(
                    f"vine.snapshot_every is {v.snapshot_every} and vine.iterations {v.iterations}: snapshots within a "
                    f"generation need snapshot_every below iterations (the last iteration is the generation's own "
                    f"snapshot); set vine.snapshot_every=0 (none) or a value below {v.iterations}"
                )
            if self.evaluation.select != "mixture":
                raise ValueError("vine.snapshot_every needs evaluation.select: mixture (the snapshots it adds join it)")
        if self.evaluation.select != "mixture":
            return self
        from siete_env import solve

        need = "evaluation.select: mixture needs"

        if self.num_players != 2:
            raise ValueError(f"{need} heads-up play (num_players: 2), got {self.num_players}")
        if not self.evaluation.exact:
            raise ValueError(f"{need} evaluation.exact: true")
        try:
            solve.check_rules(self.rules)
        except ValueError as err:
            raise ValueError(f"{need} rules the exact evaluator covers: {err}") from None
        return self

    def vine_value_scale(self) -> float:
        """What the vine loss divides chips by: ``vine.value_scale``, or the rules' top stake."""
        return self.vine.value_scale or float(max(resolve_rules(self.rules).bet_levels))


def _loc(err: dict[str, Any]) -> tuple[Any, ...]:
    """Where an error is: its key's path (a retired key's, in the section that holds it)."""
    return (*err["loc"], err["ctx"]["key"]) if err["type"] == "retired_key" else tuple(err["loc"])


def _format_errors(e: ValidationError) -> str:
    lines = []
    for err in e.errors():
        loc = ".".join(str(x) for x in _loc(err)) or "(top level)"
        msg = cut(err["msg"].removeprefix("Value error, "))
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        value = err["ctx"]["value"] if err["type"] == "retired_key" else err.get("input")
        got = "" if not _loc(err) else f" (got {shorten(value)})"  # top level: the message says it
        lines.append(f"  {loc}: {msg}{got}")
    return "\n".join(lines)


def _set(d: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    for k in keys[:-1]:
        nxt = d.setdefault(k, {})
        if not isinstance(nxt, dict):
            raise ValueError(f"--set {dotted}: {k} is not a section")
        d = nxt
    d[keys[-1]] = value


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """A validated config from a YAML file plus ``key=value`` overrides (dotted keys,
    YAML values). Any problem raises ``ValueError`` naming the key and what is allowed."""
    return read_config(
        TrainConfig, path or DEFAULT_CONFIG, overrides, "training config", "generations=3, vine.iterations=8"
    )


Config = TypeVar("Config", bound=BaseModel)


def read_config(model: type[Config], path: str | Path, overrides: list[str] | None, what: str, example: str) -> Config:
    """``model`` validated from a YAML file plus ``key=value`` overrides (dotted keys, YAML
    values; ``example`` shows one in the error for a malformed override). Any problem
    raises ``ValueError`` naming ``what``, the key and what is allowed (``load_config``;
    ``train_rllib.py``'s config)."""
    path = Path(path)
    data = read_config_mapping(path)
    given: dict[str, str] = {}
    for item in overrides or []:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise ValueError(f"override {item!r} must look like key=value (e.g. {example})")
        key = key.strip()
        if key in given:
            raise ValueError(f"override {key} given twice ({given[key]!r} and {item!r}): keep one")
        given[key] = item
        # a rule option's value is read as the option's type (yes/no: booleans where wanted)
        _set(data, key, parse_rule_value(key[6:], raw) if key.startswith("rules.") else yaml_value(raw))
    try:
        return model(**data)
    except (ValidationError, ValueError) as e:
        detail = f"\n{_format_errors(e)}" if isinstance(e, ValidationError) else f" {e}"
        # a key given a bad value of its own is not a clash: the usual message names it
        own = isinstance(e, ValidationError) and any(".".join(map(str, _loc(x))) in given for x in e.errors())
        if given and not own and _valid(model, read_config_mapping(path)):
            # the file alone is valid: the overrides are what clash (with it, or with each other)
            sets = " ".join(given[k] for k in given)
            raise ValueError(
                f"invalid {what}: the overrides --set {sets} do not fit {str(path)!r} (valid without them):"
                f"{detail}\nchange the overrides, or add one for the setting they clash with"
            ) from None
        raise ValueError(f"invalid {what} {str(path)!r}:{detail}") from None


def _valid(model: type[BaseModel], data: dict[str, Any]) -> bool:
    try:
        model(**data)
    except (ValidationError, ValueError):
        return False
    return True


def read_config_mapping(path: Path, _chain: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A config file's settings, with ``extends: <file>`` resolved: the named file (relative
    to this one) gives every setting this file leaves out; a section given in both is
    merged key by key, any other value given here replaces the base's."""
    data = read_yaml_mapping(path, what="config", holds="settings")
    base = data.pop("extends", None)
    if base is None:
        return data
    if not isinstance(base, str) or not base.strip():
        raise ValueError(f"config {str(path)!r}: extends must name a config file, not {base!r}")
    target = (path.parent / base).resolve()
    chain = (*_chain, path.resolve())
    if target in chain:
        raise ValueError(f"config {str(path)!r}: extends {base!r} makes a loop ({' -> '.join(p.name for p in chain)})")
    return _merged(read_config_mapping(target, chain), data)


def _merged(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def yaml_value(raw: str) -> Any:
    """A command-line value read as YAML, except YAML 1.1's on/off/yes/no, which stay
    words (``four_swap=off`` is the option ``off``; pydantic reads them as booleans where
    a boolean is wanted)."""
    if raw.strip().lower() in ("on", "off", "yes", "no", "y", "n"):
        return raw.strip()
    try:
        return load_yaml(raw)
    except yaml.YAMLError:
        return raw
