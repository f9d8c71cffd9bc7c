"""svmguide4 (LIBSVM files: 612 x 10, 6 classes; 300 train + 312 test rows). The SDCA paper's
Table 1 lists 612 rows and 6 classes but 6 features; the files have 10 (``paper_shape`` is the
files' shape).

Download route only: the LIBSVM site's ``svmguide4`` + ``svmguide4.t`` (unscaled; scaled here to
[-1, 1]). No copy ships in Debian or PyPI, so offline the table says "needs download".
No hash is published for these files, so they are unpinned: from the LIBSVM site the download
route takes them only when the run's command line asks for it (``--config
allow_unpinned_downloads=true``) and records their sha256 in the prepare log; from a data mirror,
the sha256 its ``SHA256SUMS`` lists verifies them (the mirror's copy, whose rows equal an
independent copy's; the provenance of every row made from it says so).
"""

from .base import DatasetSpec, RemoteFile, load_libsvm

SPEC = DatasetSpec(
    name="svmguide4",
    description="svmguide4 (LIBSVM guide)",
    paper_shape=(612, 10, 6),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/svmguide4",
            None,
            "svmguide4",
            source="libsvm",
        ),
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/svmguide4.t",
            None,
            "svmguide4.t",
            source="libsvm",
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 10),
    scale_download=True,
)
