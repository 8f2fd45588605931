"""Running the dbt project on a run directory: compiled by dbt once per version of the project
(:mod:`~pdbench.dbt_build.compilation`), its compiled nodes sent to DuckDB in dbt's order
(:mod:`~pdbench.dbt_build.schedule`, :mod:`~pdbench.dbt_build.execute`), dbt's own command
line for builds with unit tests (:mod:`~pdbench.dbt_build.cli`). :mod:`~pdbench.dbt_build.invoke`
is the one entry point; :mod:`~pdbench.dbt_build.request` says what a build is asked and
answers."""
