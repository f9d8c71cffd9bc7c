"""The Snakemake report and cluster execution.

Unit checks of harness/report.py (captions survive Snakemake's Jinja + reStructuredText
rendering as the same text; pipe tables parse back to their cells; the paper-vs-ours join), then
one real `reproduce_all` of the CI config that two pipeline tests share: `snakemake --report`
(HTML and zip) holds every table and figure of the run with its caption and category, and the
CI config's Table 2 run through `snakemake-executor-plugin-cluster-generic` (each job a separate
local process started by a submit script, no --cores) gives the numbers of the local run."""

import json
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pandas as pd
import pytest

from tripletbench.harness.report import ITEMS, md_to_rst, parse_pipe_table, paper_vs_ours, rst_escape
from tests.pipeline import ROOT, run_targets

NEEDS_APT = pytest.mark.skipif(
    shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt"
)


# --- captions and pages ----------------------------------------------------------------------


def _render_caption(rst):
    """As Snakemake renders a report caption: Jinja first, then docutils to HTML."""
    from docutils.core import publish_parts
    from jinja2 import Environment

    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(rst).render()
    return publish_parts(text, writer_name="html")["body"]


def _text(html_body):
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", html_body))


def test_a_caption_reaches_the_report_as_its_own_text():
    line = (
        "figure_sdca_1_hinge.png: *not* a `role`, |sub|, [1]_, {{ x }}, {% raw %}, {# c #}, "
        "a\\b, <tag>, mu: 0.5, ||x - y||^2"
    )
    md = f"# Title with under_scores\n\n{line}\nsecond line\n\n| a | b |\n|:--|--:|\n| 1 | x_y |\n"
    body = _render_caption(md_to_rst(md))
    assert "system-message" not in body and "System Message" not in body
    text = _text(body)
    assert "Title with under_scores" in text
    assert line in text and "second line" in text
    assert "| 1 | x_y |" in text  # the table as a literal block
    assert "<strong>Title with under_scores</strong>" in body
    # a table's caption leaves its table out (the page shows it)
    assert "| 1 | x_y |" not in _text(_render_caption(md_to_rst(md, keep_tables=False)))


def test_markdown_bold_stays_bold_and_nothing_else_is_markup():
    assert rst_escape("**OAHU-combined** [not-in-paper") == "**OAHU-combined** \\[not-in-paper"
    body = _render_caption(md_to_rst("**OAHU-combined** [not-in-paper, ours]: a_b"))
    assert "<strong>OAHU-combined</strong>" in body
    assert _text(body).strip() == "OAHU-combined [not-in-paper, ours]: a_b"


def test_a_tables_bold_best_cell_is_bold_on_the_page_and_plain_in_a_literal_block():
    """No Markdown syntax on the report's pages: the builder's **best** cell is
    <strong> in the HTML table and loses its asterisks in a reST literal block."""
    from tripletbench.harness.report import md_to_html

    md = "| method | Vehicle (ours) |\n|:--|:--|\n| ITML [ours] | **0.6154 ± 0.0186 (1)** |\n"
    page = md_to_html(md)
    assert "<strong>0.6154 ± 0.0186 (1)</strong>" in page and "**" not in page
    assert "**" not in _text(_render_caption(md_to_rst(md)))


def test_a_pipe_table_parses_back_to_its_cells():
    df = pd.DataFrame({"method": ["OASIS", "SDCA"], "mean": [0.285451, 0.474334]})
    back = parse_pipe_table(df.to_markdown(index=False).splitlines())
    assert list(back.columns) == ["method", "mean"]
    assert back["method"].tolist() == ["OASIS", "SDCA"]
    assert np.allclose(back["mean"].astype(float), df["mean"])
    with pytest.raises(ValueError):
        parse_pipe_table(["| a | b |", "| 1 | 2 |"])


def test_paper_vs_ours_sets_every_stated_number_beside_the_rows_that_carry_it():
    ref = pd.DataFrame(
        [
            ["sdca_relative_similarity", "table2", "vehicle", "ITML", "mAP", 0.4142],
            ["sdca_relative_similarity", "table2", "vowel", "SDCA", "mAP", 0.5],
            ["sdca_relative_similarity", "figure1", "caltech256", "OASIS", "loss", 0.58],
            ["oahu", "table3", "fashion_mnist", "OAHU", "error_rate", 0.2],
        ],
        columns=["paper", "artifact", "dataset", "method", "metric", "value"],
    )
    t2 = pd.DataFrame(
        {
            "dataset": ["vehicle", "vehicle", "vehicle"],
            "algorithm": ["ITML", "ITML-online", "Eucl"],
            "mean": [0.45, 0.40, 0.37],
            "std": [0.01, 0.02, 0.0],
            "n_seeds": [5, 5, 5],
            "paper": [0.4142, 0.4142, 0.3697],
            "paper_method": ["ITML", "ITML", "Eucl"],
            "status": ["ok", "ok", "ok"],
            "protocol": ["ours", "paper", "paper"],
        }
    )
    out = paper_vs_ours(ref, {"sdca_table2": t2})
    itml = out[out.method == "ITML"].set_index("our_algorithm")
    assert set(itml.index) == {"ITML", "ITML-online"}  # two rows carry the one number
    assert itml.loc["ITML", "diff"] == pytest.approx(0.45 - 0.4142)
    assert itml.loc["ITML-online", "diff"] == pytest.approx(0.40 - 0.4142)
    assert itml.loc["ITML-online", "protocol"] == "paper"
    status = out.set_index("method").status
    assert status["SDCA"] == "no row of ours carries it"
    assert status["OASIS"] == "no table of ours compares with it"
    assert status["OAHU"] == "table not built in this run"
    assert len(out) == 5
    with pytest.raises(ValueError, match="no paper_method column"):
        paper_vs_ours(ref, {"sdca_table2": t2.drop(columns="paper_method")})


def test_paper_numbers_are_joined_on_method_not_on_value():
    """The OAHU paper gives RDML and OPML both 0.78 macro F1 on Fashion-MNIST; each
    paper row listed both our rows."""
    ref = pd.DataFrame(
        [
            ["oahu", "table3", "fashion_mnist", "RDML", "macro_f1", 0.78],
            ["oahu", "table3", "fashion_mnist", "OPML", "macro_f1", 0.78],
        ],
        columns=["paper", "artifact", "dataset", "method", "metric", "value"],
    )
    t3 = pd.DataFrame(
        {
            "dataset": ["fashion_mnist"] * 2, "algorithm": ["RDML", "OPML"],
            "metric": ["macro_f1"] * 2, "mean": [0.70, 0.75], "std": [0.01, 0.02],
            "n_runs": [3, 3], "paper": [0.78, 0.78], "paper_method": ["RDML", "OPML"],
            "status": ["ok", "ok"],
        }
    )
    out = paper_vs_ours(ref, {"oahu_table3": t3})
    assert len(out) == 2
    assert dict(zip(out.method, out.our_algorithm)) == {"RDML": "RDML", "OPML": "OPML"}
    assert dict(zip(out.method, out["diff"].round(4))) == {"RDML": -0.08, "OPML": -0.03}


# --- one CI run shared by the report and cluster tests ----------------------------------------


@pytest.fixture(scope="module")
def ci_all(tmp_path_factory):
    """`reproduce_all` of the CI config (every table and figure it builds, and the report pages)."""
    out = tmp_path_factory.mktemp("ci_all")
    run_targets(["reproduce_all"], out, timeout=1500)
    return out


def _report(out, target, *extra):
    res = subprocess.run(
        [
            sys.executable, "-m", "snakemake", "--report", str(target),  # the default target
            "--configfile", "config/ci.yaml",
            "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--nolock", *extra,
        ],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
    )
    assert res.returncode == 0, (res.stdout + res.stderr)[-6000:]


def test_a_report_of_outdated_results_is_refused(ci_all, tmp_path):
    """`--report` after a config change, without rerunning, gave a report of the old
    results with exit 0. It now plans the same targets first and refuses, naming the due jobs;
    the report of the fresh results is built (test above)."""
    import yaml

    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg["sdca_table2"]["methods"]["LEGO"]["grid"]["eta"] = [0.01, 0.5]
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = subprocess.run(
        [
            sys.executable, "-m", "snakemake", "--report", str(tmp_path / "r.html"),
            "--configfile", str(changed),
            "--config", f"results_dir={ci_all}", f"figures_dir={ci_all}/figures", "--nolock",
        ],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
    )
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "the report would show outdated results" in out, out[-3000:]
    assert "fit_evaluate (1)" in out and "table_sdca_2 (1)" in out
    assert not (tmp_path / "r.html").exists()


def _embedded(html, name):
    m = re.search(rf"^\s*var {name} = (\{{.*\}});\s*$", html, re.M)
    assert m, f"no {name} in the report"
    return json.loads(m.group(1))


@NEEDS_APT
def test_the_report_holds_every_table_and_figure_with_its_caption(ci_all, tmp_path):
    """`snakemake --report` of the default target, without --cores (the issue: it used to
    fail), as HTML and as zip."""
    _report(ci_all, tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    results = _embedded(html, "results")
    by_name = {r["name"]: r for r in results.values()}
    figures = {p.name for p in (ci_all / "figures").glob("*.png")}
    pages = {f"{n}.html" for n, item in ITEMS.items() if item.kind == "table"}
    # every figure the run made (the CI config builds all of them) and every table's page
    assert len(figures) >= 11 and figures <= set(by_name)
    assert pages <= set(by_name)
    assert set(by_name) == figures | pages
    for name, rec in by_name.items():
        item = ITEMS[name.removesuffix(".png").removesuffix(".html").removesuffix("_hinge")]
        assert rec["labels"]["item"].startswith(item.label)
        assert len(_text(rec["caption"])) > 40, name  # the rule's caption, not a stub
        assert "System Message" not in rec["caption"], name
    # the caption is the figure rule's own Markdown text
    md = (ci_all / "figures/figure_sdca_2.md").read_text().splitlines()[2]
    assert md.strip()[:60] in _text(by_name["figure_sdca_2.png"]["caption"])
    categories = _embedded(html, "categories")
    assert {"Wu et al. 2014 (SDCA)", "Schultz & Joachims 2003", "Gao et al. 2019 (OAHU)",
            "Chechik et al. 2010 (OASIS)", "Paper vs ours"} <= set(categories)
    # the paper-vs-ours page: Table 2's vehicle numbers beside ours
    pvo = pd.read_csv(ci_all / "report/paper_vs_ours.csv")
    t2 = pd.read_csv(ci_all / "tables/sdca_table2.csv")
    row = pvo[(pvo.our_table == "sdca_table2") & (pvo.our_algorithm == "OASIS-authors-C")]
    mine = t2[(t2.dataset == "vehicle") & (t2.algorithm == "OASIS-authors-C")].iloc[0]
    assert row.our_mean.iloc[0] == pytest.approx(mine["mean"])
    assert row.paper_value.iloc[0] == pytest.approx(mine["paper"])
    # the zip report: the same items as files
    _report(ci_all, tmp_path / "report.zip")
    names = zipfile.ZipFile(tmp_path / "report.zip").namelist()
    assert any(n.endswith("report.html") for n in names)
    for f in figures | pages:
        assert any(n.endswith("/" + f) for n in names), f


SUBMIT = textwrap.dedent('''\
    """Submit script of the cluster-generic test: start the jobscript as a detached local process,
    print a job id. The exit code lands in jobs/<id>.rc; the script itself is kept as jobs/<id>.sh."""
    import os, shutil, subprocess, sys, uuid
    here = os.path.dirname(os.path.abspath(__file__))
    jid = uuid.uuid4().hex[:12]
    jobs = os.path.join(here, "jobs")
    os.makedirs(jobs, exist_ok=True)
    shutil.copy(sys.argv[-1], os.path.join(jobs, jid + ".sh"))
    rc = os.path.join(jobs, jid + ".rc")
    subprocess.Popen(
        ["bash", "-c", 'bash "$1" > "$2" 2>&1; echo $? > "$3.tmp"; mv "$3.tmp" "$3"', "_",
         sys.argv[-1], os.path.join(jobs, jid + ".log"), rc],
        start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print(jid)
''')

STATUS = textwrap.dedent('''\
    import os, sys
    rc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jobs", sys.argv[1] + ".rc")
    if not os.path.exists(rc):
        print("running")
    else:
        print("success" if open(rc).read().strip() == "0" else "failed")
''')


@NEEDS_APT
def test_cluster_generic_run_gives_the_local_numbers(ci_all, tmp_path):
    """Table 2 of the CI config through the cluster-generic executor: the fit cells are grouped
    (group "cells", --group-components), the local rules (data, table) stay in the main process,
    no --cores is given; the table equals the local run's (its timing column aside)."""
    prof = tmp_path / "profile"
    prof.mkdir()
    (prof / "submit.py").write_text(SUBMIT)
    (prof / "status.py").write_text(STATUS)
    (prof / "config.yaml").write_text(textwrap.dedent(f"""\
        executor: cluster-generic
        cluster-generic-submit-cmd: "{sys.executable} {prof}/submit.py"
        cluster-generic-status-cmd: "{sys.executable} {prof}/status.py"
        jobs: 2
        local-cores: 1
        latency-wait: 30
        max-status-checks-per-second: 5
        group-components:
          - cells=4
    """))
    out = tmp_path / "run"
    res = subprocess.run(
        [
            sys.executable, "-m", "snakemake", "table_sdca_2", "--profile", str(prof),
            "--configfile", "config/ci.yaml",
            "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--nolock",
        ],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=900,
    )
    logs = "".join(p.read_text() for p in sorted((prof / "jobs").glob("*.log")))
    assert res.returncode == 0, (res.stdout + res.stderr)[-6000:] + logs[-3000:]
    scripts = [p.read_text() for p in (prof / "jobs").glob("*.sh")]
    assert scripts, "no job was submitted"
    assert any("fit_evaluate" in s for s in scripts)
    assert not any(re.search(r"table_sdca_2|prepare_dataset", s) for s in scripts)
    # grouped: fewer cluster jobs than fit cells
    cells = len(list((out / "sdca_table2/runs").rglob("*.csv")))
    assert 0 < len(scripts) < cells
    local = pd.read_csv(ci_all / "tables/sdca_table2.csv").drop(columns="fit_wall_s")
    cluster = pd.read_csv(out / "tables/sdca_table2.csv").drop(columns="fit_wall_s")
    pd.testing.assert_frame_equal(cluster, local, check_exact=False, rtol=1e-12, atol=1e-12)


def test_the_report_freshness_check_reads_the_report_command_line():
    from tripletbench.harness.freshness import is_report_run, without_report_options

    argv = ["--report", "r.html", "--configfile", "c.yaml", "--report-stylesheet", "s.css", "t"]
    assert is_report_run(argv)
    assert without_report_options(argv) == ["--configfile", "c.yaml", "t"]
    assert is_report_run(["--report=r.zip"]) and not is_report_run(["reproduce_all"])
    assert not is_report_run(["--report", "r.html", "--report-after-run"])  # runs the jobs first


@NEEDS_APT
def test_a_report_before_its_pages_exist_names_the_command_that_builds_them(ci_run, tmp_path):
    """`--report r.html table_sdca_2` after building that table alone stopped on Snakemake's raw
    "Error loading caption file ... FileNotFoundError"; it now names report_pages, before any
    report is written. (The CI run builds no report pages.)"""
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    assert not (out / "report").exists()
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "table_sdca_2", "--report", str(tmp_path / "r.html"),
         "--configfile", "config/ci.yaml", "--config", f"results_dir={out}",
         f"figures_dir={out}/figures", "--nolock"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    log = res.stdout + res.stderr
    assert res.returncode != 0 and "pages and captions are not built yet" in log, log[-3000:]
    assert "snakemake report_pages" in log and "FileNotFoundError" not in log, log[-3000:]
    assert not (tmp_path / "r.html").exists()
