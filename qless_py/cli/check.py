"""``qless-py check [--repair] [--json] [--resume TOKEN]``: find (and repair) what broke
the data. The walk and the repairs are ``Client.check``'s; this module parses and renders.
"""

from __future__ import annotations

import sys

import click

from qless_py import Client
from qless_py.calls.check import DEFAULT_BUDGET, CheckStep, Finding, Progress, decode_token
from qless_py.cli.common import echo_json, fail, json_option, pass_client


def _progress(quiet: bool) -> Progress:
    """A progress callback that writes keys seen to stderr every 50 steps (nothing when
    ``quiet``), with the token that resumes the check from there."""
    seen = [0]

    def tell(step: CheckStep) -> None:
        seen[0] += 1
        if not quiet and seen[0] % 50 == 0 and step.token:
            click.echo(f"checked {step.keys} keys; resume with --resume {step.token}",
                       err=True)

    return tell


def _line(finding: Finding) -> str:
    member = f" [{finding.member}]" if finding.member else ""
    repair = finding.repair or "left alone (report only)"
    return f"{finding.invariant}: {finding.key}{member}: {finding.detail}; repair: {repair}"


@click.command()
@click.option("--repair", is_flag=True, help="Fix each finding as the core would have.")
@click.option("--resume", default="", metavar="TOKEN",
              help="Continue the check that printed TOKEN.")
@click.option("--budget", default=DEFAULT_BUDGET, type=click.IntRange(1, 10000),
              help="The most server calls one step of the check makes (default: 40 on "
                   "Valkey and Redis 8, whose steps also end after 0.3 ms of server CPU; "
                   "25 on Redis 6.2 and 7).")
@json_option
@pass_client
def check(client: Client, repair: bool, resume: str, budget: int | None,
          as_json: bool) -> None:
    """Check every invariant of the data; exit 1 when something is broken."""
    if resume:
        try:
            decode_token(resume)
        except ValueError as exc:
            fail(str(exc))
    report = client.check(repair=repair, resume=resume, budget=budget,
                          progress=_progress(as_json))
    if as_json:
        echo_json({"keys": report.keys, "repaired": report.repaired,
                   "counts": report.counts,
                   "findings": [f.as_dict() for f in report.findings]})
    else:
        for finding in report.findings:
            click.echo(_line(finding))
        verb = f", {report.repaired} repaired" if repair else ""
        click.echo(f"{report.keys} keys checked, {len(report.findings)} finding(s){verb}")
    if report.findings and not repair:
        sys.exit(1)


def register(group: click.Group) -> None:
    group.add_command(check)
