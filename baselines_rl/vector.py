"""A Gymnasium vector env (``gym.make_vec``) as a stable-baselines3 ``VecEnv``, so SB3 and sb3-contrib
(MaskablePPO) train on ``gym.make_vec(..., vectorization_mode="async")`` directly.

SB3 has its own vector envs (``SubprocVecEnv``, what :func:`baselines_rl.common.make_vec_env` builds)
and does not read Gymnasium's: their step returns one ``info`` dict of arrays (a ``_key`` mask per
key) where SB3 wants one dict per env, and their autoreset differs. :class:`GymnasiumVecEnv` turns
one into the other. The vector env must reset finished envs in the same step
(``vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}``), as SB3's do: the last
observation of an episode is then ``info["final_obs"]``, which becomes SB3's
``infos[i]["terminal_observation"]``.

Text observations: a ``TextMem`` env's ``Text`` spaces batch (as tuples of strings), but Gymnasium
1.2's shared memory reads a ``Text`` observation once and never again (Gymnasium issue #1164), so an
async vector env of raw text needs ``vector_kwargs={"shared_memory": False}``. For SB3, encode
the text inside each env (:class:`~textmem_gym.wrappers.TextEncodingWrapper` among ``wrappers``):
the spaces are arrays then, and shared memory works.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> from textmem_gym.wrappers import TextEncodingWrapper
    >>> vector = gym.make_vec("TextMem/CookingRL-L1-v0", num_envs=2, vectorization_mode="sync",
    ...                       wrappers=[TextEncodingWrapper], vector_kwargs={"autoreset_mode": "SameStep"})
    >>> venv = GymnasiumVecEnv(vector)
    >>> obs = venv.reset()
    >>> obs["action_mask"].shape, len(venv.env_method("action_masks"))
    ((2, 64), 2)
    >>> obs, rewards, dones, infos = venv.step(np.zeros(2, dtype=int))
    >>> rewards.shape, sorted(infos[0])[:3]
    ((2,), ['admissible_commands', 'command', 'invalid_action'])
    >>> venv.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn


class GymnasiumVecEnv(VecEnv):
    """SB3's ``VecEnv`` over a Gymnasium ``VectorEnv`` that resets finished envs in the same step.

    Args:
        venv: e.g. ``gym.make_vec(id, num_envs=N, vectorization_mode="async", wrappers=[...],
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP})``.

    Raises:
        TypeError: ``venv`` is not an ``AsyncVectorEnv`` or a ``SyncVectorEnv`` (what ``make_vec`` builds
            in ``"async"`` and ``"sync"`` modes).
        ValueError: When ``venv`` resets finished envs at the next step (Gymnasium's default).
    """

    def __init__(self, venv: gym.vector.VectorEnv):
        if not isinstance(venv, (gym.vector.AsyncVectorEnv, gym.vector.SyncVectorEnv)):
            raise TypeError(f"GymnasiumVecEnv adapts Gymnasium's AsyncVectorEnv or SyncVectorEnv, "
                            f"got {type(venv).__name__}")
        mode = venv.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"GymnasiumVecEnv needs a vector env that resets finished envs in the same step, "
                             f"as SB3's do (autoreset_mode={mode!r}): pass vector_kwargs={{'autoreset_mode': "
                             "gym.vector.AutoresetMode.SAME_STEP}} to gym.make_vec")
        self.venv: gym.vector.AsyncVectorEnv | gym.vector.SyncVectorEnv = venv
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self) -> VecEnvObs:
        """Resets every env (with the seeds and options set by ``seed``/``set_options``, once)."""
        seeds = self._seeds if any(seed is not None for seed in self._seeds) else None
        options = self._options[0] if any(self._options) else None
        if options is not None and any(o != options for o in self._options):
            raise ValueError("a Gymnasium vector env resets every env with the same options")
        observations: Any
        observations, info = self.venv.reset(seed=seeds, options=options)
        self.reset_infos = split_info(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every env; a finished one is reset in the same step: ``infos[i]`` is its last step's info,
        with its last observation in ``"terminal_observation"`` (``"TimeLimit.truncated"``: ended by the
        step limit), and ``reset_infos[i]`` the new episode's first info."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        observations: Any
        rewards: np.ndarray
        terminated: np.ndarray
        truncated: np.ndarray
        observations, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        infos = split_info(info, self.num_envs)
        dones = np.logical_or(terminated, truncated)
        for i in np.flatnonzero(dones):  # as SB3's own: the last step's info, the reset's in reset_infos
            final, last = infos[i].pop("final_info", {}), infos[i].pop("final_obs")
            self.reset_infos[i] = infos[i]
            infos[i] = {**final, "terminal_observation": last,
                        "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return observations, np.asarray(rewards, dtype=np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of each env (of the outermost wrapper that has it)."""
        values = self.venv.get_attr(attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets an attribute of every env (Gymnasium's vector envs set all, not some)."""
        if indices is not None and list(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError("a Gymnasium vector env sets an attribute in every env at once")
        self.venv.set_attr(attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Calls a method of each env (``action_masks`` for MaskablePPO)."""
        results = self.venv.call(method_name, *method_args, **method_kwargs)
        return [results[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """Whether each env has ``wrapper_class`` in its wrapper chain (only known for envs living in
        this process, a ``"sync"`` vector env; ``False`` for those of an ``"async"`` one)."""
        envs: Sequence[gym.Env] = getattr(self.venv, "envs", ())
        return [_wrapped(envs[i], wrapper_class) if i < len(envs) else False for i in self._get_indices(indices)]


def _wrapped(env: gym.Env, wrapper_class: type[gym.Wrapper]) -> bool:
    while isinstance(env, gym.Wrapper):
        if isinstance(env, wrapper_class):
            return True
        env = env.env
    return False


def split_info(info: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Gymnasium's vector ``info`` (arrays, with a ``_key`` mask per key) as one dict per env.

    Example:
        >>> split_info({"score": np.array([1, 0]), "_score": np.array([True, False]),
        ...             "steps": {"moves": np.array([3, 4]), "_moves": np.array([True, True])},
        ...             "_steps": np.array([True, True])}, 2)
        [{'score': 1, 'steps': {'moves': 3}}, {'steps': {'moves': 4}}]
    """
    out: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info.get(f"_{key}", np.ones(num_envs, dtype=bool))
        parts = split_info(value, num_envs) if isinstance(value, dict) else [_item(value[i]) for i in range(num_envs)]
        for i in np.flatnonzero(mask):
            out[i][key] = parts[i]
    return out


def _item(value: Any) -> Any:
    """A numpy scalar as the Python value it came from (``np.int64(3)`` -> ``3``)."""
    return value.item() if isinstance(value, np.generic) else value
