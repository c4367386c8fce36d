"""Sharing a store with other tools: true-value COGs per timestep (cog) and static STAC metadata (stac)."""
