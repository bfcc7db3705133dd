"""The semantic layer: a datasource's measures, ratios, dimensions and relationships (issue 12).

`model` (the YAML format), `validate` (checks against the catalog), `draft` (a first model from the
catalog), `library` (the model in force: import, export, the bundled ones).
"""
