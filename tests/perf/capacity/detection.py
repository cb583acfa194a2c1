"""Detection alone, as the capacity model reads it: ``python -m tests.perf.capacity.detection``.

``bench_slack``'s texts (``msg-T-K please answer``) and its fake model's answers (``Noted: …``,
the output scan: pattern rules only) through ``detect_many`` in this process, after a warm-up
as a detection process has: thread CPU per text for one text at a time and in batches of 4
and 8 (p50 and p95 over the batches). The model's ``detect_batch_ms`` is what one text alone
costs beyond its share of a batch (one NER pass); ``detect_p50_ms``/``detect_p95_ms`` each
text's share in a batch of 8; ``scan_ms`` an answer's scan.
"""

from __future__ import annotations

import os
import time

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from guardrails.detect.workers import WARM_UP_TEXT, _Engines  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from guardrails.policy import default_policy  # noqa: E402
from tests.perf.capacity.runs import pct  # noqa: E402


def per_text(engines: _Engines, texts: list[str], size: int, *, prose: bool) -> list[float]:
    """Thread CPU ms per text of each batch of ``size`` texts."""
    found = []
    for i in range(0, len(texts) - size + 1, size):
        items = [(text, "slack", prose, None) for text in texts[i : i + size]]
        start = time.thread_time()
        engines.detect_many(items)  # type: ignore[arg-type]
        found.append((time.thread_time() - start) * 1000 / size)
    return found


def main() -> None:
    """Warm up, then print the figures."""
    engines = _Engines(build_analyzer(resolve_model("auto")), default_policy(), 4000)
    engines.detect_many([(WARM_UP_TEXT, "console", p, None) for p in (True, False)])
    texts = [f"msg-{t}-{k} please answer" for k in range(5) for t in range(200)]
    answers = [f"Noted: {text}" for text in texts]
    per_text(engines, texts[:40], 8, prose=True)  # the first texts' lazy set-up
    for prose, name, source in ((True, "texts", texts[40:]), (False, "answers", answers)):
        for size in (1, 4, 8):
            ms = per_text(engines, source[: 80 * size], size, prose=prose)
            print(
                f"{name:8} (prose={prose!s:5}) batches of {size}: per text "
                f"p50 {pct(ms, 50):.2f} ms, p95 {pct(ms, 95):.2f} ms"
            )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
