"""A rule-driven LLM stand-in for tests: answers each prompt kind by rule, choosing actions from
the game's privileged walkthrough (read from a privileged env the answerer owns, never by the
policy). Served through the real LocalOpenAIServer, so the whole policy pipeline is exercised."""

from __future__ import annotations

import difflib
import json
import re
from collections import defaultdict

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers the ids)
from policies.critic import direction_of, room_from

#: Prompt kind -> phrase(s) only that prompt's instruction contains (compact and paper styles).
KINDS = {
    "plan": ("You are a planner within the agent system", "You are the planner of an agent"),
    "action": ("You are an action selector", "You are the action selector of an agent"),
    "exploration_check": "state if this sub goals require exploration",
    "summary": "You are a guide within a team of agents",
    "importance": "rate the likely poignancy",
    "reflection": "What 3 high-level insights",
    "trial_reflection": "failed a trial of a text-based game",
    "reflact": "first reflect on your belief state",
    "narrative": "4-6 sentence factual summary",
    "hints": "just entered a room",
    "npc": "keeps talking to a character",
}
_ACTIONS = re.compile(r"(?:Possible actions in current situation|Valid actions): ([\[{].*[\]}])")


def listed_actions(prompt: str) -> list[str]:
    """The actions a prompt offers: a JSON list, or a JSON object grouping them by first word."""
    match = _ACTIONS.search(prompt)
    if not match:
        return []
    listed = json.loads(match.group(1))
    if isinstance(listed, list):
        return listed
    return [f"{head} {rest}".strip() for head, rests in listed.items() for rest in rests]


def prompt_kind(prompt: str, kinds: dict[str, str | tuple[str, ...]] = KINDS) -> str:
    """The kind of a prompt among ``kinds`` (``other`` when unknown)."""
    for kind, phrases in kinds.items():
        if any(phrase in prompt for phrase in ((phrases,) if isinstance(phrases, str) else phrases)):
            return kind
    return "other"


class WalkthroughAnswerer:
    """``messages -> answer`` following the walkthrough of ``env_id``; records prompts by kind.

    With ``hold_back=N`` the last N walkthrough commands are never played: the answerer then
    cycles through harmless listed actions (go, examine, look), so an episode runs to its limit.
    """

    #: Prompt kind -> the phrase(s) that identify it (see :func:`prompt_kind`).
    kinds: dict[str, str | tuple[str, ...]] = KINDS

    def __init__(self, env_id: str, hold_back: int = 0, **env_kwargs: object) -> None:
        env = gym.make(env_id, privileged=["walkthrough"], **env_kwargs)
        observation, info = env.reset(seed=0)
        self.walkthrough = list(info["walkthrough"])
        self.playable = len(self.walkthrough) - hold_back
        self.idle = 0
        room = room_from(observation, {})
        self.room_before: list[str | None] = []
        for command in self.walkthrough:
            self.room_before.append(room)
            observation, *_ = env.step(command)
            room = room_from(observation, {}, room)
        self.room_before.append(room)
        env.close()
        self.next = 0
        self.prompts: dict[str, list[str]] = defaultdict(list)
        self.answers: list[str] = []

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        kind = prompt_kind(prompt, self.kinds)
        self.prompts[kind].append(prompt)
        return getattr(self, f"_{kind}", self._other)(prompt)

    # -- actions -------------------------------------------------------------------------
    def _next_command(self, prompt: str) -> str:
        actions = listed_actions(prompt)
        if self.next >= self.playable:
            return self._idle(actions)
        goto = self._goto(actions)
        if goto is not None:
            return goto
        while self.next < self.playable:
            command = self.walkthrough[self.next]
            self.next += 1
            listed = _listed(command, actions)
            if listed is not None:
                self.answers.append(listed)
                return listed
        return "look"

    def _idle(self, actions: list[str]) -> str:
        harmless = [a for a in actions if a.startswith(("go ", "examine ", "look"))] or ["look"]
        self.idle += 1
        return harmless[self.idle * 7 % len(harmless)]

    def _goto(self, actions: list[str]) -> str | None:
        """``go to R`` when the next walkthrough commands only move (and open doors) to room R."""
        end = self.next
        while end < self.playable and (direction_of(self.walkthrough[end]) or
                                               self.walkthrough[end].startswith("open") and "door" in self.walkthrough[end]):
            end += 1
        if end - self.next < 2:
            return None
        for last in range(end, self.next + 1, -1):
            target = self.room_before[last]
            if target and target != self.room_before[self.next] and f"go to {target}" in actions:
                self.next = last
                self.answers.append(f"go to {target}")
                return f"go to {target}"
        return None

    def _action(self, prompt: str) -> str:
        return json.dumps({"reason_for_action": "it follows the plan", "action_to_take": self._next_command(prompt)})

    def _reflact(self, prompt: str) -> str:
        command = self._next_command(prompt)
        return f"REFLECTION: progressing.\nOBJECTIVE: do '{command}' next\nACTION: {command}"

    # -- other modules -------------------------------------------------------------------
    def _plan(self, prompt: str) -> str:
        upcoming = self.walkthrough[self.next] if self.next < len(self.walkthrough) else "finish"
        return json.dumps({"main_goal": "win the game", "plan_steps": [
            {"sub_goal_1": f"do '{upcoming}'", "reason": f"step {self.next} of the plan"}],
            "your_emotion": {"your_current_emotion": "focused", "reason_behind_emotion": "on track"}})

    def _exploration_check(self, prompt: str) -> str:
        upcoming = self.walkthrough[self.next] if self.next < len(self.walkthrough) else ""
        return "True" if direction_of(upcoming) else "False"

    def _summary(self, prompt: str) -> str:
        return f"Summary: {self.next} walkthrough commands done."

    def _importance(self, prompt: str) -> str:
        return "7" if "recipe" in prompt.lower() else "3"

    def _reflection(self, prompt: str) -> str:
        return "The recipe is in the kitchen.\nIngredients must be taken first."

    def _trial_reflection(self, prompt: str) -> str:
        return "I ran out of steps; next time go straight to the kitchen."

    def _narrative(self, prompt: str) -> str:
        return "You are making progress through the walkthrough."

    def _hints(self, prompt: str) -> str:
        return "look\ninventory"

    def _npc(self, prompt: str) -> str:
        return "NEEDS: nothing | NEXT: look"

    def _other(self, prompt: str) -> str:
        return "look"


def _listed(command: str, actions: list[str]) -> str | None:
    """``command`` as listed (``take knife`` -> ``take knife from table``); ``None`` when the
    walkthrough command is not admissible now (e.g. opening a door that is already open)."""
    if not actions or command in actions:
        return command
    longer = [a for a in actions if a.startswith(command + " ")]
    if longer:
        return longer[0]
    close = difflib.get_close_matches(command, actions, n=1, cutoff=0.9)
    return close[0] if close else None
