"""The documentation's code and the examples run as written."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# Programs that need a peer: the server is started by client_quickstart.py and the client
# tests, the conformance client by the conformance suite (tests/test_conformance_client.py).
NEEDS_A_PEER = {"booking_server.py", "conformance_client.py", "conformance_server.py"}
STANDALONE = [p for p in EXAMPLES if p.name not in NEEDS_A_PEER]
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_python_blocks_in_docs_run(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _BLOCK.findall(page.read_text(encoding="utf-8"))
    if page.name == "forms.md":
        assert len(blocks) >= 7
    # A real module, as a reader's script would be (dataclasses look their module up).
    module = types.ModuleType(f"docs_{page.stem}")
    sys.modules[module.__name__] = module
    try:
        for index, block in enumerate(blocks):
            code = compile(block, f"{page.name}[block {index}]", "exec")
            exec(code, module.__dict__)
    finally:
        del sys.modules[module.__name__]


@pytest.mark.parametrize("example", STANDALONE, ids=[p.name for p in STANDALONE])
def test_examples_run(example: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_forms_example_prints_one_message_per_bad_field() -> None:
    output = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "forms_quickstart.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "name: must be at least 2 characters long (it has 1)" in output
    assert "birthday: must be a real calendar date" in output


def test_runpy_import_of_examples_has_no_side_effects() -> None:
    # Examples guard their work behind __main__, so tools can import them.
    for example in EXAMPLES:
        runpy.run_path(str(example), run_name="not_main")
