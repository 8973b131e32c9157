"""The offline extractor on thousands of generated turns made of the words its rules look
for: it never raises, never returns more than five units, every unit passes the contract's
validation, and a hypothetical is never believed (confidence above 0.3)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.units import Turn, validate_unit

WORDS = re.findall(r"\S+", "I I I my My we We Emma She he is am I'm I've are was were a an "
                   "the not no now "
         "actually Actually No, switched moved from to named called and but , , . . ? ! ; "
         "wife daughter cat allergic prefer prefers use love hate fan of work at as in live "
         "St. Dr. U.S. e.g. Corp. vegetarian nurse engineer Python VS Code tabs 7 34 haha "
         "\" said told what if imagine say pretend basically think might decided chose "
         "anymore longer no longer health talk about with that who both and or Mondays "
         "night shifts Siemens Zulip Luna London's 3.9 😂 ✓ über straße je suis ich bin")


def test_generated_turns_never_break_the_contract() -> None:
    rng = random.Random(20)
    h = HeuristicExtractor()
    for _ in range(3000):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30)))
        out = h.extract(Turn(text, "u"))
        assert len(out.units) <= 5, text
        assert not any(n.startswith("could not read") for n in out.notes), (text, out.notes)
        for u in out.units:
            assert validate_unit(u.to_json()) == u, text
            if u.framing == "hypothetical":
                assert u.confidence <= 0.3, text


def test_mutated_benchmark_turns_never_break_the_contract() -> None:
    # Real statements with words swapped, dropped or inserted reach every rule.
    data = Path(__file__).parents[2] / "bench" / "data" / "extract_set.jsonl"
    turns = [json.loads(line)["text"] for line in data.read_text("utf-8").splitlines()]
    rng = random.Random(21)
    h = HeuristicExtractor()
    made = 0
    for text in turns:
        for _ in range(10):
            words = text.split()
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(words))
                op = rng.random()
                if op < 0.4:
                    words[i] = rng.choice(WORDS)
                elif op < 0.7 and len(words) > 1:
                    del words[i]
                else:
                    words.insert(i, rng.choice(WORDS))
            out = h.extract(Turn(" ".join(words) or "x", "u"))
            made += len(out.units)
            assert len(out.units) <= 5
            assert not any(n.startswith("could not read") for n in out.notes), words
            for u in out.units:
                assert validate_unit(u.to_json()) == u
                assert u.framing != "hypothetical" or u.confidence <= 0.3
    assert made > len(turns)  # the mutations still reach the rules
