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

from agents.specs import AgentSpec, check_spec
from siete_env.rules import check_table, cut, load_yaml, parse_rule_value, read_yaml_mapping, resolve_rules, shorten

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "train" / "default.yaml"  # configs/ at the root links here
MAX_DUMMY_ENVS = 1024  # SeatEnv tables stepped one by one in Python (DummyVecEnv)
# what each learner does not read (given other values than the defaults, they are refused):
# MaskablePPO's rollout and loss settings, which the vine learner replaces (training.vine)
POOLS_ONLY_PPO = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef",
                  "ent_coef_final", "vf_coef")  # fmt: skip
POOLS_ONLY = ("rounds", "n_envs", "vec_env")  # the vine learner steps its own batched tables (vine.tables)
POOLS_ONLY_ROLE = ("steps", "baseline_share")
POOLS_ONLY_OPPONENTS = ("snapshots", "weighting", "temperature", "exploiter_share", "copunters")
VINE_ONLY_PPO = ("kl_coef", "magnet", "magnet_final")  # the vine learner's mirror-descent step (training.vine.VinePPO)


# --------------------------------------------------------------------------- config
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rates(NamedTuple):
    """A generation's rates (``PPOConfig.at``): each learner reads its own."""

    learning_rate: float
    ent_coef: float  # learner: pools (MaskablePPO's entropy bonus)
    magnet: float  # learner: vine (VinePPO's pull toward the uniform policy)


class PPOConfig(_Strict):
    """A learner's network and optimiser (the names are SB3's). The defaults are the shipped
    recipe's (``configs/train/default.yaml``, the vine learner); the keys only
    ``learner: pools`` reads (``POOLS_ONLY_PPO``) keep MaskablePPO's defaults."""

    learning_rate: float = Field(5e-3, gt=0)
    n_steps: int = Field(256, ge=8, description="rollout steps per environment")
    batch_size: int = Field(512, ge=8)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.0, ge=0, description="MaskablePPO's entropy bonus (learner: pools only)")
    learning_rate_final: float | None = Field(
        1e-3,
        gt=0,
        description="if set: the learning rate goes linearly from learning_rate (generation 1) to this (the last)",
    )
    ent_coef_final: float | None = Field(
        None,
        ge=0,
        description="if set: the entropy bonus goes linearly from ent_coef (generation 1) to this (the last; "
        "learner: pools only)",
    )
    magnet: float = Field(
        0.05,
        ge=0,
        description="the vine learner's pull toward the magnet, the uniform policy: weight of KL(new policy || "
        "uniform) in its loss (learner: vine only)",
    )
    magnet_final: float | None = Field(
        0.005,
        ge=0,
        description="if set: the magnet's weight goes linearly from magnet (generation 1) to this (the last; "
        "learner: vine only)",
    )
    vf_coef: float = Field(0.5, ge=0)
    kl_coef: float = Field(
        0.3,
        ge=0,
        description="the vine learner's mirror-descent step: weight of KL(new policy || the policy that played) "
        "in its loss (training.vine.VinePPO; learner: vine only)",
    )
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field(default_factory=lambda: [128, 128])
    activation: Literal["tanh", "relu"] = "tanh"

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

        return Rates(
            walk(self.learning_rate, self.learning_rate_final),
            walk(self.ent_coef, self.ent_coef_final),
            walk(self.magnet, self.magnet_final),
        )


class RoleConfig(_Strict):
    """One learner."""

    steps: int | None = Field(
        None, ge=1, description="learner env steps per generation (learner: pools; the vine learner's budget is vine.*)"
    )
    baseline_share: float = Field(
        0.5, ge=0, le=1, description="share of this learner's hands against the baselines (the rest: snapshots)"
    )
    ppo: PPOConfig = Field(default_factory=PPOConfig)


class OpponentsConfig(_Strict):
    """The training pools."""

    baseline_punters: list[str] = Field(
        default_factory=lambda: ["threshold:5", "threshold:5.5", "bold:5.5"], min_length=1
    )
    baseline_bankers: list[str] = Field(default_factory=lambda: ["banker:5.5", "banker:6", "smart:6"], min_length=1)
    snapshots: int = Field(0, ge=0, description="newest snapshots kept in a pool (0: all of them)")
    weighting: Literal["uniform", "prioritized"] = Field(
        "prioritized",
        description="how the pool shares its baselines' hands: uniformly, or prioritized fictitious self-play "
        "(the baselines weighted exp(-result/temperature) by the last generation's evaluation: the opponents "
        "the learner does worst against are met most)",
    )
    temperature: float = Field(0.1, gt=0, description="chips per hand; lower: focus harder on the worst opponent")
    sample: bool = Field(
        True,
        description="the snapshots play by sampling their action probabilities (false: greedy, their most "
        "probable action): as opponents in the pools, in the exact evaluation, in mixtures and in the report",
    )
    exploiter_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of each learner's hands against the exact best response to its own newest "
        "snapshot (computed by siete_env.solve after every generation, saved as gen_XXX/br.npz; heads-up "
        "rules the exact evaluator covers): the learner meets the opponent that exploits it most",
    )
    copunters: Literal["baselines", "snapshots"] = Field(
        "baselines",
        description="at a table of three or more: the punter learner's fellow punters are the baseline punters, "
        "or (snapshots) its own snapshots (baseline_share of them the baseline punters; the first generation "
        "meets the baselines): every punter at the table then plays the learned policy",
    )

    @field_validator("baseline_punters", "baseline_bankers")
    @classmethod
    def _specs(cls, v: list[str]) -> list[str]:
        for s in v:
            if AgentSpec.parse(s).learned:
                raise ValueError(f"baseline {s!r}: baselines are heuristic specs; learned snapshots join by themselves")
            check_spec(s)
        return v


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
    select: Literal["last", "best_worst", "mixture"] = Field(
        "mixture",
        description="which snapshot becomes the final policy of each role: the last one, or the one whose "
        "worst result against the evaluation baselines (lower 95% bound, per-generation evaluation) is best; "
        "or (mixture) a mixture of all the snapshots, weighted to be least exploitable in the full game "
        "(siete_env.solve.mixture; heads-up rules the exact evaluator covers), saved as final.npz",
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
    """``learner: vine`` (``training.vine``): both learners play each other's newest weights
    and branch every decision of their role over its legal actions."""

    iterations: int = Field(24, ge=1, description="iterations per generation (a snapshot and the exact measure after)")
    punter_hands: int = Field(10_000, ge=1, description="hands the punter learner plays per iteration")
    banker_hands: int = Field(50_000, ge=1, description="hands the banker learner plays per iteration")
    steps: int = Field(16, ge=1, description="gradient steps per pass over an iteration's decisions (its minibatches)")
    epochs: int = Field(4, ge=1, description="passes over an iteration's decisions (each `steps` gradient steps)")
    merge: bool = Field(
        True,
        description="merge the repeated decisions of an iteration (one row per distinct observation and mask, "
        "weighted by its count, its played values averaged): the same loss on a fraction of the rows",
    )
    tables: int = Field(200_000, ge=1, description="batched tables per learner (the copies of a branch step together)")
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
    rounds: int = Field(
        1,
        ge=1,
        description="rounds per generation: each learner's steps are split into this many rounds and, after "
        "each round, both learners meet the other's newest weights (the newest member of their snapshot "
        "pools) without a snapshot or an exact measure: fresher opponents at no cost",
    )
    n_envs: int = Field(8, ge=1)
    vec_env: Literal["dummy", "batched"] = Field(
        "batched",
        description="the learners' environments: dummy (SB3's DummyVecEnv of SeatEnv, the AEC engine) or batched "
        "(siete_env.batched: the n_envs tables stepped together by the batched engine, opponents in batch; "
        "the spanish rules it plays, one hand per episode)",
    )
    threads: int = Field(
        2,
        ge=1,
        description="torch and numpy-BLAS threads per learner process (1 is fastest while both learners work at once "
        "on a small machine; 2 speed up learners that take turns)",
    )
    parallel: bool = Field(
        True,
        description="train both learners at once, in two processes (each generation against the other's "
        "snapshots up to the previous generation); false: alternate, the banker after the punter",
    )
    learner: Literal["pools", "vine"] = Field(
        "vine",
        description="pools: each learner runs MaskablePPO against a pool of opponents (the other's snapshots, "
        "heuristics, exploiters); vine: both learn at once against each other's newest weights from branched "
        "hands with an all-actions mirror-descent loss (training.vine; any table of the batched engine's rules)",
    )
    vine: VineConfig = Field(default_factory=VineConfig)
    punter: RoleConfig = Field(default_factory=RoleConfig)
    banker: RoleConfig = Field(default_factory=RoleConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)

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
    def _batched_rules(self) -> TrainConfig:
        if self.vec_env == "batched":
            from siete_env.batched import check_rules

            try:
                check_rules(self.rules, self.num_players)
            except ValueError as err:
                raise ValueError(f"vec_env: batched needs rules the batched engine plays: {err}") from None
        return self

    @model_validator(mode="after")
    def _learner(self) -> TrainConfig:
        # a key the chosen learner does not read is refused when given another value than its
        # default, not silently ignored (the defaults are the shipped recipe's: the vine learner)
        def changed(model, keys: tuple[str, ...], prefix: str) -> list[str]:
            fields = type(model).model_fields
            return [prefix + k for k in keys if getattr(model, k) != fields[k].get_default(call_default_factory=True)]

        roles = ("punter", "banker")
        if self.learner == "pools":
            missing = [r for r in roles if getattr(self, r).steps is None]
            if missing:
                raise ValueError(f"learner: pools needs {' and '.join(r + '.steps' for r in missing)}")
            unused = [k for r in roles for k in changed(getattr(self, r).ppo, VINE_ONLY_PPO, f"{r}.ppo.")]
            unused += changed(self.vine, tuple(VineConfig.model_fields), "vine.")
            if unused:
                raise ValueError(
                    f"learner: pools does not use {', '.join(unused)} (the vine learner's keys): remove them, "
                    "or use learner: vine"
                )
            return self
        unused = changed(self, POOLS_ONLY, "")
        for r in roles:
            unused += changed(getattr(self, r), POOLS_ONLY_ROLE, f"{r}.")
            unused += changed(getattr(self, r).ppo, POOLS_ONLY_PPO, f"{r}.ppo.")
        unused += changed(self.opponents, POOLS_ONLY_OPPONENTS, "opponents.")
        if unused:
            magnet = " and its pull toward the uniform policy ppo.magnet(_final)" if "ent_coef" in str(unused) else ""
            raise ValueError(
                f"learner: vine does not use {', '.join(unused)} (the pools' keys; its budget is vine.iterations, "
                f"vine.punter_hands, vine.banker_hands, vine.steps{magnet}): remove them, or use learner: pools"
            )
        from siete_env.batched import check_rules

        try:
            rules = check_rules(self.rules, self.num_players)
        except ValueError as err:
            raise ValueError(f"learner: vine needs rules the batched engine plays: {err}") from None
        if rules.bank_auction:  # its roles are seats for a whole hand (training/vine.py)
            raise ValueError(
                "learner: vine keeps each role at its seat for the whole hand, and bank_auction sells the bank "
                "within one: set bank_auction: false, or use learner: pools"
            )
        return self

    @model_validator(mode="after")
    def _n_envs(self) -> TrainConfig:
        if self.vec_env == "dummy" and self.n_envs > MAX_DUMMY_ENVS:
            raise ValueError(
                f"n_envs {self.n_envs}: vec_env: dummy steps each table in Python, at most {MAX_DUMMY_ENVS}; "
                "vec_env: batched for more"
            )
        if self.vec_env == "batched":
            from siete_env.batched import BatchedTables
            from siete_env.batched.engine import check_num_tables

            check_num_tables(self.n_envs, 2 * BatchedTables(1, self.num_players, self.rules).bytes_per_table, "n_envs")
        return self

    @model_validator(mode="after")
    def _exact_needed(self) -> TrainConfig:
        wants = []
        if self.opponents.exploiter_share > 0:
            wants.append("opponents.exploiter_share")
        for role in ("punter", "banker"):
            total = getattr(self, role).baseline_share + self.opponents.exploiter_share
            if total > 1:
                raise ValueError(
                    f"{role}.baseline_share + opponents.exploiter_share is {total:g}: at most 1 (the rest of the "
                    "hands go to the snapshots)"
                )
        if self.evaluation.select == "mixture":
            wants.append("evaluation.select: mixture")
        v = self.vine
        if self.learner == "vine" and v.snapshot_every:
            if v.snapshot_every >= v.iterations:
                raise ValueError(
                    f"vine.snapshot_every is {v.snapshot_every} and vine.iterations {v.iterations}: snapshots within a "
                    f"generation need snapshot_every below iterations (the last iteration is the generation's own "
                    f"snapshot); set vine.snapshot_every=0 (none) or a value below {v.iterations}"
                )
            if self.evaluation.select != "mixture":
                raise ValueError("vine.snapshot_every needs evaluation.select: mixture (the snapshots it adds join it)")
        if not wants:
            return self
        from siete_env import solve

        need = " and ".join(wants) + (" need" if len(wants) > 1 else " needs")

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


def _format_errors(e: ValidationError) -> str:
    lines = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = cut(err["msg"].removeprefix("Value error, "))
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        got = "" if not err["loc"] else f" (got {shorten(err.get('input'))})"  # top level: the message says it
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
        TrainConfig, path or DEFAULT_CONFIG, overrides, "training config", "generations=3, punter.steps=20000"
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
        own = isinstance(e, ValidationError) and any(".".join(map(str, x["loc"])) in given for x in e.errors())
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
