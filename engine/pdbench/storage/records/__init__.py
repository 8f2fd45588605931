"""The contract of every record in a run directory: one pydantic model per record.

Everything else about a record follows from its model: the key order of the lines the engine
writes (:func:`~pdbench.storage.records.columns.line_keys`), the JSON schema
(``pdbench schema <record>``) and the DuckDB column types the readers use
(:func:`~pdbench.storage.records.columns.duckdb_columns`), which the dbt sources in
``dbt_project/models/staging/_sources.yml`` declare (a test holds them equal).

- :mod:`.fields`: the schema version, the value types records share, the record base class;
- :mod:`.pd`: a PD round and a PD match;
- :mod:`.calls`: a provider call attempt, in either game;
- :mod:`.arena`: an arena question, rating, answer, judgement and self-assessment;
- :mod:`.manifest`: the run manifest;
- :mod:`.files`: the file names of a run directory and which record each holds;
- :mod:`.columns`: key order and DuckDB columns of a record.

Import the records from :mod:`pdbench.storage.schema`.
"""
