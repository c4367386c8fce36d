"""Reading stores: object access (disk, HTTP), shard indexes, reconstruction, ChronoDataset."""
