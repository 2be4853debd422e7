"""``mcp-elicit demo``: the showcase."""

from __future__ import annotations

import argparse
import sys


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser("demo", help="a walkthrough of what mcp-elicit does")
    demo.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from mcp_elicit.demo import forms_tour

    forms_tour.run(sys.stdout)
    return 0
