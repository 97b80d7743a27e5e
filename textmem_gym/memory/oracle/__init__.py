"""The oracle memory: the privileged true state, the upper bound of the probes (never a memory under test).

- :mod:`.truth`: the true map and recipe read from facts in the memory vocabulary.
- :mod:`.memory`: :class:`~textmem_gym.memory.oracle.memory.OracleMemory`.
"""
