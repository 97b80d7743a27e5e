"""Start the local OpenAI-compatible server and make one call through LLMClient.

The server answers with a scripted JSON action; the first request hits an injected HTTP 429,
which the client retries. No key and no internet are needed.

Run:
    python examples/llm_local_server.py
"""

from __future__ import annotations

from textmem_gym.llm import Fault, LLMClient, LocalOpenAIServer


def main() -> None:
    """Serves one scripted answer behind a rate-limit fault and prints what the client saw."""
    script = ['Sure! {"action": "open fridge", "reason": "the recipe needs milk"}']
    with LocalOpenAIServer(script=script, faults=[Fault("429", retry_after=0.05)]) as server:
        client = LLMClient(model="local-model", base_url=server.base_url, backoff_base=0.01)
        result = client.chat([{"role": "user", "content": "You are in the kitchen. What do you do?"}])
        print(f"server: {server.base_url} ({server.calls} requests)")
    action = result.json(required=("action",))
    print(f"text: {result.text}")
    print(f"action: {action.value['action'] if action.ok else action.error}")
    print(f"tokens: {result.prompt_tokens}+{result.completion_tokens}, retries: {result.retries}, "
          f"latency: {result.latency_s:.3f}s")
    print(f"usage: {client.usage.as_dict()}")


if __name__ == "__main__":
    main()
