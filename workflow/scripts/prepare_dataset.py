"""Rule prepare_dataset: fetch (download or embedded route), parse, check, scale -> one .npz, and
its sha256 in a sidecar ``.npz.sha256`` (written after it; see tripletbench.datasets.base.check_prepared)."""

from pathlib import Path

from tripletbench.datasets import get_dataset
from tripletbench.datasets.base import load, prepared_hash_line
from tripletbench.harness.io import now, save_npz, save_text, start_log

start_log(snakemake.log[0])
name = snakemake.wildcards.dataset
spec = get_dataset(name)
print(f"[{now()}] {name}: {spec.description} via the {snakemake.params.route} route")
out = snakemake.output.data
cache_dir = Path(out).parent.parent  # {cache_dir}/prepared/<file>
d = load(
    spec,
    snakemake.params.route,
    cache_dir,
    allow_unpinned=snakemake.params.allow_unpinned,
    mirror=snakemake.config["data"].get("mirror"),
)
for line in d["sources"]:
    print(f"  {line}")
print(f"  {d['X'].shape[0]} samples x {d['X'].shape[1]} features, {len(d['classes'])} classes")
save_npz(
    out,
    X=d["X"],
    y=d["y"],
    classes=d["classes"],
    route=d["route"],
    files=[f"{k}:{v}" for k, v in d["files"].items()],
    sources=d["sources"],
)
save_text(snakemake.output.sha256, prepared_hash_line(out))
