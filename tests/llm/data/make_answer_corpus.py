"""Writes ``answers_<kind>.jsonl``: realistic model answers per prompt kind, each with the expected parse.

The answers are built from templates of what real models write when they miss the asked format
(code fences, prose around JSON, several objects, a cut-off object, wrong or aliased keys, case,
markdown labels, numbered or bulleted lists, quoted commands, articles, trailing punctuation);
the expected value is the template's input, never the parser's output. Run it to regenerate:
``python tests/llm/data/make_answer_corpus.py`` (fixed seed: the files do not change).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
COMMANDS = [
    "take knife",
    "open fridge",
    "go east",
    "chop carrot with knife",
    "cook potato with stove",
    "go to kitchen",
    "examine cookbook",
    "take red apple from counter",
    "put lettuce on table",
    "drop yellow bell pepper",
    "open door to hallway",
    "focus on banana",
    "move plant to pot",
]
NOUN_AFTER = {"take", "open", "chop", "cook", "examine", "put", "drop", "with", "on", "from", "to", "focus", "move"}
REASONS = [
    "I need the knife to cut things.",
    "The recipe says so",
    'Exploring helps: "unknown" rooms wait',
    "it's next on the plan, obviously",
    "Because the fridge may hold the carrot",
]


def with_articles(command: str) -> str:
    words, out = command.split(), []
    for i, word in enumerate(words):
        out.append(word)
        if word in NOUN_AFTER and i + 1 < len(words) and words[i + 1] not in ("to",) and i + 1 < len(words):
            out.append("the")
    return " ".join(out)


def styled(rng: random.Random, command: str) -> str:
    """The command as a model may write it (the expected command is ``command``)."""
    form = rng.choice(["plain", "upper", "title", "period", "quoted", "articles", "articles_period", "backticks"])
    return {
        "plain": command,
        "upper": command.upper(),
        "title": command.title(),
        "period": command + ".",
        "quoted": f'"{command}"',
        "articles": with_articles(command),
        "articles_period": with_articles(command) + "!",
        "backticks": f"`{command}`",
    }[form]


def json_shapes(rng: random.Random, fields: dict[str, object], key_variants: dict[str, list[str]]) -> str:
    """One JSON-ish answer holding ``fields`` in a shape real models produce."""
    keyed = {rng.choice(key_variants.get(k, [k])): v for k, v in fields.items()}
    body = json.dumps(keyed, ensure_ascii=False)
    echo = json.dumps({k: "..." for k in keyed})
    shape = rng.choice(
        [
            "bare",
            "fence",
            "prose",
            "echo_first",
            "cut_off",
            "single_quotes",
            "trailing_comma",
            "fence_prose",
            "indented",
        ]
    )
    if shape == "fence":
        return f"```json\n{body}\n```"
    if shape == "prose":
        return f"Sure! Here is my answer:\n{body}\nLet me know if you need anything else."
    if shape == "echo_first":
        return f"The format is {echo}. My answer: {body}"
    if shape == "cut_off":
        return body[:-1]  # the closing brace never came (max_tokens)
    if shape == "single_quotes":
        return body.replace('"', "'") if "'" not in body else body
    if shape == "trailing_comma":
        return body[:-1] + ",}"
    if shape == "fence_prose":
        return f"Thinking about it...\n```\n{body}\n```\nDone."
    if shape == "indented":
        return json.dumps(keyed, indent=2, ensure_ascii=False)
    return body


def decision(rng: random.Random, key: str = "action_to_take", reason_key: str = "reason_for_action") -> dict:
    command = rng.choice(COMMANDS)
    written = styled(rng, command)
    shape = rng.random()
    if shape < 0.6:
        answer = json_shapes(
            rng,
            {reason_key: rng.choice(REASONS), key: written},
            {key: [key, key.title(), key.upper(), "action", "Action"], reason_key: [reason_key, "reason"]},
        )
    elif shape < 0.8:
        label = rng.choice(["Action", "ACTION", "**Action:**", "Action to take", "action_to_take", "Next action"])
        label = label if label.endswith(":**") else label + ":"
        answer = f"{rng.choice(REASONS)}\n{label} {written}"
    else:
        answer = written
    return {"answer": answer, "commands": COMMANDS, "expected": {"action": command}}


def reflact(rng: random.Random) -> dict:
    command = rng.choice(COMMANDS)
    written = styled(rng, command)
    if rng.random() < 0.6:
        labels = rng.choice(
            [
                ("REFLECTION", "OBJECTIVE", "ACTION"),
                ("Reflection", "Objective", "Action"),
                ("**REFLECTION**", "**OBJECTIVE**", "**ACTION**"),
            ]
        )
        lines = [f"{labels[0]}: {rng.choice(REASONS)}", f"{labels[1]}: find the recipe", f"{labels[2]}: {written}"]
        answer = ("Let me think.\n" if rng.random() < 0.3 else "") + "\n".join(lines)
    else:
        answer = json_shapes(
            rng,
            {"reflection": rng.choice(REASONS), "objective": "find the recipe", "action": written},
            {"action": ["action", "ACTION", "command", "action_to_take"]},
        )
    return {"answer": answer, "commands": COMMANDS, "expected": {"action": command}}


def netplay(rng: random.Random) -> dict:
    skill = rng.choice(
        [
            "explore",
            "descend",
            "fight jackal",
            "go to staircase down",
            "rest",
            "eat food ration",
            "search",
            "pick up dagger",
        ]
    )
    written = rng.choice([skill, skill.upper(), f'"{skill}"', skill + "."])
    answer = json_shapes(
        rng,
        {"reason": rng.choice(REASONS), "skill": written},
        {"skill": ["skill", "Skill", "SKILL", "action", "command"]},
    )
    return {"answer": answer, "expected": {"skill": skill}}


def stma_planner(rng: random.Random) -> dict:
    plan = rng.sample(COMMANDS, rng.randint(1, 4))
    subgoal = rng.choice(["get the knife and cut the carrot", "explore the house", "cook the potato"])
    style = rng.choice(["yaml", "numbered", "bulleted_star", "json", "paren", "thought_then_yaml"])
    items = [styled(rng, c) for c in plan]
    if style == "json":
        answer = json_shapes(
            rng,
            {"subgoal": subgoal, "action_plan": items},
            {"action_plan": ["action_plan", "Action Plan", "plan", "actions"]},
        )
    else:
        marker = {
            "yaml": lambda i: "- ",
            "numbered": lambda i: f"{i}. ",
            "bulleted_star": lambda i: "* ",
            "paren": lambda i: f"{i}) ",
            "thought_then_yaml": lambda i: "- ",
        }[style]
        body = "\n".join(f"{marker(i)}{item}" for i, item in enumerate(items, 1))
        answer = f'Subgoal: "{subgoal}"\nAction Plan:\n{body}'
        if style in ("yaml", "thought_then_yaml"):
            answer = f"Plan:\n```YAML\n{answer}\n```"
        if style == "thought_then_yaml":
            answer = "Thought:\n1. My goal is to cook.\n2. The knife is here.\n" + answer
    return {"answer": answer, "commands": COMMANDS, "expected": {"subgoal": subgoal, "action_plan": plan}}


def stma_critic(rng: random.Random) -> dict:
    verdict = rng.random() < 0.5
    word = rng.choice([str(verdict), str(verdict).lower(), str(verdict).upper(), f"**{verdict}**"])
    feedback = rng.choice(["The door is closed.", "Fits the subgoal.", "Take the knife first."])
    label = rng.choice(["Action Suitability", "**Action Suitability**", "action_suitability", "Action suitability"])
    if rng.random() < 0.7:
        answer = f'Reasoning: hmm.\n```YAML\n{label}: {word}\nFeedback: "{feedback}"\n```'
    else:
        answer = json_shapes(
            rng,
            {"action_suitability": verdict, "feedback": feedback},
            {"action_suitability": ["action_suitability", "Action Suitability", "suitable"]},
        )
    return {"answer": answer, "expected": {"action_suitability": verdict}}


def planning(rng: random.Random) -> dict:
    steps = rng.sample(["find the knife", "open the fridge", "read the cookbook", "cook the meal"], rng.randint(1, 3))
    if rng.random() < 0.7:
        plan = [{f"sub_goal_{i}": s, "reason": "needed"} for i, s in enumerate(steps, 1)]
        answer = json_shapes(
            rng,
            {"main_goal": "cook", "plan_steps": plan},
            {"plan_steps": ["plan_steps", "Plan_Steps", "plan", "steps"]},
        )
    else:
        body = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        answer = f"Main goal: cook\nPlan steps:\n{body}"
    return {"answer": answer, "expected": {"steps": len(steps), "first": steps[0]}}


def exploration_check(rng: random.Random) -> dict:
    value = rng.random() < 0.5
    answer = rng.choice(
        [
            str(value),
            str(value).lower(),
            f"{value}.",
            f"Answer: {value}",
            f"**{value}**",
            json.dumps({"needs_exploration": value}),
            ("Yes" if value else "No"),
        ]
    )
    return {"answer": answer, "expected": {"needs_exploration": value}}


def importance(rng: random.Random) -> dict:
    value = rng.randint(1, 10)
    answer = rng.choice(
        [
            str(value),
            f"{value}.",
            f"Rating: {value}",
            f"I would rate it {value}",
            json.dumps({"rating": value}),
            f"**{value}**/10",
        ]
    )
    return {"answer": answer, "expected": {"rating": value}}


def davis_world_model(rng: random.Random) -> dict:
    if rng.random() < 0.4:
        question = rng.choice(["Where is the water?", "What is in the kitchen?", "Is the door open?"])
        return {
            "answer": json_shapes(rng, {"question": question}, {"question": ["question", "Question"]}),
            "expected": {"kind": "question", "value": question},
        }
    action = rng.choice(COMMANDS)
    fields = {"action": action, "predicted_observation": "You do it.", "predicted_reward": rng.randint(0, 5)}
    return {
        "answer": json_shapes(rng, fields, {"action": ["action", "Action"]}),
        "expected": {"kind": "step", "value": action},
    }


def davis_actor(rng: random.Random) -> dict:
    commands = rng.sample(COMMANDS, rng.randint(1, 3))
    rows = [{"command": c, "predicted_observation": "ok", "predicted_reward": 0} for c in commands]
    return {
        "answer": json_shapes(rng, {"commands": rows}, {"commands": ["commands", "Commands"]}),
        "expected": {"commands": commands},
    }


def davis_critic(rng: random.Random) -> dict:
    consistent = rng.random() < 0.5
    fields = {
        "agreement": rng.randint(0, 10),
        "consistent": consistent,
        "reflection": "" if consistent else "It failed.",
    }
    return {
        "answer": json_shapes(rng, fields, {"consistent": ["consistent", "Consistent", "is_consistent"]}),
        "expected": {"consistent": consistent},
    }


KINDS = {
    "decision": decision,
    "reflact": reflact,
    "netplay": netplay,
    "stma_planner": stma_planner,
    "stma_critic": stma_critic,
    "planning": planning,
    "exploration_check": exploration_check,
    "importance": importance,
    "davis_world_model": davis_world_model,
    "davis_actor": davis_actor,
    "davis_critic": davis_critic,
}
PER_KIND = 220


def main() -> None:
    for kind, make in KINDS.items():
        rng = random.Random(f"corpus-{kind}")
        rows = [{"kind": kind, "source": "template", **make(rng)} for _ in range(PER_KIND)]
        path = HERE / f"answers_{kind}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
