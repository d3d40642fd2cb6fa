"""Output paths (issue 14 §6, §8): what ``-o``, ``--deals-out``, ``--completions`` and
``--svg-dir`` do with whatever is at the path.

Regular files are replaced atomically and keep their mode; devices and FIFOs are written
through, never replaced; symbolic links are followed; hard links, folders, the run's own
inputs and two outputs at one place are refused before any work, with one line.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from cli_helpers import KEEP, error_line, invoke

from mahdiao_rules import simulate
from mahdiao_rules.io.output import destination, folder_destination, write_files
from mahdiao_rules.report.svg import MAX_STEM, chart_file_names

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
EXAMPLES = ROOT / "examples" / "examples.yaml"
BASE_RULESET = TESTS / "bad" / "base_ruleset.yaml"
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX file types")


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- regular files


@POSIX
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_a_replaced_report_keeps_its_mode(tmp_path, mode):
    out = tmp_path / "r.txt"
    out.write_text(KEEP, encoding="utf-8")
    out.chmod(mode)
    ok("replay", "--deal", "s3-example-1", "-o", str(out))
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert out.read_text(encoding="utf-8").startswith("馬吊 replay")
    assert listing(tmp_path) == ["r.txt"]


def test_a_name_near_the_file_system_limit_still_gets_its_temporary_file(tmp_path):
    out = tmp_path / ("長" * 80 + ".txt")  # 244 bytes in UTF-8: the temporary name must be shorter
    ok("replay", "--deal", "s3-example-1", "-o", str(out))
    assert listing(tmp_path) == [out.name]


@pytest.mark.parametrize("name", ["a" * 300, "長" * 100])
def test_a_name_too_long_for_the_file_system_is_one_line_before_the_work(tmp_path, name):
    line = error_line(invoke("replay", "-o", str(tmp_path / name)))
    assert "the file name is too long" in line
    assert listing(tmp_path) == []


# --------------------------------------------------------------------------- devices, FIFOs, links


def device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device node in *tmp_path* (Linux mem devices: 3 = null, 7 = full).

    The tests never aim at the real /dev/null: if the writer regressed, it would replace
    the machine's /dev/null with a regular file.  Making a device node needs root.
    """
    if not hasattr(os, "mknod") or os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    path = tmp_path / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


@POSIX
def test_a_null_device_is_written_through_and_stays_a_device(tmp_path):
    null = device(tmp_path, "null", 3)
    ok("replay", "--deal", "s3-example-1", "-o", str(null))
    ok("simulate", "-n", "5", "--deals-out", str(null), "-o", str(null))
    assert stat.S_ISCHR(null.lstat().st_mode)
    assert listing(tmp_path) == ["null"]


@POSIX
def test_a_full_device_is_one_line_and_stays_a_device(tmp_path):
    full = device(tmp_path, "full", 7)
    line = error_line(invoke("replay", "--deal", "s3-example-1", "-o", str(full)))
    assert line == f"mahdiao: error: {full}: cannot write: no space left on the device"
    assert stat.S_ISCHR(full.lstat().st_mode)
    assert listing(tmp_path) == ["full"]


@POSIX
def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    # A daemon thread: if the writer wrongly replaced the FIFO, the reader would wait forever.
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = invoke("replay", "--deal", "s3-example-1", "-o", str(fifo))
    if not got:
        reader.join(10)
    if reader.is_alive():  # unblock the reader before failing
        with open(fifo, "wb"):
            pass
    assert result.exit_code == 0, result.stderr
    assert got and got[0].decode("utf-8").startswith("馬吊 replay")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert listing(tmp_path) == ["pipe"]


@POSIX
def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text(KEEP, encoding="utf-8")
    target.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    ok("replay", "--deal", "s3-example-1", "-o", str(link))
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert target.read_text(encoding="utf-8").startswith("馬吊 replay")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert listing(tmp_path) == ["link.txt", "real.txt"]


@POSIX
def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to("made.txt")
    ok("replay", "--deal", "s3-example-1", "-o", str(link))
    assert (tmp_path / "made.txt").read_text(encoding="utf-8").startswith("馬吊 replay")
    assert link.is_symlink()


@POSIX
def test_a_hard_linked_file_is_refused_and_left_alone(tmp_path):
    first = tmp_path / "a.txt"
    first.write_text(KEEP, encoding="utf-8")
    os.link(first, tmp_path / "b.txt")
    line = error_line(invoke("replay", "-o", str(first)))
    assert "2 hard links" in line
    assert first.read_text(encoding="utf-8") == KEEP
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == KEEP
    assert listing(tmp_path) == ["a.txt", "b.txt"]


@POSIX
def test_a_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.bind(str(path))
        except OSError:
            pytest.skip("cannot bind a Unix socket here")
        assert "it is a socket" in error_line(invoke("replay", "-o", str(path)))


# --------------------------------------------------------------------------- folders


@pytest.mark.parametrize("name", ["newdir/", "newdir//", "missing/deeper/"])
def test_a_trailing_slash_names_a_folder_and_nothing_is_created(tmp_path, name):
    line = error_line(invoke("deal", "-o", f"{tmp_path}/{name}"))
    assert "it is a folder name (it ends with a slash)" in line
    assert listing(tmp_path) == []


def test_an_existing_folder_with_a_slash_is_a_folder(tmp_path):
    assert "it is a folder; give a file name" in error_line(invoke("deal", "-o", f"{tmp_path}/"))


def test_a_missing_folder_is_found_before_the_simulation_runs(tmp_path, monkeypatch):
    def never(*_a, **_k):
        raise AssertionError("the simulation ran before the output was checked")

    monkeypatch.setattr(simulate, "run", never)
    monkeypatch.setattr("mahdiao_rules.cli.sim.run", never)
    for args in (["-o", str(tmp_path / "no" / "r.txt")], ["--deals-out", str(tmp_path / "no" / "d.yaml")]):
        line = error_line(invoke("simulate", "-n", "100000000", *args))
        assert "the folder does not exist" in line
    line = error_line(invoke("ablate", "-r", "feng", "-n", "100000000", "-o", str(tmp_path)))
    assert "it is a folder" in line


# --------------------------------------------------------------------------- inputs and outputs


def test_the_deal_file_cannot_be_the_report(tmp_path):
    deals = tmp_path / "deals.yaml"
    deals.write_bytes(EXAMPLES.read_bytes())
    for args in (["replay", str(deals)], ["explain", str(deals), "--deal", "s3-example-1",
                                           "--seat", "east"]):
        line = error_line(invoke(*args, "-o", str(deals)))
        assert "it is an input of this run" in line
    assert deals.read_bytes() == EXAMPLES.read_bytes()


@POSIX
def test_an_input_reached_through_a_link_is_still_the_input(tmp_path):
    deals = tmp_path / "deals.yaml"
    deals.write_bytes(EXAMPLES.read_bytes())
    (tmp_path / "alias.yaml").symlink_to("deals.yaml")
    assert "it is an input of this run" in error_line(
        invoke("replay", str(tmp_path / "alias.yaml"), "-o", str(deals)))
    assert "it is an input of this run" in error_line(
        invoke("replay", str(deals), "-o", str(tmp_path / "alias.yaml")))
    assert deals.read_bytes() == EXAMPLES.read_bytes()


def test_a_ruleset_and_its_base_cannot_be_the_report(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_bytes(BASE_RULESET.read_bytes())
    child = tmp_path / "child.yaml"
    child.write_text("id: child\nname: 子\nextends: base.yaml\n", encoding="utf-8")
    for out in (child, base):
        for args in (["replay", "-r", str(child)], ["rules", "table", str(child)],
                     ["simulate", "-n", "5", "-r", str(child)]):
            assert "it is an input of this run" in error_line(invoke(*args, "-o", str(out)))
    assert base.read_bytes() == BASE_RULESET.read_bytes()


@pytest.mark.parametrize("command", [
    ["simulate", "-n", "5", "-r", "feng", "--deals-out", "{same}"],
    ["ablate", "-n", "5", "-r", "feng", "--deals-out", "{same}"],
    ["reconstruct", "--samples", "5", "--completions", "{same}"],
], ids=["simulate", "ablate", "reconstruct"])
def test_two_outputs_of_one_run_cannot_share_a_place(tmp_path, command):
    same = tmp_path / "same.txt"
    args = [a.replace("{same}", str(same)) for a in command]
    assert "is already an output of this run" in error_line(invoke(*args, "-o", str(same)))
    assert listing(tmp_path) == []
    same.write_text(KEEP, encoding="utf-8")
    assert "is already an output of this run" in error_line(invoke(*args, "-o", str(same)))
    assert same.read_text(encoding="utf-8") == KEEP


def test_two_outputs_may_both_go_to_one_device(tmp_path):
    null = str(device(tmp_path, "null", 3))
    first = destination(null)
    assert destination(null, others=[first]).kind == "stream"


def test_stdout_twice_is_refused():
    first = destination("-")
    with pytest.raises(Exception, match="already an output"):
        destination("/dev/stdout", others=[first])


# --------------------------------------------------------------------------- charts (§8)


def test_chart_names_are_unique_bounded_and_keep_plain_ids():
    ids = ["a/b", "a_b", "a:b", "A_B", "plain", "x" * 500, "x" * 501, "..", "", "CON", "長局",
           "plain"]
    names = chart_file_names(ids)
    assert len({n.casefold() for n in names}) == len(ids)
    assert names[ids.index("a_b")] == "a_b" and names[4] == "plain" and names[10] == "長局"
    assert all(0 < len(n) <= MAX_STEM and "/" not in n and not n.startswith(".") for n in names)
    assert chart_file_names(ids) == names  # the same ids give the same names every run


def test_svg_dir_keeps_a_chart_per_deal_when_ids_clash(tmp_path):
    deals = tmp_path / "deals.yaml"
    text = EXAMPLES.read_text(encoding="utf-8")
    deals.write_text(text.replace("id: bai-lao-lives\n", "id: examples/1\n", 1)
                     .replace("id: s3-dai-pei\n", "id: examples:1\n", 1)
                     .replace("id: s3-example-1\n", f"id: {'長' * 200}\n", 1), encoding="utf-8")
    ok("replay", str(deals), "-o", str(tmp_path / "r.txt"), "--svg-dir", str(tmp_path / "c"))
    charts = listing(tmp_path / "c")
    assert len(charts) == text.count("\n- id: ") == 7
    assert "examples_1.svg" not in charts  # both ids that would map to it are set apart
    assert all(len(name.encode("utf-8")) < 255 for name in charts)


def test_svg_dir_writes_all_charts_or_none(tmp_path):
    charts = tmp_path / "c"
    charts.mkdir()
    (charts / "s3-example-1.svg").mkdir()  # the third chart cannot be written
    line = error_line(invoke("replay", "-o", str(tmp_path / "r.txt"), "--svg-dir", str(charts)))
    assert "s3-example-1.svg: cannot write: it is a folder" in line
    assert listing(charts) == ["s3-example-1.svg"]
    assert listing(tmp_path) == ["c"]


def test_a_new_chart_folder_is_removed_when_a_chart_fails(tmp_path):
    folder = folder_destination(str(tmp_path / "new"))
    with pytest.raises(Exception, match="it is a folder name"):
        write_files(folder, [("a.svg", "x"), ("b/", "y")])
    assert listing(tmp_path) == []


def test_svg_dir_is_checked_before_the_work(tmp_path):
    assert "does not exist" in error_line(
        invoke("replay", "--svg-dir", str(tmp_path / "no" / "charts")))
    (tmp_path / "file").write_text(KEEP, encoding="utf-8")
    assert "it is not a folder" in error_line(invoke("replay", "--svg-dir", str(tmp_path / "file")))
    assert "it is not a folder" in error_line(
        invoke("rules", "diff", "feng", "app", "--svg-dir", str(tmp_path / "file")))
