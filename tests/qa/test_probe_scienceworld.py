"""Probe questions and structural answers on ScienceWorld text: questions are asked about what the text
printed (a room entered without a description shows nothing), in the names it printed, and a holder
name repeated across rooms (a sink in the bathroom and in the foundry) still gives the right answer."""

from __future__ import annotations

from textmem_gym.memory.adoption import adopt
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.extractors.scienceworld import ScienceWorldObservedTruth, ScienceWorldRules
from textmem_gym.qa.probes.answering import structural_answer
from textmem_gym.qa.probes.questions import build_timeline, generate_questions
from textmem_gym.qa.probes.replay import RecordedEpisode, Replay, ReplayStep

BATHROOM = ("This room is called the bathroom. In it, you see:\n\tthe agent\n\ta substance called air\n"
            "\ta sink, which is turned off. In the sink is: nothing.\n\ta red apple\n"
            "You also see:\n\tA door to the kitchen (that is open)")
#: Every thing's place: an anvil in the foundry (never printed), a sink in the bathroom and in the foundry.
PLACES = (("sink", "in", "bathroom"), ("sink", "in", "foundry"), ("air", "in", "bathroom"), ("air", "in", "foundry"),
          ("apple", "in", "bathroom"), ("anvil", "in", "foundry"))
#: (command, observation, the agent's room, the shovel's holder)
STEPS = [("", BATHROOM, "bathroom", "inventory"),
         ("teleport to foundry", "You teleport to the foundry.", "foundry", "inventory"),
         ("move shovel to sink", "You move the shovel to the sink.", "foundry", "sink"),
         ("teleport to bathroom", "You teleport to the bathroom.", "bathroom", "sink"),
         ("look around", BATHROOM, "bathroom", "sink")]


def _replay() -> Replay:
    episode = RecordedEpisode("TextMem/ScienceWorld-Boil-v0", {}, 0, [[c] for c, *_ in STEPS[1:]], [])
    return Replay(episode, [ReplayStep(i, command, text, {}, (*PLACES, ("agent", "in", room), ("shovel", "in", holder)))
                            for i, (command, text, room, holder) in enumerate(STEPS)])


def test_questions_ask_what_the_text_printed_in_its_names_and_a_repeated_holder_is_answered_right():
    replay = _replay()
    questions = generate_questions(build_timeline(replay, ScienceWorldObservedTruth()), [4], kinds=["location"],
                                   per_kind=100)
    asked = {q.question.removeprefix("At step 4: "): q.answers[0] for q in questions}
    assert asked == {"Where is the shovel?": "sink", "Where is the red apple?": "bathroom"}  # no anvil, no "apple"
    memory = adopt(AriGraphMemory(), parser=ScienceWorldRules())
    for step in replay.steps:
        memory.update(step.observation, step.command, {})
    answers = {q.question: structural_answer(memory, q, {i: i for i in range(len(STEPS))}) for q in questions}
    assert answers == {q.question: q.answers[0] for q in questions}
