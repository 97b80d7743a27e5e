"""Rule-driven stand-ins for the STMA and DAVIS prompts, built on the walkthrough answerer: they
read the walkthrough from a privileged env of their own (never through the policy) and
answer each prompt kind of the two agents; the critics reject once, to exercise re-planning."""

from __future__ import annotations

import json
import re

from tests.policies.answerer import WalkthroughAnswerer, _listed

#: STMA prompt kind -> a phrase only that prompt contains.
STMA_KINDS = {
    "stma_plan": "operating as the central processor of a robot",
    "stma_critic": "critically evaluating the suitability",
    "stma_summary": "summarize the robots history",
    "stma_relations": "extracting only the spatial relationships",
    "stma_aggregate": "excellent spatial reasoning skills",
}
_AVAILABLE = re.compile(r"\*\*Available actions:\*\* (\[.*\])")
_PROPOSED = re.compile(r"7\. Proposed Action: (.+)")


class STMAAnswerer(WalkthroughAnswerer):
    """Plans the next ``plan_length`` walkthrough commands; the critic approves walkthrough
    commands (rejecting the first proposal once); memory prompts get short fixed answers."""

    kinds = STMA_KINDS

    def __init__(self, env_id: str, plan_length: int = 4, hold_back: int = 0, **env_kwargs: object) -> None:
        super().__init__(env_id, hold_back=hold_back, **env_kwargs)
        self.plan_length, self.rejected = plan_length, 0

    def _stma_plan(self, prompt: str) -> str:
        match = _AVAILABLE.search(prompt)
        actions = json.loads(match.group(1)) if match else []
        while self.next < self.playable and _listed(self.walkthrough[self.next], actions) is None:
            self.next += 1
        upcoming = self.walkthrough[self.next:min(self.next + self.plan_length, self.playable)]
        if not upcoming:  # walkthrough played (or held back): harmless listed actions
            upcoming, self.next = [self._idle(actions)], self.next - 1
        upcoming[0] = _listed(upcoming[0], actions) or upcoming[0]
        steps = "\n".join(f'- "{a}"' for a in upcoming)
        return (f"Thought:\n1. The goal is to cook and eat the meal.\n2. I follow the recipe.\nPlan:\n```YAML\n"
                f'Subgoal: "carry out {upcoming[0]} and what follows" # detailed\nAction Plan:\n{steps}\n```')

    def _stma_critic(self, prompt: str) -> str:
        action = _PROPOSED.findall(prompt)[-1].strip()
        if self.rejected == 0:
            self.rejected += 1
            return 'Reasoning: let me double-check.\n```YAML\nAction Suitability: False\nFeedback: "Re-check the plan against the recipe."\n```'
        self.answers.append(action)
        self.next += 1
        return '```YAML\nAction Suitability: True\nFeedback: "Fits the subgoal."\n```'

    def _stma_summary(self, prompt: str) -> str:
        return f"Belief: the robot follows the recipe; {self.next} planned commands executed."

    def _stma_relations(self, prompt: str) -> str:
        return '```\n[\n["kitchen", "contains", "stove"]\n]\n```'

    def _stma_aggregate(self, prompt: str) -> str:
        return "The kitchen contains a stove. " + str(prompt.count('", "')) + " relations were given."


#: DAVIS prompt kind -> a phrase only that prompt contains.
DAVIS_KINDS = {
    "davis_world_model": "You are the world model of DAVIS",
    "davis_actor": "You are the actor of DAVIS",
    "davis_critic": "You are the critic of DAVIS",
    "davis_qa_select": "choose the entity types most relevant",
    "davis_qa": "from a temporal knowledge graph of past experience.\nThe facts below",
    "davis_extract": "You build the temporal knowledge graph",
    "davis_belief": "You keep the belief state of DAVIS",
}
_HIGH_LEVEL = re.compile(r"High-level actions: (\[.*\])")


class DAVISAnswerer(WalkthroughAnswerer):
    """The world model asks its graph once per plan, then predicts walkthrough commands; the
    actor passes them through; the critic reports one divergence (then the plan restarts from
    the commands actually executed)."""

    kinds = DAVIS_KINDS

    def __init__(self, env_id: str, question: str = "Where can I find a living thing?", **env_kwargs: object) -> None:
        super().__init__(env_id, **env_kwargs)
        self.question, self.executed, self.diverged = question, 0, 0

    def _davis_world_model(self, prompt: str) -> str:
        if "Inner monologue (your questions to the knowledge graph and its answers):\n(none)" in prompt:
            return json.dumps({"question": self.question})
        if self.next >= len(self.walkthrough):
            return json.dumps({"done": True})
        command = self.walkthrough[self.next]
        self.next += 1
        return json.dumps({"action": command, "predicted_observation": f"the effect of {command}", "predicted_reward": 0})

    def _davis_actor(self, prompt: str) -> str:
        actions = json.loads(_HIGH_LEVEL.search(prompt).group(1))
        return json.dumps({"commands": [{"command": a, "predicted_observation": f"the effect of {a}",
                                         "predicted_reward": 0} for a in actions]})

    def _davis_critic(self, prompt: str) -> str:
        self.executed += 1
        if self.diverged == 0:
            self.diverged += 1
            self.next = self.executed
            return json.dumps({"agreement": 2, "consistent": False, "reflection": "The outcome differed; re-plan."})
        return json.dumps({"agreement": 9, "consistent": True, "reflection": ""})

    def _davis_belief(self, prompt: str) -> str:
        return f"The agent has executed {self.executed + 1} commands of its plan."

    def _davis_qa_select(self, prompt: str) -> str:
        return json.dumps({"types": ["location", "object"], "entities": ["outside", "agent"]})

    def _davis_qa(self, prompt: str) -> str:
        facts = prompt.split("Time-ordered facts:\n")[1].split("\n\nQuestion:")[0].splitlines()
        return f"Living things were found outside ({len(facts)} facts); focus on one, then move it to the box."
