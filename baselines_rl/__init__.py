"""stable-baselines3 baselines on TextMem envs, adapted to the Policy API (see the RL issue)."""
