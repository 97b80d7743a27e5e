"""stable-baselines3 baselines on TextMem envs, adapted to the Policy API (see the RL issue).

Modules:
    ppo: MaskablePPO (``PPOArgs``, ``train``; ``python -m baselines_rl.ppo --help``).
    dqn: masked DQN (``DQNArgs``, ``train``; ``python -m baselines_rl.dqn --help``).
    drrn: the DRRN-style model (scores each admissible command against the state).
    adapter: ``RLPolicy``, a saved model as a ``policies.Policy`` (``rl:PATH``).
    common, train, callbacks, storage, exploration: shared arguments, env building, CSV logs,
        model files with their encoding, the episodic novelty bonus.
"""
