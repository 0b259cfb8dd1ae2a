"""Workers sharing one filename queue on NATS JetStream (queue_url)."""

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import sluice
from test_read import SPEC, make_examples

# A worker on a host of its own: it reads its part of each pass over the
# data set (two epochs), slowly, as a trainer does, and prints the labels
# of each pass. After the first batch of each pass it says so and waits to
# be told to go on, so that both workers are in the pass before either
# reads on: a worker that joins after the others have finished a pass
# reads the next on its own, by design (pyserve's natsFiles), and a worker
# slowed by a loaded machine did (1 full run of several: each worker read
# every record). An epoch is several times what a worker reads ahead (its
# buffers), as a real one is: with less, a worker that ends its pass a
# moment after another finds the next pass's files all taken into the
# other's buffers, and reads the pass after, on its own.
WORKER = textwrap.dedent("""
    import json, sys, time
    import sluice
    from test_read import SPEC
    pat, url, name, passes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ds = sluice.examples(pat, SPEC, batch_size=32, epochs=2, readers=2, queue_url=url, queue_name=name)
    for _ in range(passes):
        labels = []
        for b in ds:
            if not labels:
                print("in the pass", flush=True)
                sys.stdin.readline()
            labels += b["label"].tolist()
            time.sleep(0.002)
        print(json.dumps(labels), flush=True)
""")


def test_two_workers_share_the_files(tmp_path, nats_url):
    """Two processes, as two hosts' trainers, read disjoint records that
    together are every record once per epoch: over two passes of two
    epochs each, every record four times between them, never more."""
    pat, truth = make_examples(tmp_path, files=8, per_file=250)
    passes = 2
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(__file__), env.get("PYTHONPATH")]))
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, pat, nats_url, "two_workers", str(passes)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
               for _ in range(2)]
    # A worker that fails or hangs is killed, so that the reads below end.
    watchdog = threading.Timer(120, lambda: [w.kill() for w in workers])
    watchdog.start()
    try:
        got = [[], []]
        for _ in range(passes):
            lines = [w.stdout.readline() for w in workers]
            assert lines == ["in the pass\n"] * 2, lines
            for w in workers:
                w.stdin.write("go\n")
                w.stdin.flush()
            for g, w in zip(got, workers):
                g.append(json.loads(w.stdout.readline()))
        for w in workers:
            w.stdin.close()
            w.wait()
    finally:
        watchdog.cancel()
        for w in workers:
            w.kill()
    assert [w.returncode for w in workers] == [0, 0]
    a = [label for p in got[0] for label in p]
    b = [label for p in got[1] for label in p]
    assert a and b, f"a worker read nothing ({len(a)}, {len(b)} records)"
    assert sorted(a + b) == sorted(list(truth) * 2 * passes), \
        f"not every record once per epoch: records per pass {[len(p) for p in got[0]]}, {[len(p) for p in got[1]]}"
    # Sharing, not each reading everything: each read part of the records.
    assert len(a) < len(truth) * 2 * passes and len(b) < len(truth) * 2 * passes


def test_queue_options(tmp_path, nats_url):
    pat, _ = make_examples(tmp_path, files=1, per_file=4)
    with pytest.raises(sluice.InvalidArgumentError, match="queue_name"):
        sluice.examples(pat, SPEC, batch_size=2, queue_url=nats_url)
    with pytest.raises(sluice.InvalidArgumentError):
        sluice.examples(pat, SPEC, batch_size=2, queue_url=nats_url, queue_name="q", shard=(0, 2))
    ds = sluice.examples(pat, SPEC, batch_size=2, queue_url=nats_url, queue_name="options")
    with pytest.raises(sluice.InvalidArgumentError, match="no shards"):
        ds.shard(0, 2)
    assert sum(len(b["label"]) for b in ds) == 4


def test_unreachable_queue(tmp_path):
    """A queue URL where no server answers fails the first batch, at once."""
    pat, _ = make_examples(tmp_path, files=1, per_file=4)
    ds = sluice.examples(pat, SPEC, batch_size=2, queue_url="nats://127.0.0.1:1", queue_name="q")
    with pytest.raises(sluice.SluiceError, match="unreachable|connect"):
        next(iter(ds))


@pytest.mark.parametrize("persistent", [False, True])
def test_torch_workers_share_the_queue(tmp_path, nats_url, persistent):
    """DataLoader workers of a queue_url data set take their files from the
    queue instead of shards; workers started anew for each of the
    trainer's epochs join the pass the others are in."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    # Epochs larger than what the workers read ahead (see WORKER).
    pat, truth = make_examples(tmp_path, files=8, per_file=250)
    ds = sluice.examples(pat, SPEC, batch_size=32, queue_url=nats_url, queue_name=f"torch_{persistent}")
    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None, num_workers=2,
                                         persistent_workers=persistent, timeout=60)
    for epoch in range(3):
        labels = [l for b in loader for l in b["label"].tolist()]
        assert sorted(labels) == sorted(truth), f"epoch {epoch}"
