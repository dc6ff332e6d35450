"""A model zip is data, not code (issue 45): SB3's ``load`` unpickles the zip's ``data``
entries, so a ``ppo:`` file would run whatever its pickles say. Here a valid-looking zip
whose pickles open a marker file goes through every path that reads a model (``ppo:`` specs
in play.py, evaluate.py, ``gym.make(opponents=...)``, the web table, the trainer's resume
and the exploit warm start): none leaves the marker. A real trained model still loads,
weights only, and plays exactly as SB3's full load of it does."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from siete_env.gym_env import SeatEnv  # noqa: E402


class _Marker:
    """Unpickled, it creates the marker file (what an attacker's ``os.system`` would do)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _train(tmp: Path) -> Path:
    from sb3_contrib import MaskablePPO

    env = SeatEnv(role="punter", opponents="banker:6", fold_suits=True, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16, 16], "activation_fn": torch.nn.ReLU})  # fmt: skip
    model.learn(128)
    path = tmp / "real.zip"
    model.save(path)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("models")
    real = _train(tmp)
    marker = tmp / "MARKER"
    payload = base64.b64encode(pickle.dumps(_Marker(marker))).decode()
    with zipfile.ZipFile(real) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    data = json.loads(entries["data"])
    # every cloudpickled value replaced by the payload; the readable parts left as they were
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = payload
    data["extra"] = {":type:": "<class 'object'>", ":serialized:": payload}
    evil_data = tmp / "evil_data.zip"
    with zipfile.ZipFile(evil_data, "w") as z:
        for n, b in entries.items():
            z.writestr(n, json.dumps(data) if n == "data" else b)
    buf = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": _Marker(marker)}, buf)
    evil_pth = tmp / "evil_pth.zip"
    with zipfile.ZipFile(evil_pth, "w") as z:
        for n, b in entries.items():
            z.writestr(n, buf.getvalue() if n == "policy.pth" else b)
    return real, evil_data, evil_pth, marker


def test_the_payload_is_live_under_sb3s_own_load(files):
    """The check of the check: SB3's full load of the file does create the marker."""
    from sb3_contrib import MaskablePPO

    _, evil, _, marker = files
    try:
        MaskablePPO.load(evil, device="cpu")
    except Exception:  # noqa: BLE001,S110  (the payload's object is no policy_kwargs: it may fail after running)
        pass
    assert marker.exists()
    marker.unlink()


def _paths(evil: Path, tmp: Path):
    """Every way a model file is read, as (name, call)."""
    import gymnasium as gym

    from agents.play import main as play_main
    from agents.specs import make_agent
    from agents.web import Server, create_app, models_in
    from siete_env import raw_env
    from training.evaluate_cli import main as evaluate_main

    def play():
        play_main(["--opponents", f"ppo:{evil}", "--episodes", "1", "--script", "-", "--seat", "1"],
                  stdin=io.StringIO("q\n"))  # fmt: skip

    def evaluate():
        evaluate_main(["--punters", f"ppo:{evil}", "--bankers", "banker:6", "--hands", "20", "--workers", "1"])

    def gym_make():
        gym.make("SieteYMedia-Banker-v0", opponents=f"ppo:{evil}").reset(seed=0)

    def web_request():
        r = create_app().test_client().post("/api/new", json={"opponents": f"ppo:{evil}"})
        assert r.status_code == 400 and "names no file" in r.json["error"]

    def web_operator_models():
        folder = tmp / "models"
        folder.mkdir(exist_ok=True)
        (folder / "evil.zip").write_bytes(evil.read_bytes())
        app = create_app(Server(models=models_in(folder)))
        app.test_client().post("/api/new", json={"opponents": "model:evil", "players": 2})

    def resume():
        from sb3_contrib import MaskablePPO

        from training.learners import load_weights

        env = SeatEnv(role="punter", opponents="banker:6", fold_suits=True, seed=0)
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [16, 16], "activation_fn": torch.nn.ReLU})  # fmt: skip
        load_weights(model, evil)

    def warm_start():
        from sb3_contrib import MaskablePPO

        from training.exploit import _warm_start

        env = SeatEnv(role="punter", opponents="banker:6", fold_suits=True, seed=0)
        model = MaskablePPO("MlpPolicy", env, n_steps=64, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [16, 16], "activation_fn": torch.nn.ReLU})  # fmt: skip
        _warm_start(model, f"ppo:{evil}")

    def spec():
        make_agent(f"ppo:{evil}", raw_env(num_players=2))

    return [("play.py", play), ("evaluate.py", evaluate), ("gym.make", gym_make), ("web request", web_request),
            ("web --models", web_operator_models), ("train.py --resume", resume), ("exploit warm start", warm_start),
            ("ppo: spec", spec)]  # fmt: skip


@pytest.mark.parametrize("which", ["data", "policy.pth"])
def test_no_path_runs_a_models_pickles(files, tmp_path, which):
    from agents.learned import _LOADED

    real, evil_data, evil_pth, marker = files
    evil = evil_data if which == "data" else evil_pth
    for name, call in _paths(evil, tmp_path):
        _LOADED.clear()
        try:
            call()
        except (ValueError, SystemExit):  # refused (a pickled policy.pth) or played: either way no code ran
            pass
        assert not marker.exists(), f"{name} ran the pickle in the model's {which}"


def test_a_pickled_policy_file_is_refused_with_a_clear_message(files):
    from agents.learned import load_policy

    _, _, evil_pth, _ = files
    with pytest.raises(ValueError, match="not a model saved by train.py.*holds more than tensors"):
        load_policy(str(evil_pth))


def test_a_real_model_loads_weights_only_and_plays_as_sb3s_full_load(files):
    from sb3_contrib import MaskablePPO

    from agents.learned import load_policy
    from agents.specs import make_agent
    from siete_env import raw_env

    real = files[0]
    full = MaskablePPO.load(real, device="cpu")
    pol = load_policy(str(real))
    assert pol.activation == "ReLU" and [w.shape[1] for w, _ in pol.layers] == [16, 16, 15]
    env = SeatEnv(role="punter", opponents="banker:6", fold_suits=True, seed=3)
    agent = make_agent(f"ppo:{real}", raw_env(num_players=2))
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=3)
    for _ in range(300):
        m = env.action_masks()
        want, _ = full.predict(obs, action_masks=m, deterministic=True)
        raw = env.table.observe("player_0")
        assert agent(raw) == int(want)
        with torch.no_grad():
            dist = full.policy.get_distribution(torch.as_tensor(obs[None], dtype=torch.float32), action_masks=m[None])
        np.testing.assert_allclose(pol.probs(obs, m), dist.distribution.probs.numpy()[0], atol=1e-5)
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if done:
            obs, _ = env.reset()


def _swap_entry(real: Path, out: Path, name: str, content: bytes) -> Path:
    with zipfile.ZipFile(real) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    assert name in entries
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, b in entries.items():
            z.writestr(n, content if n == name else b)
    return out


def _fresh_model():
    from sb3_contrib import MaskablePPO

    env = SeatEnv(role="punter", opponents="banker:6", fold_suits=True, seed=0)
    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu",
                       policy_kwargs={"net_arch": [16, 16], "activation_fn": torch.nn.ReLU})  # fmt: skip


def test_resume_reads_the_optimizer_entry_weights_only_too(files, tmp_path):
    """The optimizer's state is not left to SB3's own loader (SB3 2.3 with torch < 2.6
    unpickles it): a pickle there is refused, the marker never made."""
    from training.learners import load_weights

    real, _, _, marker = files
    buf = io.BytesIO()
    torch.save({"state": {}, "param_groups": [{"lr": _Marker(marker), "params": []}]}, buf)
    evil = _swap_entry(real, tmp_path / "evil_optimizer.zip", "policy.optimizer.pth", buf.getvalue())
    # the check of the check: a full unpickle of that entry makes the marker
    with zipfile.ZipFile(evil) as z:
        torch.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=False)
    assert marker.exists()
    marker.unlink()
    with pytest.raises(ValueError, match=r"policy\.optimizer\.pth holds more than tensors"):
        load_weights(_fresh_model(), evil)
    assert not marker.exists()


def test_resume_restores_the_weights_and_the_optimizer_state(files):
    from sb3_contrib import MaskablePPO

    from training.learners import load_weights

    real = files[0]
    full = MaskablePPO.load(real, device="cpu")
    model = load_weights(_fresh_model(), real)
    for k, v in full.policy.state_dict().items():
        torch.testing.assert_close(model.policy.state_dict()[k], v)
    ours, theirs = model.policy.optimizer.state_dict(), full.policy.optimizer.state_dict()
    assert ours["param_groups"] == theirs["param_groups"] and ours["state"].keys() == theirs["state"].keys()
    for i, st in theirs["state"].items():
        for k, v in st.items():
            torch.testing.assert_close(ours["state"][i][k], v)
    assert model.num_timesteps == full.num_timesteps == 128


def test_a_zip_bomb_in_data_is_refused_before_it_is_inflated(files, tmp_path):
    from agents.learned import MAX_DATA_BYTES, load_policy
    from training.learners import load_weights

    real = files[0]
    bomb = _swap_entry(real, tmp_path / "bomb.zip", "data", b'{"x": "' + b" " * (MAX_DATA_BYTES + 10) + b'"}')
    assert bomb.stat().st_size < 100_000  # compressed
    for load in (lambda: load_policy(str(bomb)), lambda: load_weights(_fresh_model(), bomb)):
        with pytest.raises(ValueError, match="data entry is .* bytes uncompressed"):
            load()
