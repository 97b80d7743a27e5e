"""Exports of a triple memory: a ``networkx`` graph and a PNG picture for people.

Example:
    >>> from textmem_gym.memory.arigraph.memory import AriGraphMemory
    >>> memory = AriGraphMemory()
    >>> memory.update("-= Hall =-\\nYou see a chest.", "", {})
    >>> graph = memory.to_networkx()
    >>> sorted(graph.nodes), [d["relation"] for _, _, d in graph.edges(data=True)]
    (['chest', 'hall'], ['is at'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx


def memory_graph(memory: Any, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
    """Semantic vertices (``kind="entity"``) and edges (``relation``, ``start``, ``end``,
    ``inferred``, ``believed``); with ``episodic``, one vertex per step (``kind="episode"``,
    ``observation``) linked by ``kind="episodic"`` edges to the vertices of its triples."""
    graph = nx.MultiDiGraph()
    triples = memory.store.triples if history else memory.store.active()
    for t in triples:
        graph.add_node(t.subject, kind="entity")
        graph.add_node(t.object, kind="entity")
        graph.add_edge(t.subject, t.object, key=t.id, relation=t.relation, start=t.start, end=t.end,
                       inferred=t.inferred, believed=t.active, kind="semantic")
    if episodic:
        shown = {t.id for t in triples}
        for episode in memory.episodic.episodes:
            node = f"step {episode.step}"
            graph.add_node(node, kind="episode", step=episode.step, action=episode.action,
                           observation=episode.observation)
            for tid in episode.triples:
                if tid in shown:
                    t = memory.store.triples[tid]
                    for vertex in (t.subject, t.object):
                        graph.add_edge(node, vertex, key=f"e{tid}", kind="episodic", triple=tid)
    return graph


def draw_memory(memory: Any, path: str | Path, *, history: bool = False, size: float = 12.0,
                seed: int = 0) -> Path:
    """Draws the believed semantic graph (invalidated edges dashed grey with ``history``) to
    a PNG file and returns its path."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    graph = memory_graph(memory, history=history)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axes = plt.subplots(figsize=(size, size * 0.75))
    axes.set_axis_off()
    if graph.number_of_nodes():
        layout = nx.spring_layout(nx.Graph(graph), seed=seed, k=1.5 / max(graph.number_of_nodes(), 1) ** 0.5)
        rooms = set(memory.known_locations())
        colors = ["#f4a261" if n in rooms else "#a8dadc" for n in graph.nodes]
        nx.draw_networkx_nodes(graph, layout, ax=axes, node_color=colors, node_size=500)
        nx.draw_networkx_labels(graph, layout, ax=axes, font_size=8)
        for believed, style, color in ((True, "solid", "#1d3557"), (False, "dashed", "#bbbbbb")):
            edges = [(u, v) for u, v, d in graph.edges(data=True) if d["believed"] is believed]
            nx.draw_networkx_edges(graph, layout, edgelist=edges, ax=axes, style=style, edge_color=color,
                                   arrows=True, arrowsize=10, connectionstyle="arc3,rad=0.08")
        labels = {(u, v): d["relation"] for u, v, d in graph.edges(data=True) if d["believed"]}
        nx.draw_networkx_edge_labels(graph, layout, edge_labels=labels, ax=axes, font_size=6)
    axes.set_title(f"{type(memory).__name__}: {len(memory.store)} believed triples, step {memory.step}")
    figure.tight_layout()
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)
    return path
