"""Scale-out under load, and a process killed in the middle (docs/loadtest.md, "Scale-out").

    PYTHONPATH=src .venv/bin/python scripts/scaleout.py [--clients 1000] [--duration 90]
        [--kill-at 45] [--think 2] [--addresses 125] [--db URL] [--json FILE]

Two ``gonuts serve`` processes on one PostgreSQL database (a fresh schema of ``--db``, default
``$GONUTS_TEST_PG_URL``, dropped afterwards), nginx in front with docs/deploy.md's configuration
as it stands, and ``gonuts loadtest --url <nginx> --reconnect --acks FILE`` with ``--clients``
players from ``--addresses`` loopback addresses (so that the servers' per-address limits, left
at their defaults, see many players: nginx passes each one's address in X-Forwarded-For). At
``--kill-at`` seconds one server process gets SIGKILL. Then:

* the load test's figures (p50 / p99 move → ack, errors by code);
* the sockets the killed process held (its ``gonuts_open_sockets`` just before the kill) and
  the players' reconnections: how many, p50 and max seconds from the dropped connection to the
  first ``state`` on the next one (the target: every one within 3 s), players not back;
* every move the players were acknowledged, looked up in the database (``gn_actions``: the
  table, the seat, ``seq = version - 1``, the action): the target is 0 missing.

Exit status 0 when both targets hold, 1 otherwise, 2 for bad arguments. Loopback only: the
database, nginx, the servers and the players.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, make_url, text

from gonuts.loadtest.launcher import ServerProcess, free_port, is_loopback, raise_fd_limit

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_MD = ROOT / "docs" / "deploy.md"
RECONNECT_TARGET_S = 3.0


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--duration", type=float, default=90.0)
    p.add_argument("--kill-at", type=float, default=45.0, help="seconds into the load")
    p.add_argument("--think", type=float, default=2.0)
    p.add_argument("--addresses", type=int, default=125)
    p.add_argument("--db", default=os.environ.get("GONUTS_TEST_PG_URL"))
    p.add_argument("--json", default=None, metavar="FILE", help="write the figures as JSON")
    p.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="py-spy records the surviving process from 1 s before the kill for 8 s "
        "(collapsed stacks, for finding where the reconnections' time goes)",
    )
    return p.parse_args(argv)


@contextlib.contextmanager
def fresh_schema(base: str) -> Iterator[str]:
    """``base`` seen through a new, empty schema (dropped on exit)."""
    schema = f"scaleout_{secrets.token_hex(4)}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def nginx_config(tmp: Path, front: int, backends: list[int]) -> Path:
    """docs/deploy.md's nginx block, its ports substituted, in a configuration of its own."""
    blocks = re.findall(r"```nginx\n(.*?)```", DEPLOY_MD.read_text(encoding="utf-8"), re.S)
    site = str(blocks[0])
    for documented, port in zip(("127.0.0.1:8001", "127.0.0.1:8002"), backends, strict=True):
        site = site.replace(documented, f"127.0.0.1:{port}")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{front} backlog=4096;")
    temp = "".join(
        f"{kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = tmp / "nginx.conf"
    conf.write_text(
        f"daemon off;\nworker_processes 1;\nworker_rlimit_nofile 16384;\npid {tmp / 'nginx.pid'};\n"
        f"error_log {tmp / 'nginx-error.log'} warn;\n"
        + ("user root;\n" if os.geteuid() == 0 else "")
        + "events { worker_connections 8192; }\n"
        f"http {{\naccess_log off;\n{temp}{site}\n}}\n"
    )
    return conf


def wait_ok(url: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"scaleout: {proc.args!r} exited")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"scaleout: no 200 from {url} within {timeout:g} s")


def open_sockets(port: int) -> int | None:
    try:
        body = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2.0).text
    except httpx.HTTPError:
        return None
    for line in body.splitlines():
        if line.startswith("gonuts_open_sockets "):
            return int(float(line.split()[1]))
    return None


def check_acks(db_url: str, acks_file: Path) -> dict[str, int]:
    """Every acknowledged move against ``gn_actions``: found, missing, acknowledged twice."""
    acks = [json.loads(line) for line in acks_file.read_text(encoding="utf-8").splitlines()]
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT table_id, seq, seat, notation FROM gn_actions"))
            stored = {(str(t), int(q)): (int(s), str(n)) for t, q, s, n in rows}
    finally:
        engine.dispose()
    missing = sum(1 for t, seat, v, a in acks if stored.get((t, v - 1)) != (seat, a))
    twice = len(acks) - len({(t, v) for t, _, v, _ in acks})
    return {"acked": len(acks), "stored": len(stored), "missing": missing, "acked_twice": twice}


def run(args: argparse.Namespace) -> int:
    if not args.db or not is_loopback("http://" + (make_url(args.db).host or "")):
        print("scaleout: --db (or $GONUTS_TEST_PG_URL) must be a PostgreSQL URL on loopback")
        return 2
    nginx = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    if nginx is None:
        print("scaleout: needs nginx (apt-get install nginx-light)")
        return 2
    raise_fd_limit()
    procs: list[subprocess.Popen[bytes]] = []
    servers: list[ServerProcess] = []
    with fresh_schema(args.db) as db_url, tempfile.TemporaryDirectory(prefix="scaleout-") as t:
        tmp = Path(t)
        try:
            ports = [free_port(), free_port()]
            front = free_port()
            env = {
                **os.environ,
                "GONUTS_FORWARDED_ALLOW_IPS": "127.0.0.1",  # nginx, as docs/deploy.md says
                "GONUTS_LOG_LEVEL": "warning",
            }
            for port in ports:
                serve = ServerProcess.gonuts_serve(db_url, port, tmp / f"serve-{port}.log")
                server = ServerProcess(serve.command, port, serve.log, {**env, "GONUTS_DEBUG": "1"})
                server.start(timeout=60)
                servers.append(server)
            conf = nginx_config(tmp, front, ports)
            with (tmp / "nginx.out").open("wb") as out:
                procs.append(
                    subprocess.Popen(
                        [
                            nginx,
                            "-p",
                            str(tmp),
                            "-c",
                            str(conf),
                            "-e",
                            str(tmp / "nginx-error.log"),
                        ],
                        stdout=out,
                        stderr=out,
                    )
                )
            wait_ok(f"http://127.0.0.1:{front}/healthz", procs[-1])
            result_file, acks_file = tmp / "load.json", tmp / "acks.jsonl"
            command = [
                sys.executable, "-m", "gonuts", "loadtest", "--url", f"http://127.0.0.1:{front}",
                "--clients", str(args.clients), "--duration", str(args.duration),
                "--think", str(args.think), "--addresses", str(args.addresses),
                "--reconnect", "--acks", str(acks_file), "--json", str(result_file),
                "--no-pin", "--quiet",
            ]  # fmt: skip
            print(f"scaleout: {' '.join(command[3:])}", flush=True)
            print(f"  nginx 127.0.0.1:{front} -> gonuts serve on {ports}, PostgreSQL", flush=True)
            started = time.monotonic()
            load = subprocess.Popen(command)
            procs.append(load)
            victim = servers[0]
            while time.monotonic() - started < args.kill_at and load.poll() is None:
                time.sleep(0.1)
            held = open_sockets(victim.port)
            if args.profile:
                spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
                record = [spy, "record", "--pid", str(servers[1].pid), "--duration", "8",
                          "--rate", "200", "--format", "raw", "--output", args.profile,
                          "--nonblocking"]  # fmt: skip
                procs.append(
                    subprocess.Popen(record, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                )
                time.sleep(1.0)
            victim.kill()
            killed_at = time.monotonic() - started
            print(f"  {killed_at:.1f} s: SIGKILL to the process on {victim.port} "
                  f"({held} sockets open)", flush=True)  # fmt: skip
            load.wait(timeout=args.duration + 120)
            if load.returncode != 0:
                print(f"scaleout: gonuts loadtest exited {load.returncode}")
                return 1
            result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
            servers[1].stop()
            check = check_acks(db_url, acks_file)
        finally:
            for proc in reversed(procs):
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
            for server in servers:
                server.stop()
    figures = {
        **result,
        "killed_at_s": round(killed_at, 1),
        "killed_sockets": held,
        **check,
    }
    print(
        f"players {result['clients']} (concurrent max {result['concurrent_max']}, mean "
        f"{result['concurrent_mean']}), {result['games']} games, "
        f"{result['acts']} moves acknowledged\n"
        f"move -> ack: p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, max "
        f"{result['max_ms']} ms; errors {result['errors']} {result['error_codes']}\n"
        f"killed at {killed_at:.1f} s with {held} sockets open: {result['reconnects']} "
        f"reconnections, p50 {result['reconnect_p50_s']} s, max {result['reconnect_max_s']} s "
        f"(target <= {RECONNECT_TARGET_S:g} s); {result['unreconnected']} players not back\n"
        f"acknowledged moves: {check['acked']}, in the database: "
        f"{check['acked'] - check['missing']}, missing: {check['missing']} "
        f"(rows stored: {check['stored']}; acknowledged twice: "
        f"{check['acked_twice']})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    ok = (
        check["missing"] == 0
        and check["acked_twice"] == 0
        and result["reconnect_max_s"] <= RECONNECT_TARGET_S
        and result["unreconnected"] == 0
        and result["reconnects"] > 0
    )
    print("scaleout: " + ("both targets hold" if ok else "a target was missed"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run(parse(sys.argv[1:])))
