"""The toolkit maintainers' side: making the prebuilt files the wheel carries (make), from the repository's pinned
npm packages (vendor: checked against vendor-manifest.json) with Node: the page's bundles, stylesheet and editor
(bundles, esbuild), each Pyodide release prepared with its stdlib compiled to .pyc inside it (prepare, node,
pyc_stdlib.mjs), labkit's wheel per release (labkit). Nothing an author runs imports this package."""
