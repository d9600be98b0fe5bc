"""The page's assets: ES modules and the editor bundled by esbuild, one stylesheet, the search index."""
