"""A real OpenAI-compatible server for a Hugging Face model directory (transformers, greedy,
a few tokens): what vLLM or SGLang would be for `ortrex train recipe`'s eval, at test size.

    python hf_server.py MODEL_DIR PORT NAME
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def main() -> None:
    model_dir, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _json(self, obj: object) -> None:
            body = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._json({"object": "list", "data": [{"id": name, "object": "model",
                                                    "created": 0, "owned_by": "test"}]})

        def do_POST(self) -> None:
            req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = "\n".join(m["content"] for m in req["messages"])
            ids = tok(prompt, return_tensors="pt")["input_ids"][:, -48:]
            with torch.no_grad():
                out = model.generate(input_ids=ids, max_new_tokens=6, do_sample=False)
            text = tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
            self._json({"id": "c", "object": "chat.completion", "created": int(time.time()),
                        "model": name, "choices": [{"index": 0, "finish_reason": "length",
                                                    "message": {"role": "assistant",
                                                                "content": text}}],
                        "usage": {"prompt_tokens": ids.shape[1], "completion_tokens": 6,
                                  "total_tokens": ids.shape[1] + 6}})

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
