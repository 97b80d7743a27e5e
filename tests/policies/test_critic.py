"""The heuristic critic's scores and substitutions, and the loop guards."""

from __future__ import annotations

from policies.critic import HeuristicCritic, LoopGuard, TurnsCritic, direction_of, room_from
from policies.llm_agent import Turn

VALID = ["go north", "go east", "open chest", "take key", "look"]


def test_scores_follow_the_seed_rules():
    critic = HeuristicCritic()
    assert critic.score("open chest", "hall", VALID) == 1.0          # valid, untried
    assert critic.score("dance wildly", "hall", VALID) == 0.0        # not valid
    critic.record("open chest", "hall", "hall", 0.0)
    assert critic.score("open chest", "hall", VALID) == -0.5         # tried once, no reward
    assert critic.score("open chest", "cellar", VALID) == 1.0        # room-local
    critic.record("open chest", "hall", "hall", 0.0)
    assert critic.score("open chest", "hall", VALID) == -1.0         # tried twice
    critic.record("go north", "hall", "hall", 0.0)
    assert critic.score("go north", "hall", VALID) == -1.0           # blocked direction
    assert critic.score("n", "hall", VALID) == -1.0
    critic.record("take key", "hall", "hall", 1.0)
    assert critic.score("take key", "hall", VALID) == 0.5            # earned reward before


def test_review_substitutes_the_best_untried_valid_command_only_at_minus_one():
    critic = HeuristicCritic()
    critic.record("open chest", "hall", "hall", 0.0)
    assert critic.review("open chest", "hall", VALID) == ("open chest", -0.5, False)
    critic.record("open chest", "hall", "hall", 0.0)
    action, score, substituted = critic.review("open chest", "hall", VALID)
    assert substituted and score == -1.0 and action in {"go north", "go east", "take key"}
    assert critic.substitutions == 1
    critic.record("go north", "hall", "hall", 0.0)
    assert critic.review("go north", "hall", ["go north"]) == ("go south", -1.0, True)  # untried direction
    critic.record("eat apple", "hall", "hall", 0.0)
    critic.record("eat apple", "hall", "hall", 0.0)
    assert critic.review("eat apple", "hall", ["eat apple", "eat bread"])[0] == "go south"  # never eats blindly


def test_movement_and_rooms_are_recognised():
    assert [direction_of(c) for c in ("go north", "n", "SW", "go to kitchen", "open door")] == \
        ["north", "north", "southwest", None, None]
    assert room_from("-= Kitchen =-\nA room.", {}) == "kitchen"
    assert room_from("Nothing here.", {}, "hall") == "hall"
    assert room_from("-= Kitchen =-", {"location": "pantry"}) == "pantry"


def test_loop_guard_forces_look_warns_on_frequency_and_revisits():
    guard = LoopGuard()
    guard.record("take lamp", "s1")
    assert guard.check("take lamp") == ("take lamp", False)
    guard.record("take lamp", "s2")
    assert guard.check("take lamp") == ("look", True) and guard.forced == 1
    assert guard.check("go north") == ("go north", False)
    for state in ("s3", "s1", "s4"):
        guard.record("go north" if state != "s1" else "take lamp", state)
    warnings = " ".join(guard.warnings())
    assert "'take lamp' 3 times" not in warnings
    guard.record("take lamp", "s1")
    warnings = " ".join(guard.warnings())
    assert "'take lamp' 4 times" in warnings and "seen 3 times" in warnings


def test_rejected_lists_what_review_would_replace_and_why_explains_it():
    critic = HeuristicCritic()
    critic.record("go north", "hall", "hall", 0.0)
    for _ in range(2):
        critic.record("open chest", "hall", "hall", 0.0)
    critic.record("take key", "hall", "hall", 0.0)  # tried once: -0.5, not rejected
    assert critic.rejected("hall", VALID) == ["go north", "open chest"]
    assert critic.why("go north", "hall") == "going north was blocked here before"
    assert critic.why("open chest", "hall") == "it was tried 2 times here without reward"
    assert critic.why("take key", "hall") == ""
    assert critic.replacement("open chest", "hall", VALID) == "go east"
    assert critic.replacement("take key", "hall", VALID) is None
    assert critic.substitutions == 0  # asking counts nothing



def test_loop_guard_never_freezes_in_look_once_everything_was_tried_here():
    """Every move from a room played and ``look`` played too: forcing ``look`` again would repeat
    forever (it changes nothing), so the least played command goes through; a hard loop never does."""
    guard = LoopGuard()
    for command, state in [("look", "hall"), ("go east", "yard"), ("go west", "hall")]:
        guard.record(command, state)
    assert guard.check("go east") == ("look", True)  # the first time here: look
    guard.record("look", "hall")
    assert guard.check("go east") == ("go east", False) and guard.forced == 1  # not look again
    for command, state in [("go north", "shed"), ("go south", "hall"), ("go east", "yard"), ("go west", "hall")]:
        guard.record(command, state)
    assert guard.check("go east", ["go north"]) == ("go north", True)  # played once here, go east twice
    for command in ("look", "look", "wait", "wait"):  # look played in the cellar too
        guard.record(command, "cellar")
    assert guard.check("wait") == ("look", True) and guard.forced == 3  # a third "wait" in a row: look


def test_a_turns_critic_asked_late_knows_what_one_told_every_step_knows():
    """LLM agents keep their turns and let the critic read them only when a fallback asks (not every step)."""
    steps = [("go north", "You can't go that way.", 0.0, None), ("go east", "-= Cellar =-\nDark.", 0.0, None),
             ("take key", "Taken.", 1.0, None), ("go west", "Back.", 0.0, "hall"), ("open chest", "No.", 0.0, "hall"),
             ("open chest", "No.", 0.0, "hall")]
    eager, room, turns = HeuristicCritic(), "hall", []
    late = TurnsCritic("hall", turns)
    for asked, (action, text, reward, location) in enumerate(steps):
        before, room = room, room_from(text, {"location": location}, room)
        eager.record(action, before, room, reward)
        turns.append(Turn(action, text, reward, location))
        if asked % 2:  # asked every other step: the turns since the last call are read then
            assert late.best_untried(VALID) == eager.best_untried(room, VALID)
    assert late.best_untried(VALID) == eager.best_untried(room, VALID) == "go south"
    assert (late.room, late.critic.tried, late.critic.blocked, late.critic.rewarded) == (
        room, eager.tried, eager.blocked, eager.rewarded)
