"""Tools over the public API: the self-check and benchmark of
`python -m complexext` (selfcheck, selfcheck_ops, bench) and the report
(report). Nothing in the package imports them."""
