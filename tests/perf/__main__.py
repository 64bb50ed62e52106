"""Every benchmark of issue #9 in one run, one table: `python -m tests.perf [--quick] [--json FILE]`.

1. rules core: one D&D attack (odds, resolution, embed) against avrae's d20 rolling the same dice;
2. the whole process: `python -m bot` over the local double's gateway, a burst and a 300/s run of
   `/ping` (the floor), `/roll`, `/dnd attack` and a quick one, and a minimal d20 bot's `/roll` the same way,
   counted by final answers (after any "thinking…"), and the roll commands' ratios to the floor;
3. database scale: `/dnd attack` and `/history` with 100,000 characters and 1,000,000 logged rolls, as a
   ratio to a nearly empty database, and the query plans of both;
4. memory: the bot's resident memory after 10,000 and 50,000 interactions;
5. offloop: /ping from another server while the heaviest /fair reveal, /fair log, /stats and odds run;
6. hostile: CPU per command for the most expensive inputs a member can give (issue 13), in-process
   (`tests/perf/bench_hostile.py`, which also runs against an older checkout for "before" figures);
7. effort: a D&D fight of 4 players and 6 monsters, the game master's commands, presses and typing and the
   phone lines posted (`tests/perf/bench_fight_effort.py`, which also runs in a checkout of the tracker
   before #28 for the "before" figures).

`--quick` runs small sizes to check the benchmarks themselves (figures from it say little). The full run
takes a few minutes on two cores. These are not tests: pytest does not collect them (files are bench_*).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from tests.perf import bench_fight_effort, bench_hostile, bench_offloop, bench_peer, bench_process
from tests.perf.bench_process import LOADS, PACE, PEER_LOADS

FINAL_COLUMNS = (("peer_roll", "minimal bot `/roll`"), ("ping", "`/ping`"), ("roll", "`/roll 4d6kh3+1d20`"))
FINAL_COLUMNS += (("quick", "`/dnd attack` quick"),)

SECTIONS = ("core", "load", "scale", "memory", "offloop", "hostile", "effort")


def _verdict(ok: bool | None) -> str:
    return "" if ok is None else ("ok" if ok else "MISSED")


def rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(area, measure, value, target, verdict) for the table."""
    out: list[tuple[str, str, str, str, str]] = []
    core = figures.get("core")
    if core:
        ours, peer = core["core"], core["d20"]
        out.append(("core", "odds + resolve + embed, median", f"{ours['attack_median_us']:.1f} µs", "", ""))
        out.append(("core", "  resolve + embed only", f"{ours['resolve_embed_median_us']:.1f} µs", "", ""))
        out.append(("core", "  odds only", f"{ours['odds_median_us']:.1f} µs", "", ""))
        if "unavailable" in peer:
            out.append(("core", "d20 peer", "unavailable: " + peer["unavailable"][:60], "", ""))
        else:
            out.append(
                ("core", f"d20 {peer['d20']}: to-hit, confirm, damage", f"{peer['attack_median_us']:.1f} µs", "", "")
            )
            out.append(("core", "ratio ours / d20 (whole attack)", f"{core['ratio_attack_to_d20']:.2f}", "", ""))
            out.append(("core", "ratio ours / d20 (without odds)", f"{core['ratio_resolve_embed_to_d20']:.2f}", "", ""))
    process = figures.get("process", {})
    load = process.get("load")
    if load:
        if "peer_unavailable" in load:
            out.append(("load", "minimal d20 bot", "unavailable: " + load["peer_unavailable"][:60], "", ""))
        for key in (f"{label}_{kind}" for label, _ in (*LOADS, *PEER_LOADS) for kind in ("burst", "paced")):
            if key not in load:
                continue
            run = load[key]
            name = key.replace("_", " ")
            out.append(("load", f"{name}: {run['sent']} sent, final answers/s", f"{run['final_per_s']:.0f}/s", "", ""))
            out.append(("load", f"  {name}: first responses/s", f"{run['throughput_per_s']:.0f}/s", "", ""))
            out.append(
                (
                    "load",
                    f"  {name}: p50 / p99 / max",
                    f"{run['p50_ms']:.0f} / {run['p99_ms']:.0f} / {run['max_ms']:.0f} ms",
                    "",
                    "",
                )
            )
            if "answer_p99_ms" in run:
                answer = f"{run['answer_p50_ms']:.0f} / {run['answer_p99_ms']:.0f} ms"
                out.append(("load", f"  {name}: answer (after any defer) p50 / p99", answer, "", ""))
            missed = run["late"] + run["lost"] + run.get("unfollowed", 0)
            out.append(
                (
                    "load",
                    f"  {name}: late / lost / deferred, unfollowed",
                    f"{run['late']} / {run['lost']} / {run.get('deferred', 0)}, {run.get('unfollowed', 0)}",
                    "0 / 0 / -, 0",
                    _verdict(missed == 0),
                )
            )
            out.append(("load", f"  {name}: answered out of order", str(run.get("out_of_order", 0)), "", ""))
            out.append(("load", f"  {name}: bot CPU per command", f"{run['bot_cpu_ms_per_command']:.2f} ms", "", ""))
            if "loop_cpu_ms_per_command" in run:
                loop_cpu = f"{run['loop_cpu_ms_per_command']:.2f} ms"
                out.append(("load", f"  {name}: of it, the event loop's thread", loop_cpu, "", ""))
        for label in ("roll", "attack", "quick", "peer_roll"):
            ours = label != "peer_roll"
            if (ratio := load.get(f"burst_ratio_{label}_to_floor")) is not None:
                verdict = _verdict(ratio >= 0.8) if ours else ""
                out.append(("load", f"burst final answers/s {label} / ping", f"{ratio:.2f}", ">= 0.80", verdict))
            if (ratio := load.get(f"paced_p99_ratio_{label}_to_floor")) is not None:
                verdict = _verdict(ratio <= 5) if ours else ""
                out.append(("load", f"paced p99 to final {label} / ping", f"{ratio:.2f}", "<= 5", verdict))
    scale = process.get("scale")
    if scale:
        size = f"{scale['characters']:,} characters, {scale['rolls']:,} rolls"
        out.append(("scale", "bulk insert", f"{scale['insert_seconds']:.1f} s", size, ""))
        for key, label in (
            ("attack", "/dnd attack"),
            ("history", "/history"),
            ("history_user", "/history user:"),
        ):
            empty, full = scale["empty"][f"{key}_p50_ms"], scale["full"][f"{key}_p50_ms"]
            ratio = scale[f"{key}_ratio"]
            out.append(
                (
                    "scale",
                    f"{label} p50 empty -> full",
                    f"{empty:.1f} -> {full:.1f} ms (x{ratio:.2f})",
                    "<= 1.2" if key == "attack" else "",
                    _verdict(ratio <= 1.2) if key == "attack" else "",
                )
            )
        scans = scale["full_scans"]
        out.append(
            ("scale", "full scans in the commands' queries", "; ".join(scans) or "none", "none", _verdict(not scans))
        )
    memory = process.get("memory")
    if memory:
        first, second = memory["interactions"]
        out.append(("memory", "VmRSS after start-up", f"{memory['after_start_kib'] / 1024:.1f} MiB", "", ""))
        out.append(("memory", f"VmRSS after {first:,}", f"{memory[f'after_{first}_kib'] / 1024:.1f} MiB", "", ""))
        out.append(("memory", f"VmRSS after {second:,}", f"{memory[f'after_{second}_kib'] / 1024:.1f} MiB", "", ""))
        growth = memory["growth_percent"]
        out.append(("memory", f"growth {first:,} -> {second:,}", f"{growth:+.1f}%", "< 5%", _verdict(growth < 5)))
    out += bench_offloop.rows(figures.get("offloop"))
    for name, cpu in figures.get("hostile", {}).items():
        if isinstance(cpu, str):
            out.append(("hostile", name, cpu, "", ""))
        else:
            median, worst = cpu
            target = f"<= {bench_hostile.TARGET_MS:.0f} ms"
            value = f"{median:.1f} / {worst:.1f} ms"
            out.append(
                ("hostile", f"{name}: CPU median / worst", value, target, _verdict(worst <= bench_hostile.TARGET_MS))
            )
    out += bench_fight_effort.rows(figures.get("effort"))
    if "core_seconds" in figures:
        out.append(("time", "core section", f"{figures['core_seconds']:.0f} s", "", ""))
    for section, seconds in process.get("seconds", {}).items():
        out.append(("time", f"{section} section", f"{seconds:.0f} s", "", ""))
    if "bot_log_errors" in process:
        errors = process["bot_log_errors"]
        out.append(("process", "unhandled errors in the bot's log", str(errors), "0", _verdict(errors == 0)))
    return out


def final_table(load: dict[str, Any] | None) -> str:
    """Issue #29's table: what users see, the minimal d20 bot, /ping, /roll and a quick /dnd attack side by side."""
    columns = [(label, title) for label, title in FINAL_COLUMNS if f"{label}_burst" in (load or {})]
    if load is None or not columns:
        return ""

    def cell(label: str, kind: str, measure: str) -> str:
        run = load[f"{label}_{kind}"]
        if measure == "final_per_s":
            deferred = f" ({run['deferred']:,} deferred)" if run["deferred"] else ""
            return f"{run['final_per_s']:,.0f}{deferred}"
        ms = run["answer_p99_ms"]
        return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"

    sent = load[f"{columns[0][0]}_burst"]["sent"]
    lines = [
        "| | " + " | ".join(title for _, title in columns) + " |",
        "|---" * (len(columns) + 1) + "|",
        f"| burst of {sent:,}: final answers / s | " + " | ".join(cell(c, "burst", "final_per_s") for c, _ in columns),
        "| burst: p99 until the final answer | " + " | ".join(cell(c, "burst", "p99") for c, _ in columns),
        f"| paced {PACE:.0f}/s: p99 until the final answer | "
        + " | ".join(cell(c, "paced", "p99") for c, _ in columns),
    ]
    return "\n".join(line if line.endswith("|") else line + " |" for line in lines)


def table(lines: list[tuple[str, str, str, str, str]]) -> str:
    header = ("area", "measure", "value", "target", "")
    widths = [max(len(str(r[i])) for r in [header, *lines]) for i in range(5)]
    fmt = "  ".join(f"{{:{w}}}" for w in widths)
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt.format(*header), rule, *(fmt.format(*r).rstrip() for r in lines)])


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.perf", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the benchmarks, not the bot")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every figure to FILE")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="Discord's round trip for each request of the load (default 0: the double answers at once; 0.05-0.1 "
        "is what a bot sees from most hosts)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    figures: dict[str, Any] = {
        "quick": args.quick,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "latency": args.latency,
    }
    if "core" in args.only:
        figures["core"] = bench_peer.run(2_000 if args.quick else 20_000)
        figures["core_seconds"] = round(time.monotonic() - started, 1)
    if "offloop" in args.only:
        figures["offloop"] = asyncio.run(bench_offloop.run(args.quick))
    if "hostile" in args.only:
        figures["hostile"] = bench_hostile.run(2 if args.quick else 5)
    if "effort" in args.only:
        figures["effort"] = dataclasses.asdict(asyncio.run(bench_fight_effort.play(show=False)))
    process_sections = {s for s in args.only if s not in ("core", "offloop", "hostile", "effort")}
    if process_sections:
        figures["process"] = asyncio.run(bench_process.run(args.quick, process_sections, args.latency))
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(table(rows(figures)))
    if summary := final_table(figures.get("process", {}).get("load")):
        print("\nWhat users see (final answers; the machine is shared, so figures vary between runs):\n" + summary)
    run = f"{'quick' if args.quick else 'full'} run, {figures['seconds']:.0f} s, Python {figures['python']}"
    print(f"\n{run}, Discord's round trip {args.latency * 1000:.0f} ms" if args.latency else f"\n{run}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
