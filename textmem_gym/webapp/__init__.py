"""The web app (``textmem-gym ui``, Gradio): play any id as a human (recorded as policy ``human``),
step through a trajectory, compare results files. Needs the ``ui`` extra."""
