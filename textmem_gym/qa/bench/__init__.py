"""The memory benchmark: shipped trajectories of every backend, replayed and probed for every memory.

:mod:`~textmem_gym.qa.bench.trajectories` holds the shipped trajectories (``data/*.json``) and
their replay; :mod:`~textmem_gym.qa.bench.run` probes memories over them and makes the table
of ``textmem-gym memory-bench``.
"""
