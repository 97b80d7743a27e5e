"""Model files: an SB3 ``.zip`` plus ``textmem.json`` (algorithm and :class:`EnvSpec`) inside it.

One file is enough to rebuild the env encoding and run the model (``rl:PATH``); SB3's own
``load`` ignores the extra entry, so the file stays a normal SB3 model.

Example:
    >>> sorted(ALGORITHMS)
    ['maskable_ppo', 'masked_dqn', 'rllib_ppo']
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from baselines_rl.common import EnvSpec
from textmem_gym.loading import load_named

#: Name inside the model zip of the metadata entry.
METADATA_ENTRY = "textmem.json"

#: Algorithm name -> ``"module:Class"`` (imported when used).
ALGORITHMS: dict[str, str] = {
    "maskable_ppo": "sb3_contrib:MaskablePPO",
    "masked_dqn": "baselines_rl.dqn:MaskedDQN",
    "rllib_ppo": "baselines_rl.rllib_module:GreedyModule",  # a checkpoint directory (baselines_rl.rllib_ppo)
}


def algorithm_class(name: str) -> Any:
    """The SB3 class of a registered algorithm name."""
    return load_named("algorithm", name, ALGORITHMS)


def save_model(model: Any, path: str | Path, algorithm: str, spec: EnvSpec,
               extra: dict[str, Any] | None = None) -> Path:
    """Saves an SB3 model with the metadata needed to run it again; returns the ``.zip`` path."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    metadata = {"algorithm": algorithm, "env_spec": spec.to_dict(), **(extra or {})}
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_ENTRY, json.dumps(metadata, indent=1))
    return path


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``textmem.json`` of a model file (``ValueError`` for files not saved by :func:`save_model`)."""
    path = Path(path)
    if path.is_dir() and (path / METADATA_ENTRY).is_file():  # an RLlib checkpoint (baselines_rl.rllib_ppo)
        return json.loads((path / METADATA_ENTRY).read_text())
    if not path.is_file():
        raise ValueError(f"model file {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            return json.loads(archive.read(METADATA_ENTRY))
    except (zipfile.BadZipFile, KeyError) as error:
        raise ValueError(f"{path} is not a model saved by baselines_rl (no {METADATA_ENTRY})") from error


def load_model(path: str | Path, device: str = "cpu") -> tuple[Any, str, EnvSpec]:
    """Loads ``(model, algorithm name, env spec)`` from a file written by :func:`save_model`."""
    metadata = read_metadata(path)
    model = algorithm_class(metadata["algorithm"]).load(str(path), device=device)
    return model, metadata["algorithm"], EnvSpec.from_dict(metadata["env_spec"])


def predict(model: Any, observation: dict[str, np.ndarray], mask: np.ndarray,
            deterministic: bool = True) -> np.ndarray:
    """One action per observation (batched or single) from any algorithm here, mask respected."""
    from sb3_contrib import MaskablePPO

    if isinstance(model, MaskablePPO):
        action, _ = model.predict(observation, deterministic=deterministic, action_masks=mask)
    else:
        action, _ = model.predict(observation, deterministic=deterministic)
    return np.asarray(action)


def evaluate_model(model: Any, spec: EnvSpec, episodes: int = 3, seed: int = 0,
                   deterministic: bool = True) -> list[dict[str, Any]]:
    """Plays ``episodes`` episodes of ``model`` on a fresh env of ``spec`` (reset seeds ``seed + i``).

    Returns:
        Per episode: ``normalized_score``, ``score``, ``won``, ``steps`` and ``invalid_actions``.
    """
    env = spec.make()
    results = []
    try:
        for episode in range(episodes):
            obs, info = env.reset(seed=seed + episode)
            done, steps, invalid = False, 0, 0
            while not done:
                action = predict(model, obs, env.get_wrapper_attr("action_masks")(), deterministic)
                obs, _, terminated, truncated, info = env.step(int(action))
                done, steps, invalid = terminated or truncated, steps + 1, invalid + int(info["invalid_action"])
            results.append({"normalized_score": float(info.get("normalized_score", 0.0)),
                            "score": info.get("score", 0), "won": bool(info.get("won", False)),
                            "steps": steps, "invalid_actions": invalid})
    finally:
        env.close()
    return results
