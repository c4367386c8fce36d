"""HTTP rules of the reader against a real local server with fault switches: missing keys, 403,
retries, ranges answered whole, lying Content-Range, compression, signed URLs, object size cap."""

from __future__ import annotations

import numpy as np
import pytest
from faulty_host import faulty_server

import chronozarr
from chronozarr.errors import FetchError, StoreError
from chronozarr.serve import StoreServer


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from conftest import make_series

    da = make_series(n_time=3, height=32, width=32, seed=4)
    root = tmp_path_factory.mktemp("http")
    chronozarr.encode(da, root / "plain", crs="EPSG:32631", chunk_size=16, encoding="none")
    chronozarr.encode(da, root / "sharded", crs="EPSG:32631", chunk_size=16, encoding="none", shard=True)
    return root, da.values


def test_missing_chunk_404_reads_as_fill(served, tmp_path):
    import shutil

    root, values = served
    shutil.copytree(root / "plain", tmp_path / "s")
    (tmp_path / "s" / "0" / "data" / "c" / "1" / "0" / "0" / "1").unlink()
    with StoreServer(tmp_path) as server, chronozarr.open_dataset(f"{server.url}/s") as store:
        frame = store.read(1)
        assert (frame[:, :16, 16:] == 0).all()
        np.testing.assert_array_equal(frame[:, 16:], values[1, :, 16:])
        assert store.stats.missing == 1


def test_410_is_missing_too(served):
    root, _ = served
    with StoreServer(root, missing_status=410) as server, chronozarr.open_dataset(f"{server.url}/plain") as store:
        assert store.read_mask(0) is None
        (root / "plain" / "0" / "data" / "c" / "2" / "0" / "0" / "0").rename(root / "moved")
        try:
            assert (store.read(2)[:, :16, :16] == 0).all()
        finally:
            (root / "moved").rename(root / "plain" / "0" / "data" / "c" / "2" / "0" / "0" / "0")


def test_403_is_an_error_naming_url_and_status_unless_told_otherwise(served):
    root, _ = served
    with StoreServer(root, forbidden=frozenset({"plain/0/data/c/1"})) as server:
        with chronozarr.open_dataset(f"{server.url}/plain") as store:
            with pytest.raises(FetchError, match=r"403.*|forbidden") as info:
                store.read(1)
            assert "plain/0/data/c/1/0/" in str(info.value) and info.value.status == 403
        with chronozarr.open_dataset(f"{server.url}/plain", forbidden_is_not_found=True) as store:
            assert (store.read(1) == 0).all()


def test_5xx_is_retried_with_backoff_then_reported(served):
    root, values = served
    with faulty_server(root, fail_status=(503, 2)) as server:
        with chronozarr.open_dataset(f"{server.url}/plain", backoff=0.01) as store:
            np.testing.assert_array_equal(store.read(0), values[0])
            assert store.stats.retries == 2
    with faulty_server(root, fail_status=(502, 50)) as server:
        with pytest.raises(FetchError, match="502") as info:
            chronozarr.open_dataset(f"{server.url}/plain", retries=2, backoff=0.01)
        assert info.value.url.endswith("/plain/zarr.json")


def test_range_answered_with_200_is_cut_locally_and_counted(served):
    root, values = served
    with StoreServer(root, ranges=False) as server, chronozarr.open_dataset(f"{server.url}/sharded") as store:
        np.testing.assert_array_equal(store.read(2), values[2])
        assert store.stats.range_answered_whole == 8  # 4 indexes + 4 chunks


def test_206_with_a_different_content_range_is_an_error(served):
    root, _ = served
    with faulty_server(root, wrong_content_range=True) as server, chronozarr.open_dataset(f"{server.url}/sharded") as store:
        with pytest.raises(FetchError, match="Content-Range"):
            store.read(0)


def test_compressed_transfer_is_refused(served):
    root, _ = served
    with StoreServer(root, gzip=True) as server:
        with pytest.raises(FetchError, match="Content-Encoding"):
            chronozarr.open_dataset(f"{server.url}/plain", headers={"Accept-Encoding": "gzip"})


def test_a_signed_url_query_goes_with_every_request(served):
    root, values = served
    with StoreServer(root) as server:
        with chronozarr.open_dataset(f"{server.url}/sharded?sig=abc%2F1&exp=9") as store:
            np.testing.assert_array_equal(store.read(1), values[1])
        assert server.requests and all(r.path.endswith("?sig=abc%2F1&exp=9") for r in server.requests)


def test_no_read_allocates_past_the_object_size_cap(served):
    root, _ = served
    with StoreServer(root) as server:
        with pytest.raises(StoreError, match="limit"):
            chronozarr.open_dataset(f"{server.url}/plain", max_object_bytes=100)


def test_spa_fallback_page_is_not_taken_for_a_store(served):
    root, _ = served
    with StoreServer(root, spa_fallback=True) as server:
        with pytest.raises(StoreError):
            chronozarr.open_dataset(f"{server.url}/nowhere")
