"""A capacity model of veilbot, checked by simulation.

A discrete-event simulation (``sim``) of replicas, their detection processes and Redis
shards, fed with the service times the benchmarks measured (``figures``), run against
arrivals (``workload``): a burst as ``bench_slack`` sends it, or a Poisson stream at a
company's busy-hour peak. ``python -m tests.perf.capacity --validate`` compares its
prediction with ``bench_slack`` on this machine; without ``--validate`` it sizes replicas,
detection processes and shards for companies of ``--members``.
"""
