"""textmem_gym/envs/nethack."""
