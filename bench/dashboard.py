"""The operators' dashboard (deploy/grafana/sawbones.json) drawn from a real run of the
flood drill, for docs/operations.md (issue 28: "look, not read").

Grafana cannot run on the development machine (no Docker engine; Grafana is on none of
the package registries it reaches); Prometheus can (Debian's ``prometheus``). So this
script runs the flood drill's stack (tests/drills: its own PostgreSQL and Redis,
gunicorn, a worker per queue, beat, production settings) with ``METRICS_TOKEN`` set and
Prometheus scraping ``/metrics`` every 2 s with deploy/alerts.yml loaded; sends the
flood (20 campaigns whose webhooks point at a dead port, players' actions moving their
clocks; the quiet campaign's 60-minute advances before, mid-flood and after); brings
the dead port to life and waits for every event to arrive. Then it asks Prometheus each
panel's own query over the run and draws the panels where the dashboard places them (an
SVG page, shot by chromium through Playwright), with the alerts that fired.

What is drawn is the dashboard's queries on real data, not Grafana's look: the panel's
title, its series and their legend, a stat's last value.

    .venv/bin/python bench/dashboard.py [--events 1500] [--out docs/img/dashboard-flood.png]
"""

from __future__ import annotations

import argparse
import html
import json
import math
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.drills import test_flood as flood  # noqa: E402 - after the path
from tests.drills.stack import App, Receiver, free_port, servers, wait_for  # noqa: E402

DASHBOARD = ROOT / "deploy" / "grafana" / "sawbones.json"
ALERTS = ROOT / "deploy" / "alerts.yml"
TOKEN = "dashboard-" + "t" * 40
SCRAPE = 2  # seconds between scrapes, and the step of the drawn series
ROW = 34  # pixels per unit of a panel's gridPos height
WIDTH = 1400  # the page's width; 24 grid columns
COLOURS = ["#2f6fb0", "#c0392b", "#2e8b57", "#d4872a", "#7d4fb3", "#17908f", "#8a6d3b"]


def prometheus(base: Path, target: int) -> tuple[subprocess.Popen[bytes], str]:
    """Prometheus scraping the app's web process; the process and its address."""
    port = free_port()
    (base / "metrics_token").write_text(TOKEN)
    config = {
        "global": {"scrape_interval": f"{SCRAPE}s", "evaluation_interval": f"{SCRAPE}s"},
        "rule_files": [str(ALERTS)],
        "scrape_configs": [
            {
                "job_name": "sawbones",
                "metrics_path": "/metrics",
                "authorization": {
                    "type": "Bearer",
                    "credentials_file": str(base / "metrics_token"),
                },
                "static_configs": [{"targets": [f"127.0.0.1:{target}"]}],
            }
        ],
    }
    (base / "prometheus.yml").write_text(json.dumps(config))  # JSON is YAML
    binary = shutil.which("prometheus")
    if binary is None:
        sys.exit("needs Prometheus: apt-get install prometheus")
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={base / 'prometheus.yml'}",
            f"--storage.tsdb.path={base / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=(base / "prometheus.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    address = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: _get(f"{address}/api/v1/status/buildinfo") is not None,
            60,
            "Prometheus",
            lambda: (base / "prometheus.log").read_text(errors="replace"),
        )
    except AssertionError:
        process.kill()
        raise
    return process, address


def _get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return json.loads(answer.read() or b"null")
    except (OSError, ValueError):
        return None


def query_range(address: str, expr: str, start: float, end: float) -> list[dict[str, Any]]:
    query = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": SCRAPE})
    answer = _get(f"{address}/api/v1/query_range?{query}")
    if not answer or answer.get("status") != "success":
        return []
    return list(answer["data"]["result"])


def alerts_fired(address: str, start: float, end: float) -> list[str]:
    """Each alert that fired during the run, with how long."""
    series = query_range(address, 'ALERTS{alertstate="firing"}', start, end)
    return [
        f"{s['metric'].get('alertname', '?')}: firing for {len(s['values']) * SCRAPE} s"
        for s in series
    ]


def flood_beside_quiet_advances(app: App, world: dict[str, Any], events: int) -> list[str]:
    """``events`` actions sent at the flooded campaigns, and how long the quiet campaign's
    advance takes before, during and at the end of the flood."""
    token, referee, quiet = world["token"], world["referee"], world["quiet"]
    seen: list[str] = []
    before = flood.quiet_advance(app, referee, quiet["campaign"])
    seen.append(f"quiet advance before the flood: {before['took']:.2f} s")
    characters = [c["character"] for c in world["flooded"]]

    def send_flood() -> None:
        with ThreadPoolExecutor(6) as pool:
            one = lambda n: flood.act(app, token, characters[n % flood.CAMPAIGNS])  # noqa: E731
            list(pool.map(one, range(events)))

    flooding = threading.Thread(target=send_flood)
    began = time.monotonic()
    flooding.start()
    time.sleep(10)
    during = flood.quiet_advance(app, referee, quiet["campaign"])
    seen.append(f"quiet advance mid-flood: {during['took']:.2f} s")
    flooding.join()
    seen.append(f"{events} actions answered in {time.monotonic() - began:.0f} s")
    after = flood.quiet_advance(app, referee, quiet["campaign"])
    seen.append(f"quiet advance at the flood's end: {after['took']:.2f} s")
    return seen


def panel_series(
    address: str, start: float, end: float
) -> tuple[list[dict[str, Any]], dict[str, list[list[dict[str, Any]]]]]:
    """The dashboard's panels and, by panel id, each of its queries' series over the run."""
    panels: list[dict[str, Any]] = json.loads(DASHBOARD.read_text())["panels"]
    series = {
        str(panel["id"]): [
            query_range(address, target["expr"], start, end) for target in panel.get("targets", [])
        ]
        for panel in panels
    }
    return panels, series


def run_flood(events: int) -> tuple[dict[str, Any], list[str]]:
    """The drill's flood with Prometheus watching; every panel's series and what was seen."""
    with servers() as (base, postgres, redis):
        postgres.psql("CREATE DATABASE dashboard")
        env = {**flood.ENV, "METRICS_TOKEN": TOKEN}
        app = App(base, postgres.url("dashboard"), redis.url, **env)
        app.manage("migrate", "--noinput")
        dead_port = free_port()
        live = Receiver(free_port())
        world = app.tool(
            "setup_flood",
            str(flood.CAMPAIGNS),
            f"http://127.0.0.1:{dead_port}/hook/",
            f"{live.url}/quiet",
            "1",
        )
        app.start_web()
        workers = app.start_queue_workers()
        app.start_beat()
        seen: list[str] = []
        revived: Receiver | None = None
        watcher: subprocess.Popen[bytes] | None = None
        try:
            watcher, address = prometheus(base, app.web_port)
            # the workers' own word (asking /health/worker/ until it is 200 would put the
            # 503s of the start in the dashboard's 5xx share)
            wait_for(lambda: all(map(app.worker_ready, workers)), 60, "the workers", app.logs)
            start = time.time()
            time.sleep(20)  # a quiet stretch before the flood
            seen += flood_beside_quiet_advances(app, world, events)
            time.sleep(30)  # the failing URLs back off; the alerts have their time
            revived = Receiver(dead_port)
            hooks = [str(c["webhook"]) for c in world["flooded"]]

            def all_delivered() -> bool:
                states = app.tool("webhook_events", *hooks)
                return all(set(h["states"]) == {"delivered"} for h in states.values())

            came_alive = time.monotonic()
            wait_for(all_delivered, 600, "every flooded event delivered", app.logs)
            seen.append(
                f"the dead port came alive: every event delivered in "
                f"{time.monotonic() - came_alive:.0f} s"
            )
            time.sleep(30)  # the dashboard settles
            end = time.time()
            panels, series = panel_series(address, start, end)
            seen += alerts_fired(address, start, end)
            return {"panels": panels, "series": series, "start": start, "end": end}, seen
        finally:
            if watcher is not None:
                watcher.terminate()
                watcher.wait(30)
            app.stop_all()
            live.close()
            if revived is not None:
                revived.close()


def _label(metric: dict[str, str]) -> str:
    shown = {k: v for k, v in metric.items() if k not in {"__name__", "job", "instance"}}
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) or "value"


def _number(value: float) -> str:
    if math.isnan(value):
        return "-"
    if abs(value) >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _timeseries(results: list[list[dict[str, Any]]], width: int, height: int) -> str:
    lines = [s for result in results for s in result][:7]
    points = [(float(t), float(v)) for s in lines for t, v in s["values"] if v != "NaN"]
    if not points:
        return '<p class="empty">No data</p>'
    t0, t1 = min(p[0] for p in points), max(p[0] for p in points)
    top = max(p[1] for p in points) or 1.0  # all zero: a flat line on a scale of 1
    plot_h = height - 22 * math.ceil(len(lines) / 2) - 10
    svg = [f'<svg width="{width}" height="{plot_h}" role="img">']
    for fraction in (0, 0.5, 1):
        y = 4 + (plot_h - 18) * (1 - fraction)
        svg.append(f'<line x1="44" x2="{width}" y1="{y}" y2="{y}" class="grid"/>')
        svg.append(f'<text x="40" y="{y + 4}" class="axis">{_number(top * fraction)}</text>')
    for number, line in enumerate(lines):
        xy = [
            (
                44 + (width - 48) * (float(t) - t0) / max(t1 - t0, 1),
                4 + (plot_h - 18) * (1 - float(v) / top),
            )
            for t, v in line["values"]
            if v != "NaN"
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        colour = COLOURS[number % len(COLOURS)]
        svg.append(f'<polyline points="{path}" stroke="{colour}" class="series"/>')
    minutes = (t1 - t0) / 60
    svg.append(f'<text x="{width - 4}" y="{plot_h - 2}" class="axis end">{minutes:.0f} min</text>')
    svg.append("</svg>")
    legend = "".join(
        f'<li><span style="background:{COLOURS[n % len(COLOURS)]}"></span>'
        f"{html.escape(_label(line['metric']))}</li>"
        for n, line in enumerate(lines)
    )
    return "".join(svg) + f'<ul class="legend">{legend}</ul>'


def _stat(results: list[list[dict[str, Any]]]) -> str:
    lines = [s for result in results for s in result]
    values = [float(v) for s in lines for _, v in s["values"][-1:] if v != "NaN"]
    shown = _number(values[0]) if values else "-"
    return f'<p class="stat">{shown}</p>'


def page(data: dict[str, Any], seen: list[str]) -> str:
    """The dashboard as a page: each panel where its gridPos puts it."""
    column = WIDTH / 24
    cells = []
    bottom = 0
    for panel in data["panels"]:
        grid = panel["gridPos"]
        left, top = grid["x"] * column, grid["y"] * ROW
        width, height = grid["w"] * column - 8, grid["h"] * ROW - 8
        bottom = max(bottom, top + height)
        results = data["series"][str(panel["id"])]
        body = (
            _stat(results)
            if panel["type"] == "stat"
            else _timeseries(results, int(width) - 16, int(height) - 36)
        )
        cells.append(
            f'<section style="left:{left}px;top:{top}px;width:{width}px;height:{height}px">'
            f"<h2>{html.escape(panel['title'])}</h2>{body}</section>"
        )
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(data["start"]))
    notes = "".join(f"<li>{html.escape(line)}</li>" for line in seen)
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; font: 13px system-ui, sans-serif; background: #111217; color: #d8d9da; }}
header {{ padding: 10px 14px; }} header h1 {{ font-size: 17px; margin: 0 0 4px; }}
header ul {{ margin: 4px 0 0; padding-left: 18px; color: #a8a9aa; }}
main {{ position: relative; width: {WIDTH}px; height: {bottom + 8}px; margin: 0 6px; }}
section {{ position: absolute; background: #181b1f; border: 1px solid #2c3235;
  border-radius: 3px; padding: 6px 8px; box-sizing: border-box; overflow: hidden; }}
h2 {{ font-size: 13px; margin: 0 0 4px; font-weight: 600; }}
.series {{ fill: none; stroke-width: 1.6; }} .grid {{ stroke: #2c3235; }}
.axis {{ fill: #8e8e8e; font-size: 10px; text-anchor: end; }}
.legend {{ list-style: none; margin: 2px 0 0; padding: 0; columns: 2; font-size: 11px; }}
.legend span {{ display: inline-block; width: 10px; height: 3px; margin: 0 5px 3px 0; }}
.stat {{ font-size: 34px; margin: 8px 0 0; color: #73bf69; }}
.empty {{ color: #8e8e8e; }}
</style></head><body><header><h1>Sawbones: the flood drill, {started}</h1>
<p>The dashboard's own queries (deploy/grafana/sawbones.json) on what Prometheus scraped
every {SCRAPE} s, drawn by bench/dashboard.py.</p><ul>{notes}</ul></header>
<main>{"".join(cells)}</main></body></html>"""


def shoot(document: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    source = out.with_suffix(".html")
    source.write_text(document)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        tab = browser.new_page(viewport={"width": WIDTH + 12, "height": 900})
        tab.goto(source.as_uri())
        tab.screenshot(path=str(out), full_page=True)
        browser.close()
    source.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=flood.EVENTS)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "dashboard-flood.png")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("/tmp/dashboard-flood.json"),
        help="where the run's series are kept (to draw them again with --draw-only)",
    )
    parser.add_argument("--draw-only", action="store_true", help="draw --data again; no run")
    arguments = parser.parse_args()
    if arguments.draw_only:
        kept = json.loads(arguments.data.read_text())
        seen, data = kept.pop("seen"), kept
    else:
        data, seen = run_flood(arguments.events)
        arguments.data.write_text(json.dumps({"seen": seen, **data}))
    for line in seen:
        print(line)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    shoot(page(data, seen), arguments.out)
    print(f"wrote {arguments.out}")


if __name__ == "__main__":
    main()
