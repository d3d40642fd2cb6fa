"""Interrupts (issue 14 §7), with real processes and real signals.

A run stopped by Ctrl-C (SIGINT to the whole process group, as a terminal sends it),
SIGTERM or SIGHUP removes its temporary files and says at most one line; the workers of
``--jobs 2`` say nothing, and end with their parent even when it is killed outright.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and process groups")

ROOT = Path(__file__).resolve().parents[1]
LONG = ["simulate", "-n", "50000000", "-r", "feng", "--policy", "random", "--no-progress"]


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "mahdiao_rules", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8", start_new_session=True)


def wait_for_temp(folder: Path, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    """Until the run has a temporary file beside its target (it is writing)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(p.name.endswith(".tmp") for p in folder.iterdir()):
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail("no temporary file appeared")


def wait_for_workers(proc: subprocess.Popen[str], n: int = 2, timeout: float = 60) -> list[int]:
    """Until the run has *n* worker processes; their ids."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = children(proc.pid)
        if len(found) >= n:
            time.sleep(0.5)  # let them start working
            return found
        time.sleep(0.05)
    pytest.fail("the workers did not start")


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        out += [int(x) for x in task.read_text().split()]
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_terminated_run_leaves_no_temporary_file_and_says_nothing(tmp_path, signum):
    proc = start([*LONG, "--deals-out", "deals.yaml", "-o", "report.txt"], tmp_path)
    wait_for_temp(tmp_path, proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum
    assert (out, err) == ("", "")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_prints_one_line_and_leaves_no_temporary_file(tmp_path, jobs):
    proc = start([*LONG, "--jobs", jobs, "--deals-out", "deals.json"], tmp_path)
    wait_for_temp(tmp_path, proc)
    if jobs == "2" and Path("/proc/self/task").is_dir():
        wait_for_workers(proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: the parent and its workers
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert out == ""
    assert err == "mahdiao: interrupted\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_workers_end_quietly_with_a_killed_parent(tmp_path):
    proc = start([*LONG, "--jobs", "2", "--deals-out", "deals.yaml"], tmp_path)
    wait_for_temp(tmp_path, proc)
    workers = wait_for_workers(proc)
    proc.kill()  # SIGKILL: the parent cannot clean up, its workers must still go
    _out, err = proc.communicate(timeout=60)
    end = time.monotonic() + 30
    while any(alive(w) for w in workers) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert err == ""


def test_a_terminated_parent_ends_its_workers(tmp_path):
    proc = start([*LONG, "--jobs", "2", "-o", "report.txt", "--deals-out", "d.yaml"], tmp_path)
    wait_for_temp(tmp_path, proc)
    workers = wait_for_workers(proc) if Path("/proc/self/task").is_dir() else []
    proc.terminate()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert (out, err) == ("", "")
    end = time.monotonic() + 30
    while any(alive(w) for w in workers) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["validate", "-"], ["replay", "-"], ["code", "-"], ["rulesets"],
                                  ["rules", "table", "feng"]])
def test_a_reader_that_goes_away_ends_every_command_quietly(args, tmp_path):
    # `mahdiao … | head -c 1`: whichever way the command writes (the output writer or
    # click.echo), the closed pipe ends it with 141 or 0 and nothing on stderr, never an
    # internal error.
    deals = tmp_path / "deals.yaml"
    with deals.open("wb") as fh:
        subprocess.run([sys.executable, "-m", "mahdiao_rules", "deal", "-n", "400"], stdout=fh, check=True)
    with deals.open("rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-m", "mahdiao_rules", *args], cwd=tmp_path,
                                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(1)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert err == "" and proc.returncode in (0, 141)
