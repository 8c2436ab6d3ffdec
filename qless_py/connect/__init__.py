"""Connecting to the server: where (``endpoint``: URLs, TLS settings, Sentinel), how
(``dial`` and ``aio_dial``: sockets and streams, TLS), what travels (``wire``: the RESP
encoder and the reply and error values, free of I/O), and over what: the workers' own
connections (``resp``, blocking, one per thread; ``aio_resp``, asyncio, one pipelined per
process) and the redis-py clients the client uses (``redis_clients``, ``aio_redis_clients``,
with ``redis_errors`` reading redis-py's exceptions as wire's). A topology other than a
single node is one module that finds where to connect (``sentinel``).

Nothing is imported here, so a worker that uses ``resp`` never imports redis-py.
"""
