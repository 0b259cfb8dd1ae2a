"""Object-store names: a server built with -tags objectstore reads s3://
files as it reads local ones, pointed at an S3-compatible server by
SLUICE_S3_PARAMS."""

import glob

import pytest

import sluice
from test_read import SPEC, check_batch, make_examples


def test_examples_from_s3(tmp_path, monkeypatch, objectstore_server, s3_bucket):
    pattern, truth = make_examples(tmp_path)
    url = s3_bucket("data", sorted(glob.glob(pattern)))
    monkeypatch.setenv("SLUICE_SERVE", objectstore_server)
    monkeypatch.setenv("SLUICE_S3_PARAMS", f"endpoint={url}&use_path_style=true&region=us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    labels = []
    with sluice.examples("s3://data/train-*.tfrecord", SPEC, batch_size=7, readers=1) as ds:
        for b in ds:
            check_batch(b, truth)
            labels += b["label"].tolist()
    assert labels == sorted(truth)
    with pytest.raises(sluice.NoFilesError):
        next(iter(sluice.examples("s3://data/missing-*.tfrecord", SPEC, batch_size=7)))
