"""The Cellar's ids: its table, as ``envs/<backend>/ids.py`` holds a built-in backend's (no env code imported).

Example:
    >>> ENV_TABLE["Cellar/Cellar-v0"].kwargs
    {}
    >>> ENV_TABLE["Cellar/Cellar-Shed-v0"].kwargs
    {'key_room': 'shed'}
"""

from __future__ import annotations

from textmem_gym.envs.entry import EnvEntry

ENTRY = "tests.envs.example_backend.env:CellarEnv"

#: Every Cellar id -> its registration entry (one class, two games).
ENV_TABLE: dict[str, EnvEntry] = {
    "Cellar/Cellar-v0": EnvEntry(
        ENTRY, {}, max_episode_steps=50, expected_max_score=3,
        description="example backend (tests): find the key in the pantry, open the chest in the garden, take the coin"),
    "Cellar/Cellar-Shed-v0": EnvEntry(
        ENTRY, {"key_room": "shed"}, max_episode_steps=50, expected_max_score=3,
        description="example backend (tests): the key lies in the shed, beyond the garden"),
}
