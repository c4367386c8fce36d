"""Writing stores: encode (and later append) built on `chronozarr.format`."""
