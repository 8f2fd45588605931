"""Which compiled nodes a build runs, and what each waits for, as ``dbt build`` decides.

Selection follows dbt's selectors as far as pdbench uses them (a name or ``tag:``, ``+``
before or after, spaces for a union, commas for an intersection). The order is dbt's: a node
runs once what it reads is built; a data test once every node it reads is built; and a node
waits for a data test when everything the test reads is upstream of the node (dbt-core's
``Linker.add_test_edges``): so a model never reads a table whose tests have not passed, and a
test that reads several models never makes a circle.
"""

from __future__ import annotations

from collections.abc import Iterable

from pdbench.dbt_build.compilation import CompiledProject, Node
from pdbench.errors import AggregationError

__all__ = ["order", "plan", "selected", "upstream"]


def selected(project: CompiledProject, select: str, exclude: str | None) -> set[str]:
    """The models (and seeds) dbt's ``--select``/``--exclude`` name: terms apart by spaces
    (union) or commas (intersection), each a model's name or ``tag:<tag>``, with ``+`` before
    (and what it reads) or after (and what reads it)."""
    chosen = _union(project, select)
    if exclude:
        chosen -= _union(project, exclude)
    return chosen


def _union(project: CompiledProject, text: str) -> set[str]:
    found: set[str] = set()
    for term in text.split():
        parts = [_term(project, part) for part in term.split(",")]
        found |= set.intersection(*parts)
    return found


def _term(project: CompiledProject, term: str) -> set[str]:
    up, down = term.startswith("+"), term.endswith("+")
    name = term.strip("+")
    buildable = [node for node in project.nodes if node.resource_type in ("model", "seed")]
    if name.startswith("tag:"):
        found = {node.unique_id for node in buildable if name[4:] in node.tags}
    elif ":" in name:
        raise AggregationError(f"dbt selector {term!r}: pdbench selects by name or tag: only")
    else:
        found = {node.unique_id for node in buildable if node.name == name}
    if up:
        found |= upstream(project, found)
    if down:
        found |= _downstream(project, found)
    return found


def upstream(project: CompiledProject, start: Iterable[str]) -> set[str]:
    """Every node of the project the nodes ``start`` read, directly or not."""
    seen: set[str] = set()
    queue = [dep for unique_id in start for dep in project.by_id[unique_id].depends_on]
    while queue:
        current = queue.pop()
        if current not in seen and current in project.by_id:
            seen.add(current)
            queue.extend(project.by_id[current].depends_on)
    return seen


def _downstream(project: CompiledProject, start: Iterable[str]) -> set[str]:
    seen = set(start)
    grew = True
    while grew:
        grew = False
        for node in project.nodes:
            reads = set(node.depends_on)
            if node.resource_type != "test" and node.unique_id not in seen and seen & reads:
                seen.add(node.unique_id)
                grew = True
    return seen - set(start)


def order(project: CompiledProject, chosen: set[str], *, with_tests: bool) -> list[Node]:
    """The nodes of :func:`plan`, in an order where each comes after what it waits for."""
    waits = plan(project, chosen, with_tests=with_tests)
    ordered: list[Node] = []
    done: set[str] = set()
    while waits:
        ready = [unique_id for unique_id, reads in waits.items() if reads <= done]
        if not ready:
            raise AggregationError(f"dbt nodes read one another in a circle: {sorted(waits)[:3]}")
        for unique_id in ready:
            del waits[unique_id]
            done.add(unique_id)
            ordered.append(project.by_id[unique_id])
    return ordered


def plan(project: CompiledProject, chosen: set[str], *, with_tests: bool) -> dict[str, set[str]]:
    """The nodes to run, each with the nodes it waits for: the chosen models, the seeds they
    read, and (``with_tests``) the data tests whose nodes are all built. In the manifest's
    order."""
    seeds = {
        unique_id
        for unique_id in upstream(project, chosen)
        if project.by_id[unique_id].resource_type == "seed"
    }
    building = chosen | seeds
    tests = _tests_of_built(project, building) if with_tests else {}
    tests_reading: dict[str, set[str]] = {}
    for unique_id, reads in tests.items():
        for dep in reads:
            tests_reading.setdefault(dep, set()).add(unique_id)
    ancestors: dict[str, set[str]] = {}
    waits: dict[str, set[str]] = {}
    for node in project.nodes:
        if node.unique_id not in building:
            continue
        above = _ancestors(project, node.unique_id, building, ancestors)
        candidates = {test for dep in above for test in tests_reading.get(dep, ())}
        waits[node.unique_id] = {dep for dep in node.depends_on if dep in building} | {
            test for test in candidates if tests[test] <= above
        }
    for unique_id, reads in tests.items():
        waits[unique_id] = set(reads)
    return waits


def _tests_of_built(project: CompiledProject, building: set[str]) -> dict[str, set[str]]:
    """The data tests every node of which is built, each with the nodes it reads."""
    tests: dict[str, set[str]] = {}
    for node in project.nodes:
        reads = {dep for dep in node.depends_on if dep in project.by_id}
        if node.resource_type == "test" and reads and reads <= building:
            tests[node.unique_id] = reads
    return tests


def _ancestors(
    project: CompiledProject, unique_id: str, building: set[str], known: dict[str, set[str]]
) -> set[str]:
    """Every built node ``unique_id`` reads, directly or not (memoised in ``known``; the
    project's nodes come in an order where what a node reads comes first)."""
    if unique_id not in known:
        found: set[str] = set()
        for dep in project.by_id[unique_id].depends_on:
            if dep in building:
                found.add(dep)
                found |= _ancestors(project, dep, building, known)
        known[unique_id] = found
    return known[unique_id]
