"""svmguide4 (LIBSVM files: 612 x 10, 6 classes; 300 train + 312 test rows). The SDCA paper's
Table 1 lists 612 rows and 6 classes but 6 features; the files have 10 (``shape`` is the
files' shape; columns 1-7 satisfy the identities of Hu's seven moment invariants, columns 8-10
are of another kind, so no natural 6-column subset exists).

Download route only: the LIBSVM site's ``svmguide4`` + ``svmguide4.t``, used **as the site
serves them, unscaled**. The SDCA paper used the LIBSVM site's files; for the other four sets
those are the ``.scale`` versions (each feature to [-1, 1] by LIBSVM), but the site publishes no
``.scale`` version of svmguide4, so the rule "the file as published" leaves it unscaled. Measured
on the real files (5 seeds, Table 2's protocol): the Euclidean mAP is 0.201 unscaled and 0.281
scaled to [-1, 1] on all rows (the paper: 0.2088); column 8, which carries almost no class
information, makes up 96% of the unscaled squared distances. The [-1, 1] reading, which this
route used before, is the dataset ``svmguide4_scaled`` (:mod:`tripletbench.datasets.svmguide4_scaled`), so
that a table can show both.

No copy ships in Debian or PyPI, so offline the table says "needs download". No hash is
published for these files, so they are unpinned: from the LIBSVM site the download route takes
them only when the run's command line asks for it (``--config allow_unpinned_downloads=true``)
and records their sha256 in the prepare log; from a data mirror, the mirror's copies are verified
by their sha256 as measured on the project's mirror on 2026-11-26 (``mirror_hash``: no publisher
hash exists; their rows equal an independent copy's; the provenance of every row made from them
says so). A mirror's own ``SHA256SUMS`` cannot vouch for another copy: that needs the opt-in.
"""

from .base import DatasetSpec, RemoteFile, load_libsvm

SPEC = DatasetSpec(
    name="svmguide4",
    description="svmguide4 (LIBSVM guide)",
    shape=(612, 10, 6),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/svmguide4",
            None,
            "svmguide4",
            source="libsvm",
            # the mirror's hash as measured on 2026-11-26, no publisher hash exists
            mirror_hash="sha256:7dc2209e8453447c39b58ffc8c1f0ce1aaa8b29caa13c6871eb4a6ec3838212f",
            max_bytes=2**20,  # stated cap (the mirror's copy: 35_199 bytes)
        ),
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/svmguide4.t",
            None,
            "svmguide4.t",
            source="libsvm",
            # the mirror's hash as measured on 2026-11-26, no publisher hash exists
            mirror_hash="sha256:f5a5839d955f3eb6e379f5b226869b79bf8245bcda891649105858e4cdc61695",
            max_bytes=2**20,  # stated cap (the mirror's copy: 36_545 bytes)
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 10),
    scale_download=False,
    scaling_download=(
        "unscaled, as the LIBSVM site serves it (it publishes no .scale version; svmguide4_scaled "
        "is the [-1, 1] reading)"
    ),
)
