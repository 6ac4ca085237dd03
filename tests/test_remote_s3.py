"""The remote tier against a real S3-compatible server: moto's, in a subprocess on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from pymc_aot.cache import CacheStore, generate_keypair
from pymc_aot.cache.remote import RemoteTier
from pymc_aot.cache.signing import Ed25519Signer, load_private_key

s3fs = pytest.importorskip("s3fs")
pytest.importorskip("moto.server")

A, B = "a1" + "0" * 62, "b2" + "0" * 62


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint():
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url, timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.skip("moto's server did not start")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(30)


@pytest.fixture
def bucket(s3_endpoint, monkeypatch, tmp_path):
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": s3_endpoint}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()
    name = f"pymc-aot-{os.getpid()}-{time.monotonic_ns()}"
    s3fs.S3FileSystem().mkdir(name)
    return f"s3://{name}/prefix"


def test_push_then_a_worker_fetches_and_verifies_over_s3(tmp_path, bucket, monkeypatch):
    private, public = generate_keypair(tmp_path / "keys")
    signer = Ed25519Signer(load_private_key(private))
    tier = RemoteTier(bucket)
    tier.push(A, b"exe-a", {"key": {}, "model_name": "m", "created": 1.0}, signer)
    tier.push(B, b"exe-b", {"key": {}, "model_name": "m", "created": 1.0}, signer)
    assert tier.digests() == [A, B]
    fs, root = tier.filesystem()
    fs.pipe_file(f"{root}/entries/{B}/exe", b"forged")  # tampered in the bucket
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", bucket)
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", str(public))
    worker = CacheStore(tmp_path / "worker")
    assert worker.get(A)[0] == b"exe-a"
    assert worker.get(B) is None, "a tampered entry is not trusted"
    assert worker.get("c" * 64) is None
    assert [r.digest for r in worker.entries()] == [A]
