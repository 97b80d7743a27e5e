"""The core at the bottom of the library: what a policy is, the episode loop, the errors a run stops on.

Everything else (envs, memories, wrappers, the evaluation runner, the CLI, ``policies/``) builds on
these modules; they import nothing of the library above them.

- :mod:`textmem_gym.core.policy`: the ``Policy`` protocol (``act`` only), ``adapt_policy``, ``BasePolicy``.
- :mod:`textmem_gym.core.episode`: ``play_episode``, one episode of a policy in an env.
- :mod:`textmem_gym.core.registry`: policies by name (built-in, entry points, ``module:Factory``).
- :mod:`textmem_gym.core.errors`: ``PolicyNotReady``, ``RunAborted``, ``Interrupted``, ``CtrlC``.
"""
