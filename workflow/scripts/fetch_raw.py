"""Rule fetch_raw: fetch (once) the raw files of a corpus that a compute rule parses itself --
the Reuters-21578 corn/grain documents (embedded: `apt-get download` of Debian's weka), WebKB and
the LFW attributes (download route) -- so that, under a cluster executor, the fetching runs in this
local rule on the submitting machine and the compute job only reads the cache. Writes
``sha256  path`` of every fetched file (the output, which the compute rules take as input)."""

from pathlib import Path

from tripletbench.datasets.base import fetch_download, fetch_embedded, file_sha256
from tripletbench.harness.io import now, save_text, start_log

start_log(snakemake.log[0])
source = snakemake.wildcards.source
cache = Path(snakemake.params.cache_dir)
print(f"[{now()}] fetching {source} into {cache}")
if source == "reuters":
    from tripletbench.datasets.reuters import SPEC

    paths = fetch_embedded(SPEC, cache)
else:
    from importlib import import_module

    spec = import_module(f"tripletbench.datasets.{source}").SPEC
    paths = fetch_download(
        spec,
        cache,
        allow_unpinned=snakemake.params.allow_unpinned,
        mirror=snakemake.config["data"].get("mirror"),
    )
lines = [f"{file_sha256(p)}  {p}" for p in paths]
print("\n".join(lines))
save_text(snakemake.output[0], "\n".join(lines) + "\n")
